package detect

// Enhance writes into dst the enhanced plane cellfinder shows and
// thresholds: e (the negated Laplacian of Ops.Plane's E plane) rescaled
// to [0, clip] (min-max, a constant plane giving 0). It returns dst.
func Enhance(dst, e []float32, clip int) []float32 {
	if len(e) == 0 {
		return dst
	}
	mn, mx := e[0], e[0]
	for _, v := range e {
		mn, mx = min(mn, v), max(mx, v)
	}
	rng := mx - mn
	if rng == 0 {
		rng = 1
	}
	c := float32(clip)
	for i, v := range e {
		dst[i] = (v - mn) / rng * c
	}
	return dst
}
