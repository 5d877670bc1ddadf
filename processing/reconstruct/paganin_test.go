package reconstruct

import (
	"math"
	"testing"
)

// TestPaganin compares phase retrieval of two projections with
// httomolibgpu's paganin_filter written out in NumPy
// (testdata/gen_golden.py): within 1e-4 of the result's range (the
// golden keeps complex64, as CuPy does; Paganin works in float64).
func TestPaganin(t *testing.T) {
	in, s := readNPY(t, "paganin_in.npy")
	want, _ := readNPY(t, "paganin_out.npy")
	plane := s[1] * s[2]
	g := NewPaganin(DefaultPaganin, s[1], s[2])
	got := make([]float32, len(in))
	for p := 0; p < s[0]; p++ {
		g.Apply(got[p*plane:(p+1)*plane], f32(in[p*plane:(p+1)*plane]))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range want {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if d, _ := maxAbsDiff(got, want); d > 1e-4*(hi-lo) || hi-lo < 0.01 {
		t.Errorf("differs from paganin_filter by %.3g (range %.3g)", d, hi-lo)
	} else {
		t.Logf("max |Paganin − paganin_filter| %.2g (range %.3g)", d, hi-lo)
	}
}
