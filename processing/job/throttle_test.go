package job

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock whose timers fire when the test advances it.
type fakeClock struct {
	fakeNow
	tmu    sync.Mutex
	timers []*fakeTimer
}

type fakeTimer struct {
	at      time.Time
	f       func()
	stopped bool
}

func newFakeClock() *fakeClock { return &fakeClock{fakeNow: *newFakeNow()} }

func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.tmu.Lock()
	defer c.tmu.Unlock()
	t := &fakeTimer{at: c.Now().Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.tmu.Lock()
		defer c.tmu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

// Advance moves the clock on and runs the timers that come due, in order.
func (c *fakeClock) Advance(d time.Duration) {
	c.fakeNow.Advance(d)
	for {
		c.tmu.Lock()
		sort.Slice(c.timers, func(i, j int) bool { return c.timers[i].at.Before(c.timers[j].at) })
		var due *fakeTimer
		for i, t := range c.timers {
			if !t.stopped && !t.at.After(c.Now()) {
				due = t
				c.timers = append(c.timers[:i], c.timers[i+1:]...)
				break
			}
		}
		c.tmu.Unlock()
		if due == nil {
			return
		}
		due.stopped = true
		due.f()
	}
}

type stamped struct {
	Event
	at time.Time
}

func TestThrottleRate(t *testing.T) {
	clk := newFakeClock()
	var got []stamped
	partials := 0
	sink := throttle(func(e Event) {
		if e.Kind == Partial {
			partials++
			return
		}
		got = append(got, stamped{e, clk.Now()})
	}, 50*time.Millisecond, clk)
	// 1000 progress events, one per millisecond: one second; each with a
	// partial result, which must neither be dropped nor release progress.
	for i := 1; i <= 1000; i++ {
		sink(Event{Kind: Progressed, Done: int64(i), Total: 1000})
		sink(Event{Kind: Partial, Done: int64(i), Total: 1000})
		clk.Advance(time.Millisecond)
	}
	if partials != 1000 {
		t.Errorf("%d partial results forwarded, want all 1000", partials)
	}
	if len(got) < 19 || len(got) > 21 {
		t.Errorf("%d progress events forwarded in 1 s at 50 ms, want about 20", len(got))
	}
	for i := 1; i < len(got); i++ {
		if gap := got[i].at.Sub(got[i-1].at); gap < 50*time.Millisecond {
			t.Errorf("events %d and %d forwarded %v apart", i-1, i, gap)
		}
		if got[i].Done <= got[i-1].Done {
			t.Errorf("progress went back: %d after %d", got[i].Done, got[i-1].Done)
		}
	}
	// The trailing timer delivers the last progress without any further
	// event.
	clk.Advance(time.Second)
	if last := got[len(got)-1]; last.Done != 1000 {
		t.Errorf("last forwarded progress %d, want 1000", last.Done)
	}
}

func TestThrottleKeepsOtherEvents(t *testing.T) {
	clk := newFakeClock()
	var got []Event
	sink := throttle(func(e Event) { got = append(got, e) }, 50*time.Millisecond, clk)
	sink(Event{Kind: Progressed, Done: 1}) // forwarded: the first
	sink(Event{Kind: Progressed, Done: 2}) // held back, then replaced
	sink(Event{Kind: Partial, Done: 2, Partial: "a"})
	sink(Event{Kind: Partial, Done: 2, Partial: "b"})
	sink(Event{Kind: Warning, Message: "w"})
	sink(Event{Kind: Progressed, Done: 3}) // held back
	sink(Event{Kind: Progressed, Done: 4}) // replaces 3
	sink(Event{Kind: Finished, Done: 5})
	sink(Event{Kind: Progressed, Done: 6}) // after the end: dropped
	clk.Advance(time.Second)

	want := []Event{
		{Kind: Progressed, Done: 1},
		{Kind: Partial, Done: 2, Partial: "a"},
		{Kind: Partial, Done: 2, Partial: "b"},
		{Kind: Warning, Message: "w"},
		{Kind: Progressed, Done: 4},
		{Kind: Finished, Done: 5},
	}
	if len(got) != len(want) {
		t.Fatalf("forwarded %d events, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// A throttled sink on a real job: the terminal event is last and preceded
// by the latest progress; run under -race it checks the timer path too.
func TestThrottleRealJob(t *testing.T) {
	var mu sync.Mutex
	var got []Event
	clk := &settledClock{}
	sink := throttle(func(e Event) {
		mu.Lock()
		got = append(got, e)
		mu.Unlock()
	}, time.Millisecond, clk)
	err := Run(context.Background(), "j", func(ctx context.Context, p *Progress) error {
		p.Stage("s", 2000, "u")
		for range 2000 {
			p.Add(1)
		}
		p.Warn("done soon")
		return nil
	}, sink)
	if err != nil {
		t.Fatal(err)
	}
	// A late timer must not forward anything: wait until every timer
	// the throttle started has run its callback or been stopped.
	clk.wait()
	mu.Lock()
	defer mu.Unlock()
	last := checkTerminal(t, got, Finished)
	if last.Done != 2000 {
		t.Errorf("final Done %d", last.Done)
	}
	var lastProgress Event
	for _, e := range got {
		if e.Kind == Progressed {
			lastProgress = e
		}
	}
	if lastProgress.Done != 2000 {
		t.Errorf("last progress forwarded at %d, want 2000", lastProgress.Done)
	}
}

// settledClock is the real clock that counts the timers it started and
// has not yet seen stopped or run to the end, so that a test can wait
// for the last of them (an event) instead of sleeping past it.
type settledClock struct {
	realClock
	pending sync.WaitGroup
}

func (c *settledClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.pending.Add(1)
	var once sync.Once
	settle := func() { once.Do(c.pending.Done) }
	t := time.AfterFunc(d, func() {
		defer settle()
		f()
	})
	return func() bool {
		stopped := t.Stop()
		if stopped {
			settle() // it will never run
		}
		return stopped
	}
}

// wait returns once no timer is pending.
func (c *settledClock) wait() { c.pending.Wait() }
