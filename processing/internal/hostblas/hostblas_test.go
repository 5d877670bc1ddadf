package hostblas

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// TestAgainstGonum: both products agree with gonum's pure-Go BLAS on
// shapes OpenBLAS splits over threads, in both transpositions svd and
// distance use, whatever the thread count.
func TestAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	const m, n, k = 67, 45, 301
	a, b := vals(m*k), vals(n*k)
	for _, workers := range []int{1, 2, 0} {
		got, want := vals(m*n), make([]float64, m*n)
		copy(want, got)
		Dgemm(workers, blas.NoTrans, blas.Trans, m, n, k, 1, a, k, b, k, 0.5, got, n)
		gonum.Implementation{}.Dgemm(blas.NoTrans, blas.Trans, m, n, k, 1, a, k, b, k, 0.5, want, n)
		near(t, "Dgemm NT", workers, got, want)

		// aᵀ·b with a k × m, b k × n: svd's projection.
		at, bt := vals(k*m), vals(k*n)
		got, want = make([]float64, m*n), make([]float64, m*n)
		Dgemm(workers, blas.Trans, blas.NoTrans, m, n, k, 1, at, m, bt, n, 0, got, n)
		gonum.Implementation{}.Dgemm(blas.Trans, blas.NoTrans, m, n, k, 1, at, m, bt, n, 0, want, n)
		near(t, "Dgemm TN", workers, got, want)

		got, want = vals(m*m), make([]float64, m*m)
		copy(want, got)
		Dsyrk(workers, blas.Upper, blas.NoTrans, m, k, 1, a, k, 1, got, m)
		gonum.Implementation{}.Dsyrk(blas.Upper, blas.NoTrans, m, k, 1, a, k, 1, want, m)
		near(t, "Dsyrk", workers, got, want)
	}
}

func near(t *testing.T, what string, workers int, got, want []float64) {
	t.Helper()
	for i := range got {
		if d := math.Abs(got[i] - want[i]); d > 1e-12*(1+math.Abs(want[i])) {
			t.Fatalf("%s, %d workers: element %d is %v, gonum's %v", what, workers, i, got[i], want[i])
		}
	}
}
