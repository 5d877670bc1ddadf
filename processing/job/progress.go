package job

import (
	"sync"
	"time"
)

// Progress is what a running pipeline reports through. All methods are safe
// for concurrent use and may be called on a nil *Progress (they then do
// nothing), so algorithm code can be run without a job.
type Progress struct {
	mu    sync.Mutex
	ev    Event
	start time.Time
	// stageStart and stageDone0 give the rate over the current stage.
	stageStart time.Time
	sinks      []Sink
	now        func() time.Time
}

func newProgress(name string, sinks []Sink) *Progress {
	p := &Progress{sinks: sinks, now: time.Now}
	p.start = p.now()
	p.stageStart = p.start
	p.ev.Job = name
	return p
}

// NewProgress returns a Progress that reports to sinks without a Job, for
// running a pipeline synchronously (tests, the task runner of a cluster
// job).
func NewProgress(name string, sinks ...Sink) *Progress { return newProgress(name, sinks) }

// Stage starts a new stage with total units of the given kind.
func (p *Progress) Stage(name string, total int64, unit string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.ev.Stage, p.ev.Total, p.ev.Unit, p.ev.Done = name, total, unit, 0
	p.ev.Rate, p.ev.ETA = 0, 0
	p.stageStart = p.now()
	p.emitLocked(Progressed, nil, "", nil)
}

// Add records n more units done in the current stage.
func (p *Progress) Add(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.ev.Done += n
	if el := p.now().Sub(p.stageStart).Seconds(); el > 0 && p.ev.Done > 0 {
		p.ev.Rate = float64(p.ev.Done) / el
		if left := p.ev.Total - p.ev.Done; left > 0 {
			p.ev.ETA = time.Duration(float64(left) / p.ev.Rate * float64(time.Second))
		} else {
			p.ev.ETA = 0
		}
	}
	p.emitLocked(Progressed, nil, "", nil)
}

// Transfer records bytes moved to and from the device. It does not emit an
// event on its own; the next Add carries the new totals.
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
// job keeps the highest values seen.
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
	if p == nil {
		return
	}
	p.mu.Lock()
	p.emitLocked(Partial, v, "", nil)
}

// Warn reports something the user should know without failing the job.
func (p *Progress) Warn(msg string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.emitLocked(Warning, nil, msg, nil)
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

// emitLocked sends an event to the sinks and unlocks p.mu. Sinks run
// outside the lock so a sink may call Snapshot.
func (p *Progress) emitLocked(k Kind, partial any, msg string, err error) {
	e := p.ev
	e.Kind, e.Partial, e.Message, e.Err = k, partial, msg, err
	e.Elapsed = p.now().Sub(p.start)
	sinks := p.sinks
	p.mu.Unlock()
	for _, s := range sinks {
		s(e)
	}
}

func (p *Progress) finish(k Kind, err error) Event {
	p.mu.Lock()
	if k == Finished && p.ev.Total > 0 {
		p.ev.Done = p.ev.Total
		p.ev.ETA = 0
	}
	e := p.ev
	e.Kind, e.Err, e.Elapsed = k, err, p.now().Sub(p.start)
	p.emitLocked(k, nil, "", err)
	return e
}
