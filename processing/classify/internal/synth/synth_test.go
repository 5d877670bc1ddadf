package synth

import "testing"

// TestMatchesPython pins values the Python twin (testdata/synth.py)
// prints, so that the two stay the same functions.
func TestMatchesPython(t *testing.T) {
	if got := SplitMix64(0); got != 16294208416658607535 {
		t.Errorf("SplitMix64(0) = %d", got)
	}
	if got := SplitMix64(1); got != 10451216379200822465 {
		t.Errorf("SplitMix64(1) = %d", got)
	}
	want := []float64{-0.7115606, 0.62664855, -0.88833034, -0.7610899}
	for i, w := range want {
		if got := float32(Uniform("conv1", 0, i)); float64(got)-w > 1e-7 || w-float64(got) > 1e-7 {
			t.Errorf("Uniform(conv1, 0, %d) = %v, Python %v", i, got, w)
		}
	}
}
