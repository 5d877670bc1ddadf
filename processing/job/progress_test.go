package job

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeNow is a settable clock.
type fakeNow struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeNow() *fakeNow { return &fakeNow{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (f *fakeNow) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeNow) Advance(d time.Duration) {
	f.mu.Lock()
	f.t = f.t.Add(d)
	f.mu.Unlock()
}

// recorder is a sink that keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) sink(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) all() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

func (r *recorder) kinds(k Kind) []Event {
	var out []Event
	for _, e := range r.all() {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

func TestProgressCountsRateETA(t *testing.T) {
	clk := newFakeNow()
	var rec recorder
	p := newProgress("dezing", []Sink{rec.sink}, clk.Now)

	clk.Advance(5 * time.Second) // time before the stage does not count
	p.Stage("projections", 100, "slices")
	clk.Advance(2 * time.Second)
	p.Transfer(1000, 10)
	p.Memory(300, 40)
	p.Memory(200, 50) // peaks keep the highest values
	p.Add(10)

	e := rec.all()[len(rec.all())-1]
	want := Event{Kind: Progressed, Job: "dezing", Stage: "projections", Done: 10, Total: 100, Unit: "slices",
		BytesToDevice: 1000, BytesFromDevice: 10, Rate: 5, ETA: 18 * time.Second, Elapsed: 7 * time.Second,
		PeakDevice: 300, PeakHost: 50}
	if e != want {
		t.Fatalf("after 10 of 100 slices in 2 s:\n got %+v\nwant %+v", e, want)
	}
	if f := e.Fraction(); f != 0.1 {
		t.Errorf("Fraction = %v, want 0.1", f)
	}

	clk.Advance(6 * time.Second)
	p.Add(30) // 40 in 8 s: 5/s, 60 left: 12 s
	if e := p.Snapshot(); e.Done != 40 || e.Rate != 5 || e.ETA != 12*time.Second {
		t.Errorf("after 40 in 8 s: done %d rate %v ETA %v, want 40, 5, 12s", e.Done, e.Rate, e.ETA)
	}

	// A new stage starts its counts, rate and ETA afresh; traffic and
	// peaks are the job's and carry over.
	p.Stage("write", 4, "blocks")
	if e := p.Snapshot(); e.Done != 0 || e.Rate != 0 || e.ETA != 0 || e.Total != 4 || e.BytesToDevice != 1000 {
		t.Errorf("new stage: %+v", e)
	}
	clk.Advance(time.Second)
	p.Add(4)
	if e := p.Snapshot(); e.ETA != 0 || e.Rate != 4 {
		t.Errorf("stage done: rate %v ETA %v, want 4 and 0", e.Rate, e.ETA)
	}
	if n := len(rec.all()); n != 5 {
		t.Errorf("%d events, want 5 (2 stages, 3 adds; Transfer and Memory emit nothing)", n)
	}
}

func TestProgressUnknownTotal(t *testing.T) {
	clk := newFakeNow()
	p := newProgress("j", nil, clk.Now)
	p.Stage("scan", 0, "files")
	clk.Advance(time.Second)
	p.Add(3)
	e := p.Snapshot()
	if e.Fraction() != 0 || e.ETA != 0 || e.Rate != 3 {
		t.Errorf("unknown total: fraction %v ETA %v rate %v, want 0, 0, 3", e.Fraction(), e.ETA, e.Rate)
	}
}

func TestNilProgress(t *testing.T) {
	var p *Progress
	p.Stage("x", 1, "u")
	p.Add(1)
	p.Transfer(1, 1)
	p.Memory(1, 1)
	p.Partial(1)
	p.Warn("w")
	if e := p.End(nil); e != (Event{}) {
		t.Errorf("End on nil: %+v", e)
	}
	if e := p.Snapshot(); e != (Event{}) {
		t.Errorf("Snapshot on nil: %+v", e)
	}
}

// Worker goroutines may report at once: the sinks must still see events
// one at a time, in order, with nothing after the terminal event.
func TestProgressSerialisesSinks(t *testing.T) {
	var inSink atomic.Int32
	var overlap atomic.Bool
	var dones []int64
	p := NewProgress("j", func(e Event) {
		if inSink.Add(1) > 1 {
			overlap.Store(true)
		}
		if e.Kind == Progressed {
			dones = append(dones, e.Done)
		}
		inSink.Add(-1)
	})
	p.Stage("s", 8000, "u")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				p.Add(1)
			}
		}()
	}
	wg.Wait()
	if e := p.End(nil); e.Kind != Finished || e.Done != 8000 {
		t.Fatalf("End: %+v", e)
	}
	p.Add(1) // after the end: ignored
	if overlap.Load() {
		t.Error("a sink was called concurrently")
	}
	if len(dones) != 8001 {
		t.Fatalf("%d progress events, want 8001", len(dones))
	}
	for i, d := range dones {
		if d != int64(i) {
			t.Fatalf("event %d has Done %d: out of order", i, d)
		}
	}
}

