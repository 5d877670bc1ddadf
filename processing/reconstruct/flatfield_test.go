package reconstruct

import (
	"math"
	"testing"
)

// TestFlatField checks the correction and −log pixel by pixel against
// the formula written out, the bounds (a value above Upper becomes Upper,
// one at or below Lower becomes Lower, as httomolibgpu's kernel), a flat
// no brighter than the dark (the denominator floored at 1e-7), and the
// mean of the frames.
func TestFlatField(t *testing.T) {
	darks := []float32{10, 12, 100, 14, 9, 100} // 2 frames of 3 pixels
	flats := []float32{110, 62, 100, 90, 58, 100}
	dark, flat := make([]float32, 3), make([]float32, 3)
	MeanFrames(dark, darks)
	MeanFrames(flat, flats)
	if dark[0] != 12 || dark[1] != 10.5 || flat[0] != 100 || flat[1] != 60 {
		t.Fatalf("means %v %v", dark, flat)
	}
	data := []float32{56, 35.25, 100, 12, 200, 100}
	out := make([]float32, len(data))
	low, high := DefaultFlatField.Correct(out, data, dark, flat)
	for i, v := range data {
		want := float64(v-dark[i%3]) / math.Max(float64(flat[i%3]-dark[i%3]), 1e-7)
		if float64(out[i]) != float64(float32(want)) {
			t.Errorf("pixel %d: %g, want %g", i, out[i], want)
		}
	}
	if low != 0 || high != 0 {
		t.Errorf("clipped %d, %d without bounds", low, high)
	}
	ff := DefaultFlatField
	ff.Lower, ff.Upper = 0.1, 2
	low, high = ff.Correct(out, data, dark, flat)
	if out[3] != 0.1 || out[4] > 2 || out[4] != 2 || low != 3 || high != 1 {
		t.Errorf("bounded: %v, clipped %d low and %d high", out, low, high)
	}
	ml := make([]float32, 2)
	MinusLog(ml, []float32{1, float32(math.Exp(-2))})
	if ml[0] != 0 || math.Abs(float64(ml[1])-2) > 1e-6 {
		t.Errorf("minus_log %v", ml)
	}
	if f := DarkerFlats(dark, flat); math.Abs(f-1.0/3) > 1e-12 {
		t.Errorf("darker flats: %g of the pixels, want 1/3", f)
	}
}
