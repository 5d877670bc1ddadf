// Package distance computes distance matrices between two sets of cryo-EM
// maps — ground truth (rows) and submitted maps (columns) — as the cryo-EM
// heterogeneity challenge compares them: l2, l2sq, correlation (a
// similarity), corr-distance, BioEM (Cossio & Hummer 2013, eq. 10), the
// Fourier shell correlation distance and the resolution at FSC 0.5.
//
// Both sets go through the same masking and normalisation (the
// preparer, prepare.go) in every pipeline, turning each map into a row of float64: its masked,
// normalised voxels; for the FSC, its half spectrum ordered by Fourier
// shell (each map is Fourier transformed once, never once per pair); and
// its statistics. Every metric is then made from products of rows — one
// matrix product per column segment (Ops.Gram) — and the rows' statistics
// (Ops.Metric), so the work that grows with the number of pairs runs as
// dgemm on the CPU backend (cpu_ops.go, OpenBLAS) or as a CUDA kernel
// (distance.cu, its committed PTX and cuda_ops.go under the cuda tag).
//
// The res metric is box·voxel/i Å at the first shell i whose FSC is
// below 0.5, and Nyquist (2 voxels) when no shell's is. Here it departs
// from the challenge's code on purpose: there np.argmin over "FSC > 0.5"
// returns shell 1 when no shell drops, so identical or very similar maps
// get the worst resolution, box·voxel, instead of the best; and for odd
// boxes it scales by 2·⌊box/2⌋ instead of box. Where the FSC does drop,
// at an even box, the two agree.
//
// Run has two pipelines with identical results: in memory (both sets
// resident on the device, the matrix filled tile by tile) and low memory
// (the submitted set resident, the ground truth streamed from disk chunk by
// chunk, each chunk prepared on the host while the device computes the
// previous one). Maps are read one batch per read, the next batch read
// while this one is prepared, and on the CPU backend prepared straight
// into the compute buffers (there is no device to upload to).
//
// MakePlan sizes tiles and chunks with processing/plan: every array a run
// holds at once is in its phases, and on the CPU backend device and host
// arrays count once against the host budget (plan.Budget.Shared). Run
// allocates its host arrays through Config.Tracker under the plan's
// names, so tests hold what a run held against the plan's PeakRAM.// Package distance computes distance matrices between two sets of cryo-EM
// maps — ground truth (rows) and submitted maps (columns) — as the cryo-EM
// heterogeneity challenge compares them: l2, l2sq, correlation (a
// similarity), corr-distance, BioEM (Cossio & Hummer 2013, eq. 10), the
// Fourier shell correlation distance and the resolution at FSC 0.5.
//
// Both sets go through the same masking and normalisation (the
// preparer, prepare.go) in every pipeline, turning each map into a row of float64: its masked,
// normalised voxels; for the FSC, its half spectrum ordered by Fourier
// shell (each map is Fourier transformed once, never once per pair); and
// its statistics. Every metric is then made from products of rows — one
// matrix product per column segment (Ops.Gram) — and the rows' statistics
// (Ops.Metric), so the work that grows with the number of pairs runs as
// dgemm on the CPU backend (cpu_ops.go, OpenBLAS) or as a CUDA kernel
// (distance.cu, its committed PTX and cuda_ops.go under the cuda tag).
//
// The res metric is box·voxel/i Å at the first shell i whose FSC is
// below 0.5, and Nyquist (2 voxels) when no shell's is. Here it departs
// from the challenge's code on purpose: there np.argmin over "FSC > 0.5"
// returns shell 1 when no shell drops, so identical or very similar maps
// get the worst resolution, box·voxel, instead of the best; and for odd
// boxes it scales by 2·⌊box/2⌋ instead of box. Where the FSC does drop,
// at an even box, the two agree.
//
// Run has two pipelines with identical results: in memory (both sets
// resident on the device, the matrix filled tile by tile) and low memory
// (the submitted set resident, the ground truth streamed from disk chunk by
// chunk, each chunk prepared on the host while the device computes the
// previous one). Maps are read one batch per read, the next batch read
// while this one is prepared, and on the CPU backend prepared straight
// into the compute buffers (there is no device to upload to).
//
// MakePlan sizes tiles and chunks with processing/plan: every array a run
// holds at once is in its phases, and on the CPU backend device and host
// arrays count once against the host budget (plan.Budget.Shared). Run
// allocates its host arrays through Config.Tracker under the plan's
// names, so tests hold what a run held against the plan's PeakRAM.
//
// Spec (spec.go) is the distance matrices as voxlab offers them —
// `voxlab distance`, its YAML step and its panel form — and registers
// itself: it writes OUT_DIR (report.go: each metric as NPY, CSV and a PNG
// heat map, through processing/matrix, and summary.json) and splits into
// tasks of ground-truth rows, each a binary part the merge assembles
// (parts.go).
package distance
