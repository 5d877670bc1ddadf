package reconstruct

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAccumulateVector compares accumulate and accumulate2 (the AVX-512
// or AVX2 loops where the machine has them) with lerp column by column, over
// spans of every length 0…40 and slopes of both signs: within 1e-12 of
// the samples' scale (the vector loop's FMA rounds once fewer).
func TestAccumulateVector(t *testing.T) {
	if !hasAVX512 && !hasAVX2 {
		t.Log("neither AVX-512 nor AVX2 here: accumulate is the plain loop, compared with itself")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	col := make([]float32, 300)
	colB := make([]float32, 300)
	for i := range col {
		col[i], colB[i] = rng.Float32()*2-1, rng.Float32()*2-1
	}
	for n := 0; n <= 40; n++ {
		for _, c := range []float64{0.73, -0.91, 0.001, 1} {
			u := 150 + rng.Float64()
			d := -c * 0.8
			ub := 140 + rng.Float64()
			got := make([]float64, n)
			got2 := make([]float64, n)
			want := make([]float64, n)
			want2 := make([]float64, n)
			for j := range got {
				got[j] = float64(j)
				got2[j] = float64(j)
				fu, fb := fixed(u), fixed(ub)
				fu += int64(j) * fixed(c)
				fb += int64(j) * fixed(d)
				want[j] = float64(j) + lerp(col, fu)
				want2[j] = float64(j) + lerp(col, fu) + lerp(colB, fb)
			}
			accumulate(got, col, u, c)
			accumulate2(got2, col, u, c, colB, ub, d)
			for j := range got {
				if math.Abs(got[j]-want[j]) > 1e-12 || math.Abs(got2[j]-want2[j]) > 1e-12 {
					t.Fatalf("n %d, slope %g, column %d: accumulate %g, accumulate2 %g; want %g, %g",
						n, c, j, got[j], got2[j], want[j], want2[j])
				}
			}
		}
	}
}
