package job

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/voxlab/voxlab/internal/bytesize"
)

// IsTerminal reports whether f is a terminal, for choosing TerminalSink's
// mode.
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// Plain-line pacing of TerminalSink when the output is not a terminal (a
// log file, a SLURM task's output): a line per 10% of a stage, at most one
// a second, and one every heartbeat when a stage moves slowly.
const (
	lineEvery = time.Second
	heartbeat = 30 * time.Second
	lineSteps = 10
)

// TerminalSink shows a job's progress to a person reading w. When tty is
// true it draws a progress bar per stage (stage, done/total, rate, ETA,
// with github.com/schollz/progressbar/v3); otherwise it writes plain lines,
// one per 10% of a stage and at most one a second, so log files stay
// short. Warnings are always printed, and a finished job prints its time
// and peak memory. Errors are left to the caller, which reports them once.
func TerminalSink(w io.Writer, tty bool) Sink {
	t := &termSink{w: w, tty: tty, now: time.Now}
	return t.handle
}

type termSink struct {
	mu  sync.Mutex
	w   io.Writer
	tty bool
	now func() time.Time

	stage    string
	started  bool
	bar      *progressbar.ProgressBar
	lastLine time.Time
	lastStep int
}

func (t *termSink) handle(e Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch e.Kind {
	case Progressed:
		if !t.started || e.Stage != t.stage {
			t.newStage(e)
		}
		t.progress(e)
	case Warning:
		t.clearBar()
		fmt.Fprintf(t.w, "%s: warning: %s\n", e.Job, e.Message)
	case Finished:
		t.endBar(true)
		fmt.Fprintf(t.w, "%s: finished in %s%s\n", e.Job, e.Elapsed.Round(time.Millisecond), peaks(e))
	case Failed, Cancelled:
		t.endBar(false)
	}
}

func (t *termSink) newStage(e Event) {
	t.endBar(false)
	t.stage, t.started, t.lastStep = e.Stage, true, -1
	if !t.tty {
		t.line(e)
		return
	}
	total := e.Total
	if total <= 0 {
		total = -1
	}
	unit := e.Unit
	if unit == "" {
		unit = "it"
	}
	t.bar = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(t.w),
		progressbar.OptionSetDescription(e.Job+": "+e.Stage),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		// No spinner goroutine: it would write to w behind our back.
		progressbar.OptionSetSpinnerChangeInterval(0),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(t.w) }),
	)
}

func (t *termSink) progress(e Event) {
	if t.tty {
		if t.bar != nil {
			t.bar.Set64(int64(e.Units()))
		}
		return
	}
	now := t.now()
	step := -1
	if e.Total > 0 {
		step = int(e.Fraction() * lineSteps)
	}
	switch {
	case step > t.lastStep && now.Sub(t.lastLine) >= lineEvery:
	case now.Sub(t.lastLine) >= heartbeat:
	default:
		return
	}
	t.line(e)
}

// line writes one plain progress line.
func (t *termSink) line(e Event) {
	t.lastLine = t.now()
	if e.Total > 0 {
		t.lastStep = int(e.Fraction() * lineSteps)
	}
	s := fmt.Sprintf("%s: %s %d", e.Job, e.Stage, int64(e.Units()))
	if e.Total > 0 {
		s += fmt.Sprintf("/%d", e.Total)
	}
	if e.Unit != "" {
		s += " " + e.Unit
	}
	if e.Total > 0 {
		s += fmt.Sprintf(" (%.0f%%)", 100*e.Fraction())
	}
	if e.Rate > 0 {
		s += fmt.Sprintf(", %.3g %s/s", e.Rate, unitOr(e.Unit))
	}
	if e.ETA > 0 {
		s += fmt.Sprintf(", ETA %s", e.ETA.Round(time.Second))
	}
	fmt.Fprintln(t.w, s)
}

func (t *termSink) clearBar() {
	if t.bar != nil && !t.bar.IsFinished() {
		t.bar.Clear()
	}
}

// endBar finishes the current stage's bar, filling it when the stage
// completed.
func (t *termSink) endBar(full bool) {
	if t.bar == nil {
		return
	}
	if full && !t.bar.IsFinished() {
		t.bar.Finish()
	}
	if !t.bar.IsFinished() {
		t.bar.Exit() // its OnCompletion ends the line
	}
	t.bar = nil
}

func unitOr(u string) string {
	if u == "" {
		return "units"
	}
	return u
}

func peaks(e Event) string {
	s := ""
	if e.PeakDevice > 0 {
		s += ", peak device memory " + bytesize.Format(e.PeakDevice)
	}
	if e.PeakHost > 0 {
		s += ", peak host memory " + bytesize.Format(e.PeakHost)
	}
	if s != "" {
		s = " (" + s[2:] + ")"
	}
	return s
}
