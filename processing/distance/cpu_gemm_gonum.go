//go:build noopenblas

package distance

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// BLASName says which BLAS computes the matrix products on the CPU
// backend.
const BLASName = "gonum (pure Go)"

// gemmNT sets c (m x n, row stride ldc) = a (m x k, stride lda) · bᵀ
// (b: n x k, stride ldb) with gonum's pure-Go BLAS, which splits the work
// over GOMAXPROCS goroutines itself.
func gemmNT(workers, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	gonum.Implementation{}.Dgemm(blas.NoTrans, blas.Trans, m, n, k, 1, a, lda, b, ldb, 0, c, ldc)
}
