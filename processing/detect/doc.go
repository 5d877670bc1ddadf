// Package detect finds cell candidates (bright somata) in light-sheet
// volumes the way brainglobe cellfinder's detection does (Tyson et al.
// 2021, "A deep learning algorithm for 3D cell detection in whole mouse
// brain image datasets", PLOS Comput Biol 17(5): e1009074), on a gpu
// backend, within a memory plan, batch by batch.
//
// Per plane (Ops.Plane): clip to [0, dtype max − 2], mark the in-brain
// tiles, 3x3 median, normalise to [0, 1], Gaussian (σ = log sigma × soma
// diameter px, width 2·round(4σ)+1, reflecting edges), 3x3 Laplacian,
// negate, threshold at mean + n·SD (and per tile when tiled). Over a
// sliding window of ball-z planes (Ops.Ball): a voxel of the middle plane
// is a soma centre when the thresholded voxels under a fuzzy ball kernel
// outweigh the overlap fraction and its tile is in the brain. Centre voxels are grouped into 6-connected structures whose
// rounded mean position is a cell; structures of a cell's size or smaller
// are cells, those at or above the max cluster size artifacts, and those
// between are split by repeated ball filtering.
//
// Two deliberate differences from cellfinder, both so that results do not
// depend on the batch size or backend (tests assert they do not):
//   - The ball filter counts only thresholded voxels. cellfinder's torch
//     filter also counts centres already marked in earlier planes of the
//     window, which ones depending on how planes were batched (its own
//     tests allow one cell of difference for this reason); with a whole
//     volume in one batch — as its structure splitting runs — it is the
//     same as here.
//   - The threshold compares the negated Laplacian with mean + n·SD
//     directly instead of after rescaling it to [0, clip value]: the
//     threshold is invariant under that affine map, so only pixels within
//     float32 rounding of it can differ.
//
// The two device operations are the package's own (ops.go): the CPU
// kernels are plain functions over slices (filterPlane, filterBall),
// the reference the CUDA kernels (detect.cu, compiled to the committed
// detect.ptx by go generate; launched by cuda_ops.go in the cuda build)
// are tested against bit for bit.
//
// Run is the job entry point. It emits, as job partial results, the cells
// found since the previous partial result as pipeline.Points (each structure is
// reported once it can no longer grow), so a viewer accumulates them to
// draw the cells found so far.// Package detect finds cell candidates (bright somata) in light-sheet
// volumes the way brainglobe cellfinder's detection does (Tyson et al.
// 2021, "A deep learning algorithm for 3D cell detection in whole mouse
// brain image datasets", PLOS Comput Biol 17(5): e1009074), on a gpu
// backend, within a memory plan, batch by batch.
//
// Per plane (Ops.Plane): clip to [0, dtype max − 2], mark the in-brain
// tiles, 3x3 median, normalise to [0, 1], Gaussian (σ = log sigma × soma
// diameter px, width 2·round(4σ)+1, reflecting edges), 3x3 Laplacian,
// negate, threshold at mean + n·SD (and per tile when tiled). Over a
// sliding window of ball-z planes (Ops.Ball): a voxel of the middle plane
// is a soma centre when the thresholded voxels under a fuzzy ball kernel
// outweigh the overlap fraction and its tile is in the brain. Centre voxels are grouped into 6-connected structures whose
// rounded mean position is a cell; structures of a cell's size or smaller
// are cells, those at or above the max cluster size artifacts, and those
// between are split by repeated ball filtering.
//
// Two deliberate differences from cellfinder, both so that results do not
// depend on the batch size or backend (tests assert they do not):
//   - The ball filter counts only thresholded voxels. cellfinder's torch
//     filter also counts centres already marked in earlier planes of the
//     window, which ones depending on how planes were batched (its own
//     tests allow one cell of difference for this reason); with a whole
//     volume in one batch — as its structure splitting runs — it is the
//     same as here.
//   - The threshold compares the negated Laplacian with mean + n·SD
//     directly instead of after rescaling it to [0, clip value]: the
//     threshold is invariant under that affine map, so only pixels within
//     float32 rounding of it can differ.
//
// The two device operations are the package's own (ops.go): the CPU
// kernels are plain functions over slices (filterPlane, filterBall),
// the reference the CUDA kernels (detect.cu, compiled to the committed
// detect.ptx by go generate; launched by cuda_ops.go in the cuda build)
// are tested against bit for bit.
//
// Run is the job entry point. It emits, as job partial results, the cells
// found since the previous partial result as pipeline.Points (each structure is
// reported once it can no longer grow), so a viewer accumulates them to
// draw the cells found so far.
//
// Spec (spec.go) is detection as voxlab offers it — `voxlab detect`, its
// YAML step and its panel form — and registers itself: it reads any
// volume voxlab opens, writes the CSV and cellfinder XML (output.go), and
// splits into tasks of centre planes whose parts the merge joins
// (parts.go).
package detect
