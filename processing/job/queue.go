package job

import (
	"context"
	"sync"
	"time"
)

// State is where a job submitted to a Queue stands.
type State int

// The states of a queued job.
const (
	StateQueued State = iota
	StateRunning
	StateFinished
	StateFailed
	StateCancelled
)

func (s State) String() string {
	return [...]string{"queued", "running", "finished", "failed", "cancelled"}[s]
}

// Ended reports whether the job is over.
func (s State) Ended() bool { return s >= StateFinished }

// Entry is one job of a Queue as the job list shows it.
type Entry struct {
	ID     int
	Name   string
	Device string
	State  State
	// Submitted, Started and Ended are zero until they happen.
	Submitted, Started, Ended time.Time
	// Progress is the latest progress; for an ended job, its final event
	// with the peak memory it reported.
	Progress Event
	// Err is the job's error once it failed, or its cancellation
	// (context.Canceled, or a *Kept saying what the run left).
	Err error
	// Cancelling: the running job was asked to stop and is winding down
	// (removing its partial output); it ends as cancelled, or as what it
	// was already ending as.
	Cancelling bool
}

// Duration is how long the job ran (so far, while it runs).
func (e Entry) Duration() time.Duration {
	switch {
	case e.Started.IsZero():
		return 0
	case e.Ended.IsZero():
		return time.Since(e.Started)
	}
	return e.Ended.Sub(e.Started)
}

// Queue runs submitted jobs one at a time per device key ("cuda:0",
// "cpu"), in submission order, so two pipelines never compete for the same
// device's memory, while jobs on different devices run side by side. It
// keeps every job in a list for the GUI's job panel until Clear.
type Queue struct {
	ctx      context.Context
	onChange func(Entry)

	mu      sync.Mutex
	nextID  int
	entries []*queued            // submission order
	waiting map[string][]*queued // per device, FIFO
	running map[string]*queued
	// pending changes for onChange, delivered in order by one goroutine
	// at a time so a callback may call back into the queue.
	pending     []Entry
	dispatching bool
}

type queued struct {
	Entry
	fn    Func
	sinks []Sink
	job   *Job
	done  chan struct{}
	err   error
}

// NewQueue returns a queue whose jobs run under ctx. onChange, if not nil,
// is called after every change of a job's state (not on progress: give
// sinks to Submit for that), in the order the changes happened, from a
// goroutine of the queue; it may call the queue's methods.
func NewQueue(ctx context.Context, onChange func(Entry)) *Queue {
	return &Queue{ctx: ctx, onChange: onChange, waiting: map[string][]*queued{}, running: map[string]*queued{}}
}

// Ticket is the handle of a submitted job.
type Ticket struct {
	ID int
	q  *Queue
	e  *queued
}

// Wait waits until the job has ended (or was removed from the queue) and
// returns its error, as Job.Wait does.
func (t *Ticket) Wait() error {
	<-t.e.done
	return t.e.err
}

// Cancel cancels the job: see Queue.Cancel.
func (t *Ticket) Cancel() { t.q.Cancel(t.ID) }

// Submit queues fn on device; it starts at once when nothing else runs on
// that device. The sinks receive the job's events once it runs.
func (q *Queue) Submit(name, device string, fn Func, sinks ...Sink) *Ticket {
	q.mu.Lock()
	q.nextID++
	e := &queued{
		Entry: Entry{ID: q.nextID, Name: name, Device: device, State: StateQueued, Submitted: time.Now()},
		fn:    fn, sinks: sinks, done: make(chan struct{}),
	}
	q.entries = append(q.entries, e)
	q.waiting[device] = append(q.waiting[device], e)
	q.notifyLocked(e.Entry)
	q.startNextLocked(device)
	q.mu.Unlock()
	return &Ticket{ID: e.ID, q: q, e: e}
}

// startNextLocked starts the next waiting job of device if none runs.
func (q *Queue) startNextLocked(device string) {
	if q.running[device] != nil || len(q.waiting[device]) == 0 {
		return
	}
	e := q.waiting[device][0]
	q.waiting[device] = q.waiting[device][1:]
	q.running[device] = e
	e.State, e.Started = StateRunning, time.Now()
	e.job = Start(q.ctx, e.Name, e.fn, e.sinks...)
	go q.watch(e)
	q.notifyLocked(e.Entry)
}

