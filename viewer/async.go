package viewer

import (
	"sync"
	"sync/atomic"
)

// Async is all that goroutines other than the UI's may ask of the
// viewer directly: to run a function on the UI goroutine (Do), and to
// run one on a goroutine of its own that posts its results there (Go),
// counted so that a closing window can wait for them (Wait) and a
// headless viewer knows when it is idle. Its methods are safe from any
// goroutine; everything else of the viewer is the UI goroutine's.
type Async struct {
	// post runs f on the UI goroutine (fyne.Do; tests queue instead).
	post func(f func())
	wg   sync.WaitGroup
	n    atomic.Int32
}

// Async returns what other goroutines may ask of the viewer. Safe from
// any goroutine.
func (v *Viewer) Async() *Async { return &v.bg }

// Go runs f on a goroutine of its own that posts its results to the UI
// (through Do): Wait waits for it, and a Headless viewer is not Idle
// while it runs.
func (a *Async) Go(f func()) {
	a.wg.Add(1)
	a.n.Add(1)
	go func() {
		defer a.wg.Done()
		defer a.n.Add(-1)
		f()
	}()
}

// Do runs f on the UI goroutine (fyne.Do, or the queue of a headless
// viewer).
func (a *Async) Do(f func()) { a.post(f) }

// Wait waits for the goroutines started with Go (the panel's plot
// renderers) to finish: call it, after the processing panel's Close,
// before the app's event loop ends.
func (a *Async) Wait() { a.wg.Wait() }

// idle reports whether none of the goroutines started with Go runs.
func (a *Async) idle() bool { return a.n.Load() == 0 }
