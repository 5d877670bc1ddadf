package model

import "testing"

// TestDimsSliceAndClamp: a slice is clamped to the range and
// remembered; a range that shrinks (a layer hidden) clamps the plane and
// one that grows again brings back the plane asked for; stepping wraps
// only when asked.
func TestDimsSliceAndClamp(t *testing.T) {
	var d Dims
	if !d.SetSlice(40, 60) || d.Slice() != 40 {
		t.Fatalf("slice %d, want 40", d.Slice())
	}
	if d.SetSlice(40, 60) {
		t.Error("setting the plane shown reported a change")
	}
	if d.SetSlice(99, 60); d.Slice() != 59 {
		t.Errorf("slice 99 of 60: %d, want 59", d.Slice())
	}
	d.SetSlice(40, 60)
	d.Clamp(30) // the deep layer hidden
	if d.Slice() != 29 {
		t.Errorf("clamped to 30 planes: %d, want 29", d.Slice())
	}
	d.Clamp(60) // shown again
	if d.Slice() != 40 {
		t.Errorf("range back to 60: %d, want the 40 asked for", d.Slice())
	}
	if i := d.StepTarget(25, 60, true); i != 5 {
		t.Errorf("40+25 of 60 wrapped: %d, want 5", i)
	}
	if i := d.StepTarget(-45, 60, true); i != 55 {
		t.Errorf("40-45 of 60 wrapped: %d, want 55", i)
	}
	if i := d.StepTarget(25, 60, false); i != 65 {
		t.Errorf("40+25 unwrapped: %d, want 65 (SetSlice clamps)", i)
	}
	if i := d.StepTarget(1, 0, true); i != -1 {
		t.Errorf("step with no planes: %d, want -1", i)
	}
	if d.SetSlice(-3, 0); d.Slice() != 0 {
		t.Errorf("slice of an empty range: %d", d.Slice())
	}
}

// TestDimsAxes: each axis keeps its own plane; an axis first sliced
// along starts at its middle; SetPoint clamps every axis; the orthogonal
// views move unseen axes at 0 to their middle and keep the others.
func TestDimsAxes(t *testing.T) {
	e := [3]int{30, 510, 667}
	var d Dims
	d.Centre(e)
	if d.Point() != [3]int{15, 255, 333} {
		t.Fatalf("centred at %v", d.Point())
	}
	d.SetSlice(3, e[Z])
	if !d.SetAxis(Y, e) || d.Axis() != Y || d.Slice() != 255 {
		t.Errorf("to y: axis %v slice %d", d.Axis(), d.Slice())
	}
	if d.SetAxis(Y, e) {
		t.Error("the same axis again reported a change")
	}
	d.SetSlice(100, e[Y])
	d.SetAxis(Z, e)
	if d.Slice() != 3 || d.Index(Y) != 100 {
		t.Errorf("back to z: slice %d, y %d; want 3 and 100", d.Slice(), d.Index(Y))
	}
	var f Dims // never centred: x is unseen and at 0
	f.SetSlice(7, e[Z])
	f.SetAxis(Y, [3]int{30, 510, 667})
	f.SetAxis(Z, e)
	f.ShowAll(e)
	if f.Point() != [3]int{7, 255, 333} {
		t.Errorf("ortho from z 7: %v, want [7 255 333]", f.Point())
	}
	f.SetPoint([3]int{-4, 600, 12}, e)
	if f.Point() != [3]int{0, 509, 12} {
		t.Errorf("SetPoint clamped: %v, want [0 509 12]", f.Point())
	}
	f.Clamp(e[Z])
	if f.Slice() != 0 {
		t.Errorf("SetPoint's plane not remembered: %d", f.Slice())
	}
}

// TestDimsMap: the map is clamped, remembered, and restored when the
// number of maps grows back.
func TestDimsMap(t *testing.T) {
	var d Dims
	if !d.SetMap(12, 40) || d.Map() != 12 || d.SetMap(12, 40) {
		t.Fatalf("map %d, want 12 (once)", d.Map())
	}
	d.ClampMap(5)
	if d.Map() != 4 {
		t.Errorf("5 maps: %d, want 4", d.Map())
	}
	d.ClampMap(40)
	if d.Map() != 12 {
		t.Errorf("40 maps again: %d, want 12", d.Map())
	}
	if d.SetMap(-1, 0); d.Map() != 0 {
		t.Errorf("no maps: %d", d.Map())
	}
}
