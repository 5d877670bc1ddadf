package model

// LayerList is the order of the viewer's layers from bottom to top, the
// one selected, and who is told of changes. L is the view's layer type
// (compared by identity); the list knows nothing of drawing: the view
// watches it and lays out, lists and redraws what a change touches.
type LayerList[L comparable] struct {
	layers []L // bottom to top
	sel    L
	// observers are called, in order, after every change.
	observers []func(ListChange)
}

// ListChange says what changed in a LayerList.
type ListChange int

const (
	// LayersMoved: a layer was added, removed or moved (the selection
	// may have changed with it).
	LayersMoved ListChange = iota
	// SelectionMoved: another layer (or none) was selected.
	SelectionMoved
	// LayerEdited: a layer's visibility, opacity, blending or another
	// setting changed.
	LayerEdited
)

// Watch has f called after every change.
func (s *LayerList[L]) Watch(f func(ListChange)) { s.observers = append(s.observers, f) }

func (s *LayerList[L]) notify(c ListChange) {
	for _, f := range s.observers {
		f(c)
	}
}

// All returns the layers from bottom to top, a copy.
func (s *LayerList[L]) All() []L { return append([]L(nil), s.layers...) }

// Len returns the number of layers.
func (s *LayerList[L]) Len() int { return len(s.layers) }

// At returns the layer i places from the bottom.
func (s *LayerList[L]) At(i int) L { return s.layers[i] }

// Selected returns the selected layer (the zero L: none).
func (s *LayerList[L]) Selected() L { return s.sel }

// IndexOf returns l's place from the bottom, or -1.
func (s *LayerList[L]) IndexOf(l L) int {
	for i, x := range s.layers {
		if x == l {
			return i
		}
	}
	return -1
}

// Add puts l on top and selects it.
func (s *LayerList[L]) Add(l L) {
	s.layers = append(s.layers, l)
	s.sel = l
	s.notify(LayersMoved)
}

// Remove takes l out; the selection, if it was l, passes to the layer
// that took its place (or the one below it). It reports whether l was
// in the list.
func (s *LayerList[L]) Remove(l L) bool {
	i := s.IndexOf(l)
	if i < 0 {
		return false
	}
	s.layers = append(s.layers[:i], s.layers[i+1:]...)
	if s.sel == l {
		var none L
		s.sel = none
		if n := len(s.layers); n > 0 {
			s.sel = s.layers[min(i, n-1)]
		}
	}
	s.notify(LayersMoved)
	return true
}

// Move moves l up (delta > 0, towards the top) or down, within the
// list.
func (s *LayerList[L]) Move(l L, delta int) {
	i := s.IndexOf(l)
	if i < 0 {
		return
	}
	j := min(max(i+delta, 0), len(s.layers)-1)
	if i == j {
		return
	}
	s.layers = append(s.layers[:i], s.layers[i+1:]...)
	s.layers = append(s.layers[:j], append([]L{l}, s.layers[j:]...)...)
	s.notify(LayersMoved)
}

// Choose selects l (the zero L: none).
func (s *LayerList[L]) Choose(l L) {
	if s.sel == l {
		return
	}
	s.sel = l
	s.notify(SelectionMoved)
}

// Edited tells the observers that a layer's settings changed.
func (s *LayerList[L]) Edited() { s.notify(LayerEdited) }
