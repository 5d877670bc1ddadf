package distance

import "github.com/voxlab/voxlab/internal/blas"

// BLASName says which BLAS computes the matrix products on the CPU
// backend: OpenBLAS, or gonum's pure-Go BLAS with -tags noopenblas
// (internal/blas).
const BLASName = blas.Name

// gemmNT sets c (m x n, row stride ldc) = a (m x k, stride lda) · bᵀ
// (b: n x k, stride ldb) using workers threads.
func gemmNT(workers, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	blas.DgemmNT(workers, m, n, k, a, lda, b, ldb, c, ldc)
}
