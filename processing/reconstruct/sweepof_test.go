package reconstruct

import (
	"slices"
	"testing"
)

// TestSweepOfNamesTheCentresInTheirOrder: the window labels a sweep's
// maps with the centres Spec.Live.Sweep gives, so they must be the
// centres writeSweep reconstructs at, in order (parseSweep), and a run
// without a sweep is no sweep.
func TestSweepOfNamesTheCentresInTheirOrder(t *testing.T) {
	v := Spec.Defaults()
	if sw := Spec.Live.Sweep(nil, v); sw != nil {
		t.Errorf("no --center-sweep gave a sweep %+v", sw)
	}
	v["center-sweep"] = "12.5:13.7:0.3"
	sw := Spec.Live.Sweep(nil, v)
	if sw == nil {
		t.Fatal("--center-sweep 12.5:13.7:0.3 gave no sweep")
	}
	want := []string{"12.5", "12.8", "13.1", "13.4", "13.7"}
	if !slices.Equal(sw.Values, want) || sw.Param != "center" || sw.By != "center-sweep" {
		t.Errorf("sweep %+v, want centres %v filling center", sw, want)
	}
	cs, _ := parseSweep("12.5:13.7:0.3")
	if len(cs) != len(sw.Values) {
		t.Errorf("%d labels for %d slices", len(sw.Values), len(cs))
	}
}
