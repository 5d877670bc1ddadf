// Package svd is the cryo-EM heterogeneity challenge's SVD analysis
// (github.com/flatironinstitute/Cryo-EM-Heterogeneity-Challenge-1,
// src/cryo_challenge/_svd): the subspace each submission's maps span,
// and how much of one another's (and the ground truth's) variance those
// subspaces capture.
//
// GramSVD computes a set's top-rank SVD after the challenge's
// normalisation (each map divided by its norm, the mean map removed) in
// memory bounded by the number of maps, not their size: the Gram matrix
// is accumulated slab by slab of voxels, so the challenge's full ground
// truth (thousands of 224³ maps, over 100 GB) needs n² values and one
// slab, not the maps. The Gram matrix's rank-k updates (dsyrk) and the
// projection (dgemm) run on OpenBLAS with the CPU backend's workers
// (processing/internal/hostblas; gonum's pure-Go BLAS with -tags
// noopenblas): 7 times gonum's single-threaded Dsyrk, which left
// the challenge's full ground truth (3,315 maps of 128³) at about 100
// minutes. DistanceMatrix is the challenge's captured-variance
// matrix (svd_metric) in its sorted order.
package svd
