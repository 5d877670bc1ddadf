package model

import (
	"slices"
	"testing"
)

type fakeLayer struct{ name string }

// TestLayerListModel: the list orders, selects and tells its observers
// without a viewer: add selects the new top, remove passes the selection
// to the layer that took the place, move clamps at the ends, choose and
// edits notify, no-ops do not.
func TestLayerListModel(t *testing.T) {
	var s LayerList[*fakeLayer]
	var got []ListChange
	s.Watch(func(c ListChange) { got = append(got, c) })
	a, b, c := &fakeLayer{"a"}, &fakeLayer{"b"}, &fakeLayer{"c"}
	for _, l := range []*fakeLayer{a, b, c} {
		s.Add(l)
	}
	if !slices.Equal(s.All(), []*fakeLayer{a, b, c}) || s.Selected() != c {
		t.Fatalf("after adding: %v, selected %p", s.All(), s.Selected())
	}
	s.Move(a, +5) // clamped to the top
	if !slices.Equal(s.layers, []*fakeLayer{b, c, a}) {
		t.Errorf("a to the top: %v", s.layers)
	}
	s.Move(b, -1) // already at the bottom: nothing
	s.Choose(c)   // already selected: nothing
	s.Choose(b)
	s.Remove(b) // its place goes to c
	if s.Selected() != c || !slices.Equal(s.layers, []*fakeLayer{c, a}) {
		t.Errorf("after removing the selected bottom layer: %v, selected %p", s.layers, s.Selected())
	}
	if s.Remove(b) {
		t.Error("removed a layer not in the list")
	}
	if s.IndexOf(a) != 1 || s.At(1) != a || s.Len() != 2 {
		t.Errorf("a at %d of %d, want 1 of 2", s.IndexOf(a), s.Len())
	}
	s.Remove(a)
	s.Remove(c)
	if s.Selected() != nil || len(s.layers) != 0 {
		t.Errorf("empty list: %v, selected %v", s.layers, s.Selected())
	}
	s.Edited()
	want := []ListChange{LayersMoved, LayersMoved, LayersMoved, LayersMoved, SelectionMoved, LayersMoved, LayersMoved, LayersMoved, LayerEdited}
	if !slices.Equal(got, want) {
		t.Errorf("notifications %v, want %v", got, want)
	}
	all := s.All()
	s.Add(a)
	if len(all) != 0 {
		t.Error("All shares the list's slice")
	}
}

// TestLayerListRemoveTopPassesDown: removing the selected top layer
// selects the one below it; removing an unselected one keeps the
// selection.
func TestLayerListRemoveTopPassesDown(t *testing.T) {
	var s LayerList[*fakeLayer]
	a, b, c := &fakeLayer{"a"}, &fakeLayer{"b"}, &fakeLayer{"c"}
	s.Add(a)
	s.Add(b)
	s.Add(c)
	s.Remove(c)
	if s.Selected() != b {
		t.Errorf("removing the selected top: selected %v, want b", s.Selected())
	}
	s.Remove(a)
	if s.Selected() != b {
		t.Errorf("removing an unselected layer: selected %v, want b", s.Selected())
	}
	s.Move(b, -3)
	if !slices.Equal(s.All(), []*fakeLayer{b}) {
		t.Errorf("one layer moved: %v", s.All())
	}
}