// watch records the end of e's job and starts the next one on its device.
func (q *Queue) watch(e *queued) {
	err := e.job.Wait()
	final := e.job.Progress()
	q.mu.Lock()
	e.Ended, e.Progress, e.err = time.Now(), final, err
	switch final.Kind {
	case Finished:
		e.State = StateFinished
	case Cancelled:
		e.State, e.Err = StateCancelled, err
	default:
		e.State, e.Err = StateFailed, err
	}
	delete(q.running, e.Device)
	q.notifyLocked(e.Entry)
	q.startNextLocked(e.Device)
	q.mu.Unlock()
	close(e.done)
}

// Cancel cancels job id: a running job is asked to stop (onChange sees
// it Cancelling at once, and it stays in the list as cancelled once it
// has stopped); a queued one is removed from the queue and the list. It
// reports whether the job was found and not yet ended.
func (q *Queue) Cancel(id int) bool {
	q.mu.Lock()
	e := q.findLocked(id)
	if e == nil || e.State.Ended() {
		q.mu.Unlock()
		return false
	}
	if e.State == StateRunning {
		j := e.job
		if !e.Cancelling {
			// Said at once: the job may take a moment to stop.
			e.Cancelling = true
			q.notifyLocked(e.Entry)
		}
		q.mu.Unlock()
		j.Cancel()
		return true
	}
	w := q.waiting[e.Device]
	for i, x := range w {
		if x == e {
			q.waiting[e.Device] = append(w[:i:i], w[i+1:]...)
			break
		}
	}
	q.removeLocked(e)
	e.State, e.Ended, e.err = StateCancelled, time.Now(), context.Canceled
	q.notifyLocked(e.Entry)
	q.mu.Unlock()
	close(e.done)
	return true
}

// Entries returns the jobs in submission order with their latest progress.
func (q *Queue) Entries() []Entry {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]Entry, len(q.entries))
	for i, e := range q.entries {
		out[i] = e.Entry
		if e.State == StateRunning {
			out[i].Progress = e.job.Progress()
		}
	}
	return out
}

// Clear removes the ended jobs from the list.
func (q *Queue) Clear() {
	q.mu.Lock()
	defer q.mu.Unlock()
	kept := q.entries[:0]
	for _, e := range q.entries {
		if !e.State.Ended() {
			kept = append(kept, e)
		}
	}
	clear(q.entries[len(kept):])
	q.entries = kept
}

// CancelAll cancels every queued and running job and waits until they
// have ended.
func (q *Queue) CancelAll() { <-q.StopAll() }

// StopAll cancels every queued and running job, as CancelAll does, but
// returns at once: the channel is closed once they have all ended (their
// partial outputs removed). A window's quit uses it so that the UI stays
// responsive while the jobs wind down.
func (q *Queue) StopAll() <-chan struct{} {
	q.mu.Lock()
	var queuedIDs, runningIDs []int
	var all []*queued
	for _, e := range q.entries {
		switch e.State {
		case StateQueued:
			queuedIDs = append(queuedIDs, e.ID)
		case StateRunning:
			runningIDs = append(runningIDs, e.ID)
		}
		all = append(all, e)
	}
	q.mu.Unlock()
	// Queued ones first, so none starts while the running ones stop.
	for _, id := range append(queuedIDs, runningIDs...) {
		q.Cancel(id)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, e := range all {
			<-e.done
		}
	}()
	return done
}

func (q *Queue) findLocked(id int) *queued {
	for _, e := range q.entries {
		if e.ID == id {
			return e
		}
	}
	return nil
}

func (q *Queue) removeLocked(e *queued) {
	for i, x := range q.entries {
		if x == e {
			q.entries = append(q.entries[:i:i], q.entries[i+1:]...)
			return
		}
	}
}

// notifyLocked queues a change for onChange and makes sure a goroutine
// delivers it.
func (q *Queue) notifyLocked(e Entry) {
	if q.onChange == nil {
		return
	}
	q.pending = append(q.pending, e)
	if !q.dispatching {
		q.dispatching = true
		go q.dispatch()
	}
}

func (q *Queue) dispatch() {
	for {
		q.mu.Lock()
		batch := q.pending
		q.pending = nil
		if len(batch) == 0 {
			q.dispatching = false
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		for _, e := range batch {
			q.onChange(e)
		}
	}
}
