package pipeline

import (
	"errors"
	"testing"
)

// TestSignalPair: the candidates opened last name their signal (the
// image they were found in), else the first image opened is; the
// background is the first other image.
func TestSignalPair(t *testing.T) {
	ch0 := Layer{Spec: "/d/ch0", Shape: [3]int{30, 510, 667}}
	ch1 := Layer{Spec: "/d/ch1", Shape: [3]int{30, 510, 667}}
	old := Layer{Spec: "/d/old.xml", Points: true}
	cand := Layer{Spec: "/d/ch1-cells.xml", Points: true, DetectedOn: "/d/ch1"}
	for _, c := range []struct {
		name            string
		open            []Layer
		sig, bg, points string
	}{
		{"ch0 then ch1", []Layer{ch0, ch1}, "/d/ch0", "/d/ch1", ""},
		{"ch1 then ch0", []Layer{ch1, ch0}, "/d/ch1", "/d/ch0", ""},
		{"candidates of ch1", []Layer{ch0, ch1, cand}, "/d/ch1", "/d/ch0", "/d/ch1-cells.xml"},
		{"the last points opened", []Layer{ch0, cand, ch1, old}, "/d/ch0", "/d/ch1", "/d/old.xml"},
		{"found in a closed image", []Layer{ch0, {Spec: "/d/x.csv", Points: true, DetectedOn: "/d/gone"}}, "/d/ch0", "", "/d/x.csv"},
		{"no image", []Layer{old}, "", "", "/d/old.xml"},
	} {
		sig, bg, pts := SignalPair(c.open)
		if sig != c.sig || bg != c.bg || pts != c.points {
			t.Errorf("%s: signal %q, background %q, points %q; want %q, %q, %q", c.name, sig, bg, pts, c.sig, c.bg, c.points)
		}
	}
}

// TestVoxelText: a layer's voxel size, else that of an image of the same
// shape, else none.
func TestVoxelText(t *testing.T) {
	open := []Layer{
		{Spec: "a", Shape: [3]int{3, 4, 5}},
		{Spec: "b", Shape: [3]int{3, 4, 5}, VoxelSize: []float64{5, 2, 2}},
		{Spec: "c", Shape: [3]int{9, 4, 5}},
		{Spec: "d", Shape: [3]int{9, 4, 5}, VoxelSize: []float64{4, 1.8, 1.8}},
	}
	for spec, want := range map[string]string{"a": "5,2,2", "b": "5,2,2", "c": "4,1.8,1.8", "d": "4,1.8,1.8", "e": ""} {
		if got := VoxelText(open, spec); got != want {
			t.Errorf("VoxelText(%s) = %q, want %q", spec, got, want)
		}
	}
	if got := VoxelText(open[:1], "a"); got != "" {
		t.Errorf("alone, a has voxel size %q", got)
	}
}

// TestUsageParam: a usage error starting with a flag is about that
// parameter; UsageFor names it.
func TestUsageParam(t *testing.T) {
	var ue UsageError
	for err, want := range map[error]string{
		Usagef("--dtype: %q is no type", "f9"):          "dtype",
		Usagef("give --mask or --mask-radius"):          "",
		UsageFor("voxel-size", "x holds no voxel size"): "voxel-size",
	} {
		if !errors.As(err, &ue) || ue.Param != want {
			t.Errorf("%v: param %q, want %q", err, ue.Param, want)
		}
	}
}
