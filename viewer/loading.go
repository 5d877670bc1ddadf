package viewer

import (
	"errors"

	"github.com/voxlab/voxlab/viewer/model"
)

// Loading state: whether what is on screen is loaded, and the errors
// reading it.

// loaded reports whether every visible image layer of layers has its
// slices on screen (the planes of at along axes) in memory or failed to
// read them (no slice is still loading), and the 3D view w (nil: none)
// has drawn its final frame.
func loaded(layers []Layer, at *model.Dims, axes []Axis, w *view3D) bool {
	for _, l := range layers {
		il := imageOf(l)
		if il == nil || !l.Visible() || il.fixed != nil {
			continue
		}
		for _, ax := range axes {
			k, ok := il.keyFor(ax, at.Index(ax), at.Map())
			if ok && !il.ld.cache.Contains(k) && il.ld.err(k) == nil {
				return false
			}
		}
	}
	return w.settled()
}

// loadError returns the first error reading a slice on screen (the
// planes of at along axes of the visible layers) or the volume of the
// 3D view w (nil: none), or nil.
func loadError(layers []Layer, at *model.Dims, axes []Axis, w *view3D) error {
	if err := w.err(); err != nil {
		return err
	}
	for _, l := range layers {
		if il := imageOf(l); il != nil && l.Visible() && il.ld != nil {
			for _, ax := range axes {
				if k, ok := il.keyFor(ax, at.Index(ax), at.Map()); ok {
					if err := il.ld.err(k); err != nil && !errors.Is(err, ErrNotHeld) {
						return err
					}
				}
			}
		}
	}
	return nil
}
