package viewer

import (
	"errors"

	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/viewer/model"
)

// Loading state: slices arriving, errors shown, and whether what is on
// screen is loaded.

// ShowError shows err in the status bar and a dialog that Enter, Escape
// or Space closes. A new error replaces the one on show (errors do not
// stack up); the same error again leaves it as it is.
func (v *Viewer) ShowError(err error) {
	msg := err.Error()
	v.bar.status.SetText("error: " + msg)
	if msg == v.lastErr && v.dlg.byKind[dlgError] != nil {
		return
	}
	v.lastErr = msg
	if v.win == nil {
		return
	}
	v.dlg.show(dlgError, "Error", messageContent(theme.ErrorIcon(), msg),
		[]DialogButton{{Label: "OK", Importance: widget.HighImportance}}, 0, 0)
}

// LastError returns the last error shown in the window ("" when none).
func (v *Viewer) LastError() string { return v.lastErr }

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
