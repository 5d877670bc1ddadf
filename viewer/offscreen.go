package viewer

import (
	"fmt"
	"image"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/voxlab/voxlab/viewer/model"
	"github.com/voxlab/voxlab/widgets"
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

// RenderOffscreen builds a viewer in a w x h window that is never shown,
// lets setup open layers and choose the slice, waits for the slices on
// screen for as long as their reading makes progress (it fails once no
// byte was read for stall), and returns the window as Fyne's software
// painter draws it. It needs no display, so `voxlab view --screenshot`
// works on headless machines; reading back the GL front buffer (Fyne's
// Capture on a real window) returns blank images under Xvfb, and needs a
// display besides.
//
// The window is one of Fyne's test driver (fyne.io/fyne/v2/test, whose
// windows paint with the software painter of fyne.io/fyne/v2/driver/
// software), used through its public API only: a Fyne upgrade that
// changes it is a build error. The binary links the test package with
// the testing package and testify for it, a few hundred KiB.
//
// It replaces the current Fyne app with an app of the test driver: call
// it in a process that runs no other Fyne app.
func RenderOffscreen(w, h int, stall time.Duration, setup func(v *Viewer) error) (image.Image, error) {
	var img image.Image
	err := RenderOffscreenFrames(w, h, stall, setup, 1, func(*Viewer, int) {}, func(_ int, im image.Image) error {
		img = im
		return nil
	})
	return img, err
}

// newOffscreenWindow makes the current Fyne app a new app of Fyne's test
// driver (fyne.io/fyne/v2/test), in voxlab's theme, and returns a window
// of it. Its windows are never shown, and their Capture paints them with
// Fyne's software painter at scale 1 (one device pixel per logical
// pixel, whatever the screen: a screenshot is the same on every
// machine); its preferences live in memory (a screenshot leaves the
// user's recent files alone). Call it off the main goroutine: setting
// the theme goes through fyne.Do.
func newOffscreenWindow() fyne.Window {
	a := test.NewApp()
	// Widgets measure and draw their text in the app's theme, and the
	// canvas's background is its background colour.
	a.Settings().SetTheme(widgets.Theme())
	return a.NewWindow("voxlab")
}

// settle runs queued callbacks until every loader is idle and the slices
// on screen are loaded, and returns the error of a slice that failed.
// A big side view of a slow file may take minutes, so there is no
// deadline: settle gives up only when nothing moved for stall (no byte
// read by any layer, no callback run).
func (v *Viewer) settle(q *uiQueue, stall time.Duration) error {
	lastBytes, lastMove := bytesRead(v.stack.All()), v.now()
	for {
		v.redraw() // asks for the slices on screen
		idle := true
		for _, l := range v.stack.All() {
			if il := imageOf(l); il != nil && il.ld != nil && !il.ld.idle() {
				idle = false
			}
		}
		ran := q.drain()
		if idle && ran == 0 && !v.redraws.pending.Load() && loaded(v.stack.All(), &v.at, v.ortho.shownAxes(), v.v3) {
			v.redraw()
			return loadError(v.stack.All(), &v.at, v.ortho.shownAxes(), v.v3)
		}
		now := v.now()
		if b := bytesRead(v.stack.All()); b != lastBytes || ran > 0 {
			lastBytes, lastMove = b, now
		} else if now.Sub(lastMove) >= stall {
			return stallError(v.stack.All(), &v.at, stall)
		}
		time.Sleep(time.Millisecond)
	}
}

// bytesRead sums the bytes the layers' loaders have read.
func bytesRead(layers []Layer) int64 {
	var n int64
	for _, l := range layers {
		if il := imageOf(l); il != nil && il.ld != nil {
			n += il.ld.bytesRead.Load()
		}
	}
	return n
}

// stallError names the slices of layers at at that made no progress
// for stall, with their files and how far their reading got.
func stallError(layers []Layer, at *model.Dims, stall time.Duration) error {
	var which []string
	for _, l := range layers {
		il := imageOf(l)
		if il == nil || !l.Visible() || il.fixed != nil {
			continue
		}
		k, ok := il.keyFor(at.Axis(), at.Slice(), at.Map())
		if !ok || il.ld.cache.Contains(k) || il.ld.err(k) != nil {
			continue
		}
		s := fmt.Sprintf("%s slice %d of %s", k.axis, k.idx, il.vol.Name)
		if done, total, ok := il.ld.loadProgress(k); ok {
			s += fmt.Sprintf(" (%d%% read)", done*100/total)
		}
		which = append(which, s)
	}
	if len(which) == 0 {
		return fmt.Errorf("the viewer did not settle: nothing moved for %v", stall)
	}
	return fmt.Errorf("reading stalled: no data read for %v while loading %s: check that the file is readable (a network disk that hangs, a file being written)", stall, strings.Join(which, ", "))
}

// relayout lays out every container and widget under o again, top down,
// twice. Fyne's test canvas, unlike a real window's, does not lay out a
// container again when a child's minimum size grows, so a label whose
// text gained a line (the selected point's class and probability under
// the layer's counts, a job's report above the job list) was drawn over
// the rows under it in a screenshot. The second pass gives wrapped labels
// the height of the lines they break into at the width the first gave.
func relayout(o fyne.CanvasObject) {
	for range 2 {
		layoutTree(o)
	}
}

// layoutTree is one top-down pass of relayout.
func layoutTree(o fyne.CanvasObject) {
	if o == nil || !o.Visible() {
		return
	}
	switch o := o.(type) {
	case *fyne.Container:
		if o.Layout != nil {
			o.Layout.Layout(o.Objects, o.Size())
		}
		for _, c := range o.Objects {
			layoutTree(c)
		}
	case fyne.Widget:
		r := test.WidgetRenderer(o)
		r.Layout(o.Size())
		for _, c := range r.Objects() {
			layoutTree(c)
		}
	}
}
