package d2d

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// TestOptimalQAgainstSimplex: the closed form of the optimal-q
// programme has gonum's simplex solver's optimum (to 1e-9) on the
// programme as the challenge writes it (variables q then T; T's row sums
// p, its column sums q; Σq = 1 is implied by Σp = 1 and dropped, since
// lp.Simplex wants full row rank), and its q and T are feasible.
func TestOptimalQAgainstSimplex(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 1))
	for _, sz := range []struct{ r, l int }{{1, 1}, {3, 2}, {8, 5}, {20, 6}, {15, 15}} {
		p := make([]float64, sz.r)
		sum := 0.0
		for i := range p {
			p[i] = rng.Float64() + 0.01
			sum += p[i]
		}
		for i := range p {
			p[i] /= sum
		}
		w := make([]float64, sz.r*sz.l)
		for i := range w {
			w[i] = float64(rng.IntN(6)) // ties, as rank sums have
		}
		q, tr, obj := optimalQEMD(p, w, sz.l)
		want := simplexOptimalQ(t, p, w, sz.r, sz.l)
		if !near(obj, want, 1e-9) {
			t.Errorf("%d × %d: objective %.17g, lp.Simplex %.17g", sz.r, sz.l, obj, want)
		}
		cost, qs := 0.0, 0.0
		for i, f := range tr {
			cost += f * w[i]
		}
		for _, x := range q {
			qs += x
		}
		if !near(cost, obj, 1e-12) || !near(qs, 1, 1e-12) {
			t.Errorf("%d × %d: plan cost %g (objective %g), Σq %g", sz.r, sz.l, cost, obj, qs)
		}
	}
}

func simplexOptimalQ(t *testing.T, p, w []float64, r, l int) float64 {
	t.Helper()
	nv := l + r*l
	c := make([]float64, nv)
	copy(c[l:], w)
	a := mat.NewDense(r+l, nv, nil)
	b := make([]float64, r+l)
	for i := range r {
		for j := range l {
			a.Set(i, l+i*l+j, 1) // Σ_j T_ij = p_i
			a.Set(r+j, l+i*l+j, 1)
		}
		b[i] = p[i]
	}
	for j := range l {
		a.Set(r+j, j, -1) // Σ_i T_ij − q_j = 0
	}
	opt, _, err := lp.Simplex(c, a, b, 0, nil)
	if err != nil {
		t.Fatalf("lp.Simplex: %v", err)
	}
	return opt
}
