package train

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAdamRangeMatchesGo: the AVX2 update (where it runs) gives the Go
// loop's bits, the tail past the last eight included.
func TestAdamRangeMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 1003
	vec := func(scale float64) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * scale)
		}
		return x
	}
	w, g, m, v := vec(1), vec(1e-3), vec(1e-3), vec(1e-6)
	for i := range v {
		v[i] *= v[i]
	}
	w2, m2, v2 := slices.Clone(w), slices.Clone(m), slices.Clone(v)
	adamRange(w, g, m, v, 1e-4)
	adamGo(w2, g, m2, v2, 1e-4)
	for i := range w {
		if w[i] != w2[i] || m[i] != m2[i] || v[i] != v2[i] {
			t.Fatalf("element %d: w %v/%v m %v/%v v %v/%v", i, w[i], w2[i], m[i], m2[i], v[i], v2[i])
		}
	}
}
