package viewer

import (
	"slices"
	"testing"
)

// TestLayerStackModel: the stack orders, selects and tells its observers
// without a viewer: add selects the new top, remove passes the selection
// to the layer that took the place, move clamps at the ends, choose and
// edits notify, no-ops do not.
func TestLayerStackModel(t *testing.T) {
	var s layerStack
	var got []stackChange
	s.watch(func(c stackChange) { got = append(got, c) })
	a, b, c := &PointsLayer{}, &PointsLayer{}, &PointsLayer{}
	for _, l := range []Layer{a, b, c} {
		s.add(l)
	}
	if !slices.Equal(s.all(), []Layer{a, b, c}) || s.sel != c {
		t.Fatalf("after adding: %v, selected %p", s.all(), s.sel)
	}
	s.move(a, +5) // clamped to the top
	if !slices.Equal(s.layers, []Layer{b, c, a}) {
		t.Errorf("a to the top: %v", s.layers)
	}
	s.move(b, -1) // already at the bottom: nothing
	s.choose(c)   // already selected: nothing
	s.choose(b)
	s.remove(b) // its place goes to c
	if s.sel != c || !slices.Equal(s.layers, []Layer{c, a}) {
		t.Errorf("after removing the selected bottom layer: %v, selected %p", s.layers, s.sel)
	}
	if s.remove(b) {
		t.Error("removed a layer not in the stack")
	}
	s.remove(a)
	s.remove(c)
	if s.sel != nil || len(s.layers) != 0 {
		t.Errorf("empty stack: %v, selected %v", s.layers, s.sel)
	}
	s.edited()
	want := []stackChange{layersMoved, layersMoved, layersMoved, layersMoved, selectionMoved, layersMoved, layersMoved, layersMoved, layerEdited}
	if !slices.Equal(got, want) {
		t.Errorf("notifications %v, want %v", got, want)
	}
	all := s.all()
	s.add(a)
	if len(all) != 0 {
		t.Error("all shares the stack's slice")
	}
}
