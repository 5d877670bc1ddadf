package job

import (
	"sync"
	"time"
)

// Progress is what a running pipeline reports through. All methods are safe
// for concurrent use (worker goroutines may call Add) and may be called on
// a nil *Progress (they then do nothing), so algorithm code can be run
// without a job.
//
// Events reach the sinks one at a time and in the order the calls were
// made; once the job has ended, further calls are ignored, so the terminal
// event is always the last one a sink sees.
type Progress struct {
	// emitMu serialises state change and delivery, so sinks see events in
	// order and never concurrently. It is taken before mu; sinks run with
	// mu released, so a sink may call Snapshot (but must not report
	// progress itself).
	emitMu sync.Mutex
	mu     sync.Mutex
	ev     Event
	start  time.Time
	// stageStart is when the current stage began: the rate is the
	// stage's average.
	stageStart time.Time
	sinks      []Sink
	now        func() time.Time
	ended      bool
}

func newProgress(name string, sinks []Sink, now func() time.Time) *Progress {
	if now == nil {
		now = time.Now
	}
	p := &Progress{sinks: sinks, now: now}
	p.start = p.now()
	p.stageStart = p.start
	p.ev.Job = name
	return p
}

// NewProgress returns a Progress that reports to sinks without a Job, for
// running a pipeline synchronously (tests, the task runner of a cluster
// job). Call End when the run is over so the sinks see a terminal event.
func NewProgress(name string, sinks ...Sink) *Progress { return newProgress(name, sinks, nil) }

// Stage starts a new stage with total units of the given kind (total ≤ 0:
// unknown).
func (p *Progress) Stage(name string, total int64, unit string) {
	p.update(Progressed, func(now time.Time) {
		p.ev.Stage, p.ev.Total, p.ev.Unit, p.ev.Done, p.ev.Partway = name, total, unit, 0, 0
		p.ev.Rate, p.ev.ETA = 0, 0
		p.stageStart = now
	}, nil, "")
}

// Add records n more units done in the current stage and updates the
// stage's rate (its average since the stage began) and ETA. The units
// in progress (Partway) are now counted: they start from none again.
func (p *Progress) Add(n int64) {
	p.update(Progressed, func(now time.Time) {
		p.ev.Done += n
		p.ev.Partway = 0
		p.rateLocked(now)
	}, nil, "")
}

// Partway records how much of the units in progress is done before Add
// counts them: units is the amount of the current step (the block a
// kernel is computing) done so far, not an increment, so that a job
// planned as one long block moves its bar, rate and ETA while the block
// runs. A value below the last one is ignored (a kernel's workers report
// out of order), and one past the stage's total is cut to it; the next
// Add or Stage starts from none again. Done stays what Add counted.
func (p *Progress) Partway(units float64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	stale := !(units > p.ev.Partway)
	p.mu.Unlock()
	if stale {
		return // no event: nothing moved
	}
	p.update(Progressed, func(now time.Time) {
		if units <= p.ev.Partway {
			return
		}
		if p.ev.Total > 0 {
			units = min(units, float64(p.ev.Total-p.ev.Done))
		}
		p.ev.Partway = max(units, 0)
		p.rateLocked(now)
	}, nil, "")
}

// rateLocked updates the stage's rate (its average since the stage
// began, counting the units in progress) and ETA.
func (p *Progress) rateLocked(now time.Time) {
	done := p.ev.Units()
	el := now.Sub(p.stageStart).Seconds()
	if el <= 0 || done <= 0 {
		return
	}
	p.ev.Rate = done / el
	p.ev.ETA = 0
	if left := float64(p.ev.Total) - done; p.ev.Total > 0 && left > 0 {
		p.ev.ETA = time.Duration(left / p.ev.Rate * float64(time.Second))
	}
}

// Transfer records bytes moved to and from the device. It does not emit an
// event on its own; the next event carries the new totals.
func (p *Progress) Transfer(toDevice, fromDevice int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.ev.BytesToDevice += toDevice
	p.ev.BytesFromDevice += fromDevice
	p.mu.Unlock()
}

// Memory records the pipeline's current peak device and host memory; the
// job keeps the highest values seen. Like Transfer it emits nothing.
func (p *Progress) Memory(peakDevice, peakHost int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.ev.PeakDevice = max(p.ev.PeakDevice, peakDevice)
	p.ev.PeakHost = max(p.ev.PeakHost, peakHost)
	p.mu.Unlock()
}

// Partial hands a partial result to the sinks. The value must not be
// modified by the pipeline afterwards.
func (p *Progress) Partial(v any) {
	p.update(Partial, nil, v, "")
}

// Warn reports something the user should know without failing the job.
func (p *Progress) Warn(msg string) {
	p.update(Warning, nil, nil, msg)
}

// Note reports a line of what the job did (see the Note kind).
func (p *Progress) Note(msg string) {
	p.update(Note, nil, nil, msg)
}

// End sends the terminal event of a run driven without a Job (see
// NewProgress): Finished when err is nil, Cancelled when err is a
// cancellation, Failed otherwise. It returns that event; later calls do
// nothing and return the zero Event.
func (p *Progress) End(err error) Event {
	if p == nil {
		return Event{}
	}
	kind, err := classify(err, nil)
	return p.finish(kind, err)
}

// Snapshot returns the latest progress state.
func (p *Progress) Snapshot() Event {
	if p == nil {
		return Event{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.ev
	e.Elapsed = p.now().Sub(p.start)
	return e
}

// update changes the state with change (nil: no change) and emits an
// event of kind k carrying partial and msg, which belong to that event
// alone.
func (p *Progress) update(k Kind, change func(now time.Time), partial any, msg string) {
	if p == nil {
		return
	}
	p.emitMu.Lock()
	defer p.emitMu.Unlock()
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		return
	}
	now := p.now()
	if change != nil {
		change(now)
	}
	e := p.ev
	e.Kind, e.Partial, e.Message, e.Elapsed = k, partial, msg, now.Sub(p.start)
	p.mu.Unlock()
	p.deliver(e)
}

func (p *Progress) deliver(e Event) {
	for _, s := range p.sinks {
		s(e)
	}
}

// finish emits the terminal event once and stops all later ones.
func (p *Progress) finish(k Kind, err error) Event {
	p.emitMu.Lock()
	defer p.emitMu.Unlock()
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		return Event{}
	}
	p.ended = true
	if k == Finished && p.ev.Total > 0 {
		p.ev.Done, p.ev.Partway = p.ev.Total, 0
	}
	p.ev.ETA = 0
	e := p.ev
	e.Kind, e.Err, e.Elapsed = k, err, p.now().Sub(p.start)
	p.ev = e
	p.mu.Unlock()
	p.deliver(e)
	return e
}
