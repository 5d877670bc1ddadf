package viewer

// OnMapChanged calls f, on the UI goroutine, with the map on show each
// time the map slider moves: dragged, stepped with ↑/↓ or set by SetMap.
// A panel that labels the maps of a stack (a centre sweep's centres)
// follows the slider with it. The hook wraps the slider's own handler,
// so that the dims bar's code is left as it is.
func (v *Viewer) OnMapChanged(f func(i int)) {
	s := v.dims.mapSlider
	if s == nil || f == nil {
		return
	}
	prev := s.OnChanged
	s.OnChanged = func(x float64) {
		if prev != nil {
			prev(x)
		}
		f(v.mapIdx)
	}
}
