package job

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// gate is a pipeline that runs until released (or cancelled).
type gate struct {
	started chan struct{}
	release chan struct{}
	ran     bool
}

func newGate() *gate { return &gate{started: make(chan struct{}), release: make(chan struct{})} }

func (g *gate) fn(ctx context.Context, p *Progress) error {
	g.ran = true
	// started says the job has reported its progress: a test that reads
	// the entry's progress after <-started must see it.
	p.Stage("s", 2, "u")
	p.Add(1)
	close(g.started)
	select {
	case <-g.release:
		p.Memory(4096, 512)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func states(q *Queue) map[int]State {
	m := map[int]State{}
	for _, e := range q.Entries() {
		m[e.ID] = e.State
	}
	return m
}

func TestQueueOneJobPerDevice(t *testing.T) {
	var mu sync.Mutex
	changes := map[int][]State{}
	q := NewQueue(context.Background(), func(e Entry) {
		mu.Lock()
		changes[e.ID] = append(changes[e.ID], e.State)
		mu.Unlock()
	})
	a, b, c := newGate(), newGate(), newGate()
	ta := q.Submit("a", "cuda:0", a.fn)
	tb := q.Submit("b", "cuda:0", b.fn)
	tc := q.Submit("c", "cpu", c.fn)
	<-a.started
	<-c.started // another device: runs beside a
	if s := states(q); s[ta.ID] != StateRunning || s[tb.ID] != StateQueued || s[tc.ID] != StateRunning {
		t.Fatalf("states %v: want a running, b queued, c running", s)
	}
	if e := q.Entries()[0]; e.Progress.Done != 1 || e.Progress.Stage != "s" {
		t.Errorf("running entry's progress %+v", e.Progress)
	}
	// The queue starts a job only under its lock, when it is submitted
	// or when the job before it on its device ends (startNextLocked), and
	// marks it running before its goroutine starts: b queued means b has
	// not started, and cannot until a ends.
	select {
	case <-b.started:
		t.Fatal("b started while a runs on the same device")
	default:
	}
	close(a.release)
	if err := ta.Wait(); err != nil {
		t.Fatal(err)
	}
	<-b.started
	close(b.release)
	close(c.release)
	if err := tb.Wait(); err != nil {
		t.Fatal(err)
	}
	tc.Wait()

	for _, e := range q.Entries() {
		if e.State != StateFinished || e.Started.IsZero() || e.Ended.Before(e.Started) || e.Duration() <= 0 {
			t.Errorf("entry %+v: want finished with its timing", e)
		}
		if e.Progress.PeakDevice != 4096 || e.Progress.PeakHost != 512 {
			t.Errorf("entry %s: peak %d/%d, want 4096/512", e.Name, e.Progress.PeakDevice, e.Progress.PeakHost)
		}
	}
	if a := ta.ID; q.Entries()[0].ID != a {
		t.Error("entries not in submission order")
	}
	// Notifications arrive in order; wait for the dispatcher.
	waitFor(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(changes[tb.ID]) == 3
	})
	mu.Lock()
	defer mu.Unlock()
	if got := changes[tb.ID]; got[0] != StateQueued || got[1] != StateRunning || got[2] != StateFinished {
		t.Errorf("b's changes %v, want queued, running, finished", got)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	// The deadline only catches a hang: the condition is an event.
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in two minutes")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestQueueCancel(t *testing.T) {
	q := NewQueue(context.Background(), nil)
	a, b, c := newGate(), newGate(), newGate()
	ta := q.Submit("a", "gpu", a.fn)
	tb := q.Submit("b", "gpu", b.fn)
	tc := q.Submit("c", "gpu", c.fn)
	<-a.started

	// Cancelling a queued job removes it; it never runs.
	if !tb.q.Cancel(tb.ID) {
		t.Fatal("Cancel(b) found nothing")
	}
	if err := tb.Wait(); err != context.Canceled {
		t.Errorf("cancelled queued job: Wait = %v", err)
	}
	if _, ok := states(q)[tb.ID]; ok {
		t.Error("a cancelled queued job stays in the list")
	}

	// Cancelling a running one keeps it, as cancelled, and starts the next.
	ta.Cancel()
	if err := ta.Wait(); err != context.Canceled {
		t.Errorf("cancelled running job: Wait = %v", err)
	}
	<-c.started
	if s := states(q); s[ta.ID] != StateCancelled || s[tc.ID] != StateRunning {
		t.Errorf("states %v", s)
	}
	if b.ran {
		t.Error("the removed job ran")
	}
	if q.Cancel(ta.ID) || q.Cancel(999) {
		t.Error("Cancel of an ended or unknown job reported success")
	}
	close(c.release)
	tc.Wait()
	q.Clear()
	if n := len(q.Entries()); n != 0 {
		t.Errorf("%d entries after Clear", n)
	}
}

func TestQueueFailureAndCancelAll(t *testing.T) {
	q := NewQueue(context.Background(), nil)
	tf := q.Submit("bad", "gpu", func(ctx context.Context, p *Progress) error { return errBoom })
	if err := tf.Wait(); !errors.Is(err, errBoom) {
		t.Fatalf("Wait = %v", err)
	}
	e := q.Entries()[0]
	if e.State != StateFailed || !errors.Is(e.Err, errBoom) {
		t.Errorf("failed entry %+v", e)
	}
	a, b := newGate(), newGate()
	ta := q.Submit("a", "gpu", a.fn)
	tb := q.Submit("b", "gpu", b.fn)
	<-a.started
	q.CancelAll()
	if ta.Wait() != context.Canceled || tb.Wait() != context.Canceled || b.ran {
		t.Error("CancelAll did not cancel both without starting the queued one")
	}
}

// TestQueueSaysCancellingAtOnce: onChange hears that a running job is
// cancelling before it has stopped; StopAll returns while the job winds
// down and its channel closes once it has ended.
func TestQueueSaysCancellingAtOnce(t *testing.T) {
	changes := make(chan Entry, 16)
	q := NewQueue(context.Background(), func(e Entry) { changes <- e })
	windDown := make(chan struct{})
	started := make(chan struct{})
	tk := q.Submit("slow to stop", "cpu", func(ctx context.Context, p *Progress) error {
		close(started)
		<-ctx.Done()
		<-windDown // removing a partial output, say
		return ctx.Err()
	})
	queued := q.Submit("queued", "cpu", func(ctx context.Context, p *Progress) error { return nil })
	<-started
	stopped := q.StopAll()
	for e := range changes {
		if e.ID == tk.ID && e.Cancelling {
			if e.State != StateRunning {
				t.Errorf("cancelling entry is %v, want still running", e.State)
			}
			break
		}
	}
	select {
	case <-stopped:
		t.Fatal("StopAll's channel closed before the job ended")
	default:
	}
	close(windDown)
	<-stopped
	if err := tk.Wait(); !errors.Is(err, context.Canceled) {
		t.Errorf("the running job ended with %v", err)
	}
	if err := queued.Wait(); !errors.Is(err, context.Canceled) {
		t.Errorf("the queued job ended with %v", err)
	}
	for _, e := range q.Entries() {
		if e.State != StateCancelled {
			t.Errorf("%s is %v after StopAll", e.Name, e.State)
		}
	}
}
