package reconstruct

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAccumulateAVX2: the AVX2 loops (for CPUs without AVX-512) add
// what lerp does to within 1e-12 (one rounding fewer: the FMA), and,
// where the CPU has AVX-512 too, exactly what the AVX-512 loops add, so
// that a slice does not depend on which of the two a machine runs.
func TestAccumulateAVX2(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 and FMA on this CPU: accumulate never runs the AVX2 loops here")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	ca, cb := make([]float32, 300), make([]float32, 300)
	for i := range ca {
		ca[i], cb[i] = rng.Float32()*2-1, rng.Float32()*2-1
	}
	for _, n := range []int{4, 8, 16, 40, 64} {
		for _, c := range []float64{0.73, -0.91, 0.001, 1} {
			ua, ub, d := 150+rng.Float64(), 140+rng.Float64(), -c*0.8
			fa, fc, fb, fd := fixed(ua), fixed(c), fixed(ub), fixed(d)
			one, two := make([]float64, n), make([]float64, n)
			for j := range one {
				one[j], two[j] = float64(j), float64(j)
			}
			if got := accumulateLanes(4, one, ca, fa, fc); got != n {
				t.Fatalf("the AVX2 loop did %d of %d columns", got, n)
			}
			accumulate2Lanes(4, two, ca, fa, fc, cb, fb, fd)
			for j := range one {
				pa, pb := fa+int64(j)*fc, fb+int64(j)*fd
				want, want2 := float64(j)+lerp(ca, pa), float64(j)+lerp(ca, pa)+lerp(cb, pb)
				if math.Abs(one[j]-want) > 1e-12 || math.Abs(two[j]-want2) > 1e-12 {
					t.Fatalf("n %d, slope %g, column %d: AVX2 %g, %g; lerp %g, %g", n, c, j, one[j], two[j], want, want2)
				}
			}
			if !hasAVX512 || n%8 != 0 {
				continue
			}
			one8, two8 := make([]float64, n), make([]float64, n)
			for j := range one8 {
				one8[j], two8[j] = float64(j), float64(j)
			}
			accumulateLanes(8, one8, ca, fa, fc)
			accumulate2Lanes(8, two8, ca, fa, fc, cb, fb, fd)
			for j := range one8 {
				if one[j] != one8[j] || two[j] != two8[j] {
					t.Fatalf("n %d, slope %g, column %d: AVX2 %v, %v; AVX-512 %v, %v", n, c, j, one[j], two[j], one8[j], two8[j])
				}
			}
		}
	}
}
