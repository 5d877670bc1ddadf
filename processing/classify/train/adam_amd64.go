package train

import "golang.org/x/sys/cpu"

// hasAVX2 says adamAVX2 runs here.
var hasAVX2 = cpu.X86.HasAVX2

// adamAVX2 is Adam's update in AVX2 (adam_amd64.s) on the first n &^ 7
// elements of w, g, m and v.
//
//go:noescape
func adamAVX2(n int, pw, pg, pm, pv *float32, c1, c2, alpha, eps float32)

// adamRange applies the update to w, m and v from g (all of g's length),
// eight elements at a time where AVX2 runs: Adam reads and writes every
// weight of the model each step, and the scalar loop was a quarter of
// the step.
func adamRange(w, g, m, v []float32, alpha float32) {
	n := len(g)
	if !hasAVX2 || n < 8 {
		adamGo(w, g, m, v, alpha)
		return
	}
	_, _, _ = w[n-1], m[n-1], v[n-1]
	adamAVX2(n, &w[0], &g[0], &m[0], &v[0], 1-Beta1, 1-Beta2, alpha, AdamEpsilon)
	done := n &^ 7
	adamGo(w[done:], g[done:], m[done:], v[done:], alpha)
}
