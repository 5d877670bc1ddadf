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

// BenchmarkReplicate is one replicate at the challenge's scale: 3,315
// ground-truth maps against 80 submitted maps, windows of 5, the KL fit
// allowed the challenge's 100,000 iterations.
func BenchmarkReplicate(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	const m, n = 3315, 80
	cost := make([]float64, m*n)
	for i := range cost {
		cost[i] = rng.Float64()
	}
	g := Ground{Populations: make([]float64, m), Order: make([]int, m)}
	for i := range m {
		g.Populations[i], g.Order[i] = 1.0/m, i
	}
	pops := make([]float64, n)
	for j := range pops {
		pops[j] = 1.0 / n
	}
	cfg := Config{Replicates: 1, Pool: 5, Fraction: 0.9, KLIterations: 100000, KLTolerance: 1e-4}
	for b.Loop() {
		reps, err := Analyse(context.Background(), cost, m, n, g, pops, cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(reps[0].KLIterStop+1), "kl-iterations")
	}
}
