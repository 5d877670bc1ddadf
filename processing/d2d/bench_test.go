package d2d

import (
	"context"
	"math/rand/v2"
	"testing"
)

// BenchmarkEMD is the submitted populations' transport at the
// challenge's scale: about 600 windows (3,315 ground-truth maps, 90%,
// windows of 5) against 80 submitted maps, rank-sum costs.
func BenchmarkEMD(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const m, n = 600, 80
	a, w, c := make([]float64, m), make([]float64, n), make([]float64, m*n)
	for i := range a {
		a[i] = 1.0 / m
	}
	for j := range w {
		w[j] = 1.0 / n
	}
	for i := range c {
		c[i] = float64(rng.IntN(400))
	}
	for b.Loop() {
		if _, err := EMD(context.Background(), a, w, c); err != nil {
			b.Fatal(err)
		}
	}
}
