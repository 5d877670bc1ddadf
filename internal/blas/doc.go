// Package blas is voxlab's one binding of the matrix products the CPU
// kernels use (distance's float64 Gram products, classification's
// float32 convolutions): OpenBLAS, linked statically through gonum's cgo
// binding (gonum.org/v1/netlib), or gonum's pure-Go BLAS with -tags
// noopenblas.
//
// OpenBLAS keeps one global thread count. Products that want several
// OpenBLAS threads (Dgemm with workers > 1) set it and hold it for their
// call; products that run one thread each, from goroutines of their own
// (Sgemm1: classification's workers, one im2col block each), run
// concurrently with the count at one. The two kinds never overlap.
package blas
