package reconstruct

import (
	"path/filepath"
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

// TestSweepLabelsAreTheOutputsCentres: the window labels a sweep's maps
// with the centres the run recorded in its output (Sweep.Recorded reads
// reconstruct_center_sweep back), one per slice written, in order; an
// output format without metadata (NPY) records none, and the request's
// centres label the maps.
func TestSweepLabelsAreTheOutputsCentres(t *testing.T) {
	dir := t.TempDir()
	proj, darks, flats, err := defaultExample.write(dir)
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string]any{"darks": darks, "flats": flats, "rows": "2:3", "center-sweep": "14:15.5:0.5"}
	out := filepath.Join(dir, "sweep.attrtest")
	rep, err := runSpec(t, proj, out, 0, flags)
	if err != nil {
		t.Fatal(err)
	}
	v := Spec.Defaults()
	v["center-sweep"] = "14:15.5:0.5"
	sw := Spec.Live.Sweep(nil, v)
	got, ok, err := sw.Recorded(out)
	want := []string{"14", "14.5", "15", "15.5"}
	if err != nil || !ok || !slices.Equal(got, want) {
		t.Errorf("recorded centres %v (%v, %v), want %v", got, ok, err, want)
	}
	if n := rep.Summary.(Summary).Shape[0]; n != len(got) {
		t.Errorf("%d labels for %d slices written", len(got), n)
	}
	npy := filepath.Join(dir, "sweep.npy")
	if _, err := runSpec(t, proj, npy, 0, flags); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := sw.Recorded(npy); ok || err != nil {
		t.Errorf("an NPY output recorded centres %v (%v)", got, err)
	}
}
