package train

import "math"

// adam is Keras 3's Adam (keras/src/optimizers/adam.py, amsgrad off):
// per variable the first and second moments, and the step count.
type adam struct {
	steps int
	m, v  map[*float32][]float32 // by the variable's first element
}

// update applies one step of Adam at learning rate lr to each variable
// with its gradient, elements shared among workers.
func (a *adam) update(lr float64, vars, grads [][]float32, workers int) {
	if a.m == nil {
		a.m, a.v = map[*float32][]float32{}, map[*float32][]float32{}
	}
	a.steps++
	t := float64(a.steps)
	alpha := float32(lr * math.Sqrt(1-math.Pow(Beta2, t)) / (1 - math.Pow(Beta1, t)))
	for i, w := range vars {
		g := grads[i]
		m, v := a.m[&w[0]], a.v[&w[0]]
		if m == nil {
			m, v = make([]float32, len(w)), make([]float32, len(w))
			a.m[&w[0]], a.v[&w[0]] = m, v
		}
		parallelFor(len(g), workers, func(lo, hi int) { adamRange(w[lo:hi], g[lo:hi], m[lo:hi], v[lo:hi], alpha) })
	}
}

// adamGo is the update of w, m and v from g (all of g's length) in Go.
func adamGo(w, g, m, v []float32, alpha float32) {
	for j, gj := range g {
		m[j] += (gj - m[j]) * (1 - Beta1)
		v[j] += (gj*gj - v[j]) * (1 - Beta2)
		w[j] -= m[j] * alpha / (float32(math.Sqrt(float64(v[j]))) + AdamEpsilon)
	}
}
