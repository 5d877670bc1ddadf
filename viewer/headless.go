package viewer

import (
	"fmt"
	"image"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
)

// Headless is a viewer driven by one goroutine without an event loop:
// callbacks that would go through fyne.Do queue until Drain, Until or
// Settle runs them on the caller's goroutine, so UI state is still
// touched by one goroutine only. Tests drive the processing panel with
// it, and offscreen screenshots of pipeline results are made with it.
type Headless struct {
	*Viewer
	q *uiQueue
}

// NewHeadless builds a viewer as the content of win, a window of Fyne's
// test driver (tests, NewOffscreen).
func NewHeadless(win fyne.Window) *Headless {
	q := &uiQueue{}
	v := newViewer(win, q.post)
	win.SetContent(v.root)
	// The keys the canvas gets when no widget has the focus, as New.
	win.Canvas().SetOnTypedKey(v.typedKey)
	return &Headless{Viewer: v, q: q}
}

// NewOffscreen makes the current Fyne app a new one of Fyne's test
// driver drawn in voxlab's theme (see newOffscreenWindow) and builds a
// viewer in a w x h window of it. Run it, and everything that drives
// it, on one goroutine other than main: the test driver runs fyne.Do at
// once on the goroutine that calls it, but only off the main goroutine
// (the one Fyne's GL driver keeps for its event loop); from main it
// complains and runs the callback on a goroutine of its own.
func NewOffscreen(w, h int) *Headless {
	win := newOffscreenWindow()
	hl := NewHeadless(win)
	win.Resize(fyne.NewSize(float32(w), float32(h)))
	return hl
}

// Drain runs the queued callbacks and returns how many ran.
func (h *Headless) Drain() int { return h.q.drain() }

// Until runs queued callbacks until cond holds (checked on the driving
// goroutine after each round), or fails after timeout.
func (h *Headless) Until(timeout time.Duration, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for {
		h.q.drain()
		if cond() {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not done after %v", timeout)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Settle runs queued callbacks until the slices on screen are loaded
// and nothing is left to run; it fails once nothing moved (no byte read,
// no callback run) for stall.
func (h *Headless) Settle(stall time.Duration) error { return h.settle(h.q, stall) }

// Idle reports whether the viewer's background work that posts to the UI
// (Go: the panel's plot rendering) is done and nothing waits in the
// queue.
func (h *Headless) Idle() bool {
	if !h.bg.idle() {
		return false
	}
	h.q.mu.Lock()
	defer h.q.mu.Unlock()
	return len(h.q.fns) == 0
}

// Capture returns the window as Fyne's software painter draws it. That
// painter clips an object inside nested scrollers (an entry's text in a
// scrolled form) to the inner scroller alone, so objects of a scrolled
// container that lie outside its viewport would be drawn over whatever
// is there; they are hidden for the capture.
func (h *Headless) Capture() image.Image {
	var hidden []fyne.CanvasObject
	d := fyne.CurrentApp().Driver()
	var walk func(o fyne.CanvasObject, vp *rect)
	walk = func(o fyne.CanvasObject, vp *rect) {
		if !o.Visible() {
			return
		}
		r := rect{d.AbsolutePositionForObject(o), o.Size()}
		partly := false // partly in the viewport: its parts are sorted
		if vp != nil && !vp.contains(r) {
			_, isBox := o.(*fyne.Container)
			_, isWidget := o.(fyne.Widget)
			if !isBox && !isWidget || !vp.overlaps(r) {
				o.Hide()
				hidden = append(hidden, o)
				return
			}
			// A form half under the side panel's fold: its rows in
			// view are drawn (hiding it whole left the panel blank).
			partly = true
		}
		switch o := o.(type) {
		case *container.Scroll:
			in := r
			if vp != nil {
				in = vp.intersect(r)
			}
			walk(o.Content, &in)
		case *fyne.Container:
			for _, c := range o.Objects {
				walk(c, vp)
			}
		case fyne.Widget:
			if vp == nil || partly {
				for _, c := range test.WidgetRenderer(o).Objects() {
					walk(c, vp)
				}
			}
		}
	}
	relayout(h.win.Canvas().Content())
	walk(h.win.Canvas().Content(), nil)
	img := h.win.Canvas().Capture()
	for _, o := range hidden {
		o.Show()
	}
	return img
}

// rect is an absolute rectangle on the canvas.
type rect struct {
	pos  fyne.Position
	size fyne.Size
}

func (a rect) contains(b rect) bool {
	const eps = 0.5
	return b.pos.X >= a.pos.X-eps && b.pos.Y >= a.pos.Y-eps &&
		b.pos.X+b.size.Width <= a.pos.X+a.size.Width+eps && b.pos.Y+b.size.Height <= a.pos.Y+a.size.Height+eps
}

func (a rect) overlaps(b rect) bool {
	return b.pos.X < a.pos.X+a.size.Width && a.pos.X < b.pos.X+b.size.Width &&
		b.pos.Y < a.pos.Y+a.size.Height && a.pos.Y < b.pos.Y+b.size.Height
}

func (a rect) intersect(b rect) rect {
	x0, y0 := max(a.pos.X, b.pos.X), max(a.pos.Y, b.pos.Y)
	x1 := min(a.pos.X+a.size.Width, b.pos.X+b.size.Width)
	y1 := min(a.pos.Y+a.size.Height, b.pos.Y+b.size.Height)
	return rect{fyne.NewPos(x0, y0), fyne.NewSize(max(x1-x0, 0), max(y1-y0, 0))}
}
