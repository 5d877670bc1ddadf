package job

import (
	"sync"
	"time"
)

// clock is the time source of Throttle, replaced in tests.
type clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// Throttle returns a sink that forwards at most one Progressed event per
// interval to sink (the GUI uses 50 ms, at most 20 updates a second).
// Partial and Warning events are always forwarded at once (they do not
// release held-back progress, so a pipeline that hands out a partial
// result per plane is still throttled). A progress event held back is not
// lost: it is forwarded when the interval ends, so a display never stays
// behind while the job waits on a long block, and always just before a
// terminal event, which is forwarded at once. Nothing is forwarded after a
// terminal event. Calls to sink are serialised.
func Throttle(sink Sink, interval time.Duration) Sink {
	return throttle(sink, interval, realClock{})
}

type throttler struct {
	mu       sync.Mutex
	sink     Sink
	interval time.Duration
	clock    clock
	last     time.Time // when the last progress event was forwarded
	pending  Event     // the latest progress event held back, if held
	held     bool
	stop     func() bool
	// gen numbers timers, so one that fired while being stopped does
	// nothing.
	gen   int
	ended bool
}

func throttle(sink Sink, interval time.Duration, c clock) Sink {
	t := &throttler{sink: sink, interval: interval, clock: c}
	return t.handle
}

func (t *throttler) handle(e Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return
	}
	switch {
	case e.Kind.Terminal():
		// The final counters come after the last progress.
		t.flushLocked()
		t.ended = true
		t.sink(e)
		return
	case e.Kind != Progressed:
		t.sink(e)
		return
	}
	now := t.clock.Now()
	if t.last.IsZero() || now.Sub(t.last) >= t.interval {
		t.cancelTimerLocked()
		t.held = false
		t.last = now
		t.sink(e)
		return
	}
	t.pending, t.held = e, true
	if t.stop == nil {
		gen := t.gen
		t.stop = t.clock.AfterFunc(t.interval-now.Sub(t.last), func() { t.onTimer(gen) })
	}
}

func (t *throttler) onTimer(gen int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if gen != t.gen || t.ended {
		return
	}
	t.stop = nil
	t.gen++
	t.flushLocked()
}

// flushLocked forwards the held-back progress event, if any.
func (t *throttler) flushLocked() {
	t.cancelTimerLocked()
	if !t.held {
		return
	}
	e := t.pending
	t.pending, t.held = Event{}, false
	t.last = t.clock.Now()
	t.sink(e)
}

func (t *throttler) cancelTimerLocked() {
	if t.stop != nil {
		t.stop()
		t.stop = nil
		t.gen++
	}
}
