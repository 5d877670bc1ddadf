// Package classify is voxlab's fourth pipeline: cellfinder's second
// stage, which turns cell candidates into cells (Tyson et al. 2021, "A
// deep learning algorithm for 3D cell detection in whole mouse brain
// image datasets", PLOS Comput Biol 17(5): e1009074). For each
// candidate a cube of signal and background around it goes through a 3D
// ResNet trained by cellfinder's users (processing/classify/resnet, the
// network; processing/classify/keras, its weight files); the output is
// the probability of the cell class and cellfinder's type (2 cell, 1
// non-cell).
//
// Cubes are cut exactly as cellfinder's cube generator cuts them
// (extract.go): cuboid sizes and starts with Python's rounding, its
// dtype conversion, optional normalisation by channel statistics over
// sampled planes, and torch's trilinear resampling when the data's voxel
// size differs from the network's. A candidate whose cuboid leaves the
// volume is not padded: cellfinder drops it, voxlab keeps it as unknown
// (no probability, never a cell) and counts it. A loader goroutine reads
// every plane once into a ring (cellfinder re-reads planes, issue #301)
// and cuts the next batch while the network runs on this one.
//
// The network runs on a gpu backend through Ops (ops.go): on the CPU
// (cpu_net.go, cpu_conv.go, cpu_gemm.go) with every batch normalisation
// folded into its convolution's epilogue, each convolution as blocked
// im2col + an AVX2/FMA GEMM of voxlab's own (weights packed once; each
// element one chain of fused multiply-adds whatever its row's place, so
// that a cube's result does not change with its batch) over the whole
// batch, parallel over row blocks, no allocation per cube; on CUDA
// (cuda_ops.go, classify.cu, -tags cuda) as im2col kernels + cuBLAS
// (FP32, or TF32/FP16 tensor cores).
//
// A run is Open (model and headers), Session.MakePlan (every resident
// array, processing/plan), Session.Run (job progress in cubes,
// cancellable within a row block) and Result.Write (.xml as cellfinder
// writes its classified cells, .csv with the probabilities) and Report.
// Session.RunTask and Merge split the candidates into cluster tasks whose
// merge is the single run's result. Session.WriteCubes writes the cubes
// as cellfinder's training cubes (voxlab cubes).
//
// Results do not depend on the batch size, the number of workers or the
// split into tasks: tests assert it.
package classify
