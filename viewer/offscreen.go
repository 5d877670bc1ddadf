package viewer

import (
	"fmt"
	"image"
	"image/color"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// uiQueue stands in for fyne.Do where no event loop runs (offscreen
// rendering, tests): loader goroutines queue their callbacks and the one
// goroutine driving the viewer runs them with drain, so UI state is
// still touched by one goroutine only.
type uiQueue struct {
	mu  sync.Mutex
	fns []func()
}

func (q *uiQueue) post(f func()) {
	q.mu.Lock()
	q.fns = append(q.fns, f)
	q.mu.Unlock()
}

// drain runs the queued callbacks and returns how many ran.
func (q *uiQueue) drain() int {
	q.mu.Lock()
	fns := q.fns
	q.fns = nil
	q.mu.Unlock()
	for _, f := range fns {
		f()
	}
	return len(fns)
}

// darkTheme is Fyne's default theme in its dark variant whatever the
// settings say, so screenshots look the same on every machine.
type darkTheme struct{ fyne.Theme }

func (t darkTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, theme.VariantDark)
}

// RenderOffscreen builds a viewer in a w x h window that is never shown,
// lets setup open layers and choose the slice, waits up to timeout for
// the slices on screen, and returns the window as Fyne's software
// painter draws it. It needs no display, so `voxlab view --screenshot`
// works on headless machines; reading back the GL front buffer (Fyne's
// Capture on a real window) returns blank images under Xvfb.
//
// It replaces the current Fyne app with a headless one: call it in a
// process that runs no other Fyne app.
func RenderOffscreen(w, h int, timeout time.Duration, setup func(v *Viewer) error) (image.Image, error) {
	// The headless driver runs fyne.Do at once and complains on the main
	// goroutine, so the whole rendering runs on its own goroutine.
	type result struct {
		img image.Image
		err error
	}
	ch := make(chan result)
	go func() {
		img, err := renderOffscreen(w, h, timeout, setup)
		ch <- result{img, err}
	}()
	r := <-ch
	return r.img, r.err
}

func renderOffscreen(w, h int, timeout time.Duration, setup func(v *Viewer) error) (image.Image, error) {
	a := test.NewApp()
	a.Settings().SetTheme(darkTheme{theme.DefaultTheme()})
	win := a.NewWindow("voxlab")
	q := &uiQueue{}
	v := newViewer(win, q.post)
	defer v.Close()
	win.SetContent(v.root)
	win.Resize(fyne.NewSize(float32(w), float32(h)))
	if err := setup(v); err != nil {
		return nil, err
	}
	if err := v.settle(q, timeout); err != nil {
		return nil, err
	}
	return win.Canvas().Capture(), nil
}

// settle runs queued callbacks until every loader is idle and the slices
// on screen are loaded, and returns the error of a slice that failed.
func (v *Viewer) settle(q *uiQueue, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		v.redraw() // asks for the slices on screen
		idle := true
		for _, l := range v.layers {
			if il := imageOf(l); il != nil && il.ld != nil && !il.ld.idle() {
				idle = false
			}
		}
		ran := q.drain()
		if idle && ran == 0 && !v.redrawPending.Load() && v.Loaded() {
			v.redraw()
			return v.loadError()
		}
		time.Sleep(time.Millisecond)
	}
	return fmt.Errorf("slices not loaded after %v", timeout)
}
