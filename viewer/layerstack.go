package viewer

// layerStack is the model of the viewer's layers: their order from
// bottom to top, the one selected, and who is told of changes. It knows
// nothing of drawing: the Viewer observes it (watch) and lays out, lists
// and redraws what a change touches.
type layerStack struct {
	layers []Layer // bottom to top
	sel    Layer
	// observers are called, in order, after every change.
	observers []func(stackChange)
}

// stackChange says what changed in a layerStack.
type stackChange int

const (
	// layersMoved: a layer was added, removed or moved (the selection
	// may have changed with it).
	layersMoved stackChange = iota
	// selectionMoved: another layer (or none) was selected.
	selectionMoved
	// layerEdited: a layer's visibility, opacity, blending or another
	// setting changed.
	layerEdited
)

// watch has f called after every change.
func (s *layerStack) watch(f func(stackChange)) { s.observers = append(s.observers, f) }

func (s *layerStack) notify(c stackChange) {
	for _, f := range s.observers {
		f(c)
	}
}

// all returns the layers from bottom to top, a copy.
func (s *layerStack) all() []Layer { return append([]Layer(nil), s.layers...) }

// indexOf returns l's place from the bottom, or -1.
func (s *layerStack) indexOf(l Layer) int {
	for i, x := range s.layers {
		if x == l {
			return i
		}
	}
	return -1
}

// add puts l on top and selects it.
func (s *layerStack) add(l Layer) {
	s.layers = append(s.layers, l)
	s.sel = l
	s.notify(layersMoved)
}

// remove takes l out; the selection, if it was l, passes to the layer
// that took its place (or the one below it). It reports whether l was
// in the stack.
func (s *layerStack) remove(l Layer) bool {
	i := s.indexOf(l)
	if i < 0 {
		return false
	}
	s.layers = append(s.layers[:i], s.layers[i+1:]...)
	if s.sel == l {
		s.sel = nil
		if n := len(s.layers); n > 0 {
			s.sel = s.layers[min(i, n-1)]
		}
	}
	s.notify(layersMoved)
	return true
}

// move moves l up (delta > 0, towards the top) or down, within the
// stack.
func (s *layerStack) move(l Layer, delta int) {
	i := s.indexOf(l)
	if i < 0 {
		return
	}
	j := min(max(i+delta, 0), len(s.layers)-1)
	if i == j {
		return
	}
	s.layers = append(s.layers[:i], s.layers[i+1:]...)
	s.layers = append(s.layers[:j], append([]Layer{l}, s.layers[j:]...)...)
	s.notify(layersMoved)
}

// choose selects l (nil: none).
func (s *layerStack) choose(l Layer) {
	if s.sel == l {
		return
	}
	s.sel = l
	s.notify(selectionMoved)
}

// edited tells the observers that a layer's settings changed.
func (s *layerStack) edited() { s.notify(layerEdited) }
