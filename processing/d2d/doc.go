// Package d2d is the cryo-EM heterogeneity challenge's
// distribution-to-distribution analysis (github.com/flatironinstitute/
// Cryo-EM-Heterogeneity-Challenge-1, src/cryo_challenge/
// _distribution_to_distribution): how well a submission's populations
// match the ground truth's, by optimal transport and by KL divergence
// over a map-to-map cost matrix (voxlab distance's output).
//
// For each replicate r (seed r, numpy's legacy MT19937 reproduced
// exactly) it draws a fraction of the ground-truth maps, orders them by
// pc1, pools them into windows of n_pool_microstate maps, ranks each
// map's costs to the submitted maps (rankdata), and sums the ranks and
// the ground-truth populations over each window. Then: the optimal q
// (the linear programme the challenge gives cvxpy, solved exactly in
// closed form) and its EMD, the EMD of the submitted populations (an
// exact transportation simplex, EMD), the assignment matrix, the KL fit
// of q and the KL divergences of the fit and of the submission.
//
// `voxlab d2d COST OUT` runs it from a cost matrix NPY (or voxlab
// distance's output folder, one metric per matrix), the ground truth's
// metadata CSV and the submitted populations, and writes OUT: NPY files
// per metric and replicate, PNG heat maps and summary.json.
package d2d
