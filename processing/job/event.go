package job

import "time"

// Kind says what an Event reports.
type Kind int

// The kinds of events.
const (
	// Progressed: stage, counts, bytes, rate or ETA changed.
	Progressed Kind = iota
	// Partial: Event.Partial holds a piece of the result (a finished block,
	// the cells of a plane, a filled chunk of a matrix).
	Partial
	// Warning: Event.Message is something the user should know (a failed
	// pin falling back to pageable memory, values clipped).
	Warning
	// Note: Event.Message is a line of what the job did (a pipeline
	// report's note: "57 of 180 candidates left unknown"), sent before
	// the job ends for a display that keeps it with the job.
	Note
	// Finished: the job succeeded. Always the last event.
	Finished
	// Failed: the job failed; Event.Err says why. Always the last event.
	Failed
	// Cancelled: the job was cancelled. Always the last event.
	Cancelled
)

func (k Kind) String() string {
	return [...]string{"progress", "partial", "warning", "note", "finished", "failed", "cancelled"}[k]
}

// Terminal reports whether the kind ends a job.
func (k Kind) Terminal() bool { return k >= Finished }

// Event is one report from a running job. Counters are cumulative, so a
// sink that drops events (to throttle a display) loses nothing.
type Event struct {
	Kind Kind
	// Job is the job's name.
	Job string
	// Stage is the current stage ("darks", "flats", "projections", ...).
	Stage string
	// Done and Total count Unit ("slices", "planes", "rows") in the stage.
	Done, Total int64
	Unit        string
	// Partway is how much of the units in progress (a block being
	// computed) is done beyond Done, in units: Progress.Partway.
	Partway float64
	// BytesToDevice and BytesFromDevice count host↔device traffic since
	// the job started.
	BytesToDevice, BytesFromDevice int64
	// Rate is the stage's throughput in units per second, and ETA the
	// estimated time left in the stage (0 when unknown).
	Rate    float64
	ETA     time.Duration
	Elapsed time.Duration
	// PeakDevice and PeakHost are the highest memory figures the pipeline
	// reported (bytes).
	PeakDevice, PeakHost int64
	// Partial holds a partial result for Kind == Partial.
	Partial any
	// Message is the text of a Warning or a Note.
	Message string
	// Err is set for Kind == Failed.
	Err error
}

// Units returns the units done in the stage, counting those in progress
// (Done + Partway).
func (e Event) Units() float64 { return float64(e.Done) + e.Partway }

// Fraction returns Units()/Total in [0,1], or 0 when Total is unknown.
func (e Event) Fraction() float64 {
	if e.Total <= 0 {
		return 0
	}
	f := e.Units() / float64(e.Total)
	if f > 1 {
		f = 1
	}
	return f
}

// Sink receives events. It is called from the job's goroutine, one event at
// a time, so it must be quick; a GUI sink hands the event to the UI thread
// with fyne.Do and returns.
type Sink func(Event)
