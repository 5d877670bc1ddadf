package viewer

import (
	"image"
	"time"

	"fyne.io/fyne/v2"
)

// RenderOffscreenFrames is RenderOffscreen for a sequence: after setup
// it calls before(v, i) for each frame i < n (turn the 3D camera),
// waits until the viewer settles, and hands the window's image to
// emit. The volume is read once for all frames (the 3D grids are kept).
// It replaces the current Fyne app. The whole rendering runs on a
// goroutine of its own, off the main one (see NewOffscreen).
func RenderOffscreenFrames(w, h int, stall time.Duration, setup func(v *Viewer) error, n int,
	before func(v *Viewer, i int), emit func(i int, img image.Image) error) error {
	ch := make(chan error)
	go func() {
		win := newOffscreenWindow()
		q := &uiQueue{}
		v := newViewer(win, q.post)
		defer v.Close()
		win.SetContent(v.root)
		win.Resize(fyne.NewSize(float32(w), float32(h)))
		if err := setup(v); err != nil {
			ch <- err
			return
		}
		for i := range n {
			before(v, i)
			// Lay out before the viewer settles too, so that the 3D view
			// renders at the size the capture's layout gives it (after
			// the frame, a panel that changed size would show the
			// rendering of the old size, stretched).
			relayout(win.Canvas().Content())
			if err := v.settle(q, stall); err != nil {
				ch <- err
				return
			}
			relayout(win.Canvas().Content())
			if err := emit(i, win.Canvas().Capture()); err != nil {
				ch <- err
				return
			}
		}
		ch <- nil
	}()
	return <-ch
}