func TestSinkMaySnapshot(t *testing.T) {
	var p *Progress
	var seen int64
	p = NewProgress("j", func(e Event) { seen = p.Snapshot().Done })
	p.Stage("s", 3, "u")
	p.Add(2)
	if seen != 2 {
		t.Errorf("snapshot from a sink saw %d, want 2", seen)
	}
}

func TestEndKinds(t *testing.T) {
	for _, tc := range []struct {
		err  error
		kind Kind
	}{
		{nil, Finished},
		{errBoom, Failed},
		{wrapCanceled(), Cancelled},
	} {
		var rec recorder
		p := NewProgress("j", rec.sink)
		p.Stage("s", 10, "u")
		p.Add(3)
		e := p.End(tc.err)
		if e.Kind != tc.kind {
			t.Errorf("End(%v) = %v, want %v", tc.err, e.Kind, tc.kind)
		}
		if again := p.End(tc.err); again != (Event{}) {
			t.Errorf("second End sent %+v", again)
		}
		if n := len(rec.kinds(tc.kind)); n != 1 {
			t.Errorf("End(%v): %d %v events, want 1", tc.err, n, tc.kind)
		}
		if tc.kind == Finished && e.Done != 10 {
			t.Errorf("a finished stage reports %d of 10 done", e.Done)
		}
		if tc.kind != Finished && e.Done != 3 {
			t.Errorf("an unfinished stage reports %d done, want 3", e.Done)
		}
	}
}

// TestProgressPartway: a block in progress moves the fraction, rate and
// ETA before Add counts it; reports out of order are ignored; Add and
// Stage start afresh; a finished job shows its total.
func TestProgressPartway(t *testing.T) {
	clk := newFakeNow()
	var rec recorder
	p := newProgress("dezing", []Sink{rec.sink}, clk.Now)
	p.Stage("projections", 200, "slices")
	clk.Advance(2 * time.Second)
	p.Partway(50) // one block of 200: a quarter done in 2 s
	e := p.Snapshot()
	if e.Done != 0 || e.Partway != 50 || e.Fraction() != 0.25 || e.Units() != 50 || e.Rate != 25 || e.ETA != 6*time.Second {
		t.Errorf("50 of 200 in progress after 2 s: %+v; want fraction 0.25, rate 25, ETA 6s", e)
	}
	n := len(rec.all())
	p.Partway(40) // a worker's late report
	if e := p.Snapshot(); e.Partway != 50 || len(rec.all()) != n {
		t.Errorf("a lower report moved progress to %v or emitted an event", e.Partway)
	}
	p.Partway(500) // never past the total
	if e := p.Snapshot(); e.Fraction() != 1 || e.Partway != 200 {
		t.Errorf("partway past the total: %+v", e)
	}
	clk.Advance(2 * time.Second)
	p.Add(100)
	if e := p.Snapshot(); e.Done != 100 || e.Partway != 0 || e.Fraction() != 0.5 {
		t.Errorf("after Add: %+v, want 100 done and none in progress", e)
	}
	p.Partway(10)
	p.Stage("write", 4, "blocks")
	if e := p.Snapshot(); e.Partway != 0 || e.Done != 0 {
		t.Errorf("a new stage kept %v in progress", e.Partway)
	}
	p.Partway(1)
	p.End(nil)
	if e := p.Snapshot(); e.Done != 4 || e.Partway != 0 || e.Fraction() != 1 {
		t.Errorf("finished: %+v", e)
	}
	var nilp *Progress
	nilp.Partway(1)
}
