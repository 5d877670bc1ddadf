// Package hostblas is the double-precision matrix products the CPU
// pipelines hand to a BLAS: OpenBLAS, linked statically through gonum's
// cgo binding (gonum.org/v1/netlib; libopenblas.a from Debian's
// libopenblas-dev), so binaries run on machines without OpenBLAS
// installed. Built with -tags noopenblas it is gonum's pure-Go BLAS.
//
// On this project's 2-core reference machine OpenBLAS's dgemm is 5.5
// times gonum's Dgemm (distance: 106,000 vs 19,500 pairs/s for 200 x 40
// maps of 64³), and its dsyrk 6.8 times gonum's Dsyrk, which runs on one
// goroutine (svd's Gram matrix, one thread each: 8.8·10⁹ vs 1.3·10⁹
// multiply-adds a second on a busy machine; BENCHMARKS.md, issue 36).
//
// A package of its own so that one binary holds one copy of the C
// constructor that starts OpenBLAS with one thread (openblas.go) and one
// lock over OpenBLAS's process-wide thread count: every product says how
// many threads it may use (the pipeline's workers), and products run one
// at a time.
package hostblas
