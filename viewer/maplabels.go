package viewer

// OnMapChanged calls f, on the UI goroutine, with the map v shows each
// time its map slider moves: dragged, stepped with ↑/↓ or set by SetMap.
// A panel that labels the maps of a stack (a centre sweep's centres)
// follows the slider with it. The hook wraps the slider's own handler,
// so that the dims bar's code is left as it is; it is a function, not a
// method, so that the Viewer's methods do not grow (size_test.go).
func OnMapChanged(v *Viewer, f func(i int)) {
	s := v.dims.mapSlider
	if s == nil || f == nil {
		return
	}
	prev := s.OnChanged
	s.OnChanged = func(x float64) {
		if prev != nil {
			prev(x)
		}
		f(v.Map())
	}
}
