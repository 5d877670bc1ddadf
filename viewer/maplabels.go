package viewer

import "fmt"

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
		f(v.Dims().Map())
	}
}

// SetMapLabels makes the map slider's label read label(i) for map i (a
// centre sweep's "centre 251.5") in place of "map i/N"; where label
// returns "" (a map it does not know), or with label nil, the slider
// reads "map i/N" again. UI goroutine. A function, as OnMapChanged.
func SetMapLabels(v *Viewer, label func(i int) string) {
	v.dims.mapLabels = label
	v.dims.updateMap()
}

// mapText is the map slider's label for map i of n.
func (d *dimsBar) mapText(i, n int) string {
	if d.mapLabels != nil {
		if s := d.mapLabels(i); s != "" {
			return s
		}
	}
	return fmt.Sprintf("map %d/%d", i, n-1)
}
