//go:build !amd64

package train

// adamRange applies the update to w, m and v from g in Go.
func adamRange(w, g, m, v []float32, alpha float32) { adamGo(w, g, m, v, alpha) }
