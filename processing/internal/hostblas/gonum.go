//go:build noopenblas

package hostblas

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Name says which BLAS computes the products.
const Name = "gonum (pure Go)"

// Workspace is the host memory the products hold between calls: none
// (gonum allocates its blocks per call, a few KiB each).
func Workspace(workers int) int64 { return 0 }

// Dgemm is BLAS's dgemm, c = alpha·op(a)·op(b) + beta·c (row-major), in
// gonum's pure Go, which splits the work over GOMAXPROCS goroutines
// itself, whatever workers says.
func Dgemm(workers int, tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	gonum.Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dsyrk is BLAS's dsyrk, the ul triangle of c = alpha·a·aᵀ + beta·c (t
// NoTrans; aᵀ·a for Trans), row-major, in gonum's pure Go, on one
// goroutine whatever workers says.
func Dsyrk(workers int, ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	gonum.Implementation{}.Dsyrk(ul, t, n, k, alpha, a, lda, beta, c, ldc)
}
