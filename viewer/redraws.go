package viewer

import (
	"errors"
	"sync/atomic"
	"time"
)

// redraws is all that the goroutines feeding the viewer (the layers'
// loaders, a job's live layers) may ask of it: a redraw, merged and
// throttled, and the report of a slice that failed to load. Its methods
// are safe from any goroutine, and it holds no widget: what it runs on
// the UI goroutine (redraw, refresh, showError) runs only inside post,
// so that the types, not a comment, keep the widgets on the UI
// goroutine. The layers reach it (layerBase.shownBy), never the Viewer.
type redraws struct {
	// post runs f on the UI goroutine.
	post func(f func())
	// redraw repaints the panels; refresh also brings the dims bar and
	// the controls up to date; showError shows an error. UI goroutine
	// only: called inside post.
	redraw, refresh func()
	showError       func(error)

	pending  atomic.Bool
	lastLive atomic.Int64 // unix ns of the last posted redraw
}

// liveInterval spaces the redraws that live updates cause: at most 20
// a second, however often a pipeline appends points or fills chunks.
const liveInterval = 50 * time.Millisecond

// request schedules one refresh on the UI goroutine; calls that arrive
// before it runs are merged. Live updates (throttled) wait until
// liveInterval has passed since the last live redraw; loaded slices show
// at once.
func (r *redraws) request(throttled bool) {
	if !r.pending.CompareAndSwap(false, true) {
		return
	}
	run := func() {
		r.post(func() {
			r.pending.Store(false)
			r.lastLive.Store(time.Now().UnixNano())
			r.refresh()
		})
	}
	if wait := time.Duration(r.lastLive.Load()) + liveInterval - time.Duration(time.Now().UnixNano()); throttled && wait > 0 {
		time.AfterFunc(wait, run)
		return
	}
	run()
}

// sliceReady is the loaders' callback, on their goroutines.
func (r *redraws) sliceReady(k sliceKey, err error) {
	// A live layer's plane that is not held is no failure: the status
	// bar says so (loadingText) and no dialog interrupts the user.
	if err != nil && !errors.Is(err, ErrNotHeld) {
		r.post(func() { r.showError(err) })
		return
	}
	r.request(false)
}
