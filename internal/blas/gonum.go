//go:build noopenblas

package blas

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Name says which BLAS computes the matrix products.
const Name = "gonum (pure Go)"

// DgemmNT sets c (m x n, row stride ldc) = a (m x k, stride lda) · bᵀ
// (b: n x k, stride ldb) with gonum's pure-Go BLAS, which splits the work
// over GOMAXPROCS goroutines itself.
func DgemmNT(workers, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	gonum.Implementation{}.Dgemm(blas.NoTrans, blas.Trans, m, n, k, 1, a, lda, b, ldb, 0, c, ldc)
}

// Sgemm1 sets c (m x n, row stride ldc) = a (m x k, stride lda) · b (k x
// n, stride ldb) + beta·c, row-major, with gonum's pure-Go BLAS.
func Sgemm1(m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
}
