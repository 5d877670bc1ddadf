package panel

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/viewer"
)

// Quitter decides what closing the window does while jobs are queued or
// running: it asks whether to cancel them and quit, and if so cancels them
// without blocking the UI goroutine — the window keeps drawing while the
// rows say "Cancelling…" — and quits once they have all ended, their
// partial outputs removed. Its methods run on the UI goroutine.
type Quitter struct {
	p    *Panel
	quit func()
	// hide closes the question on screen (nil: none).
	hide func()
	// stopping: the jobs were cancelled and quit follows once they end.
	stopping bool
}

// Quit labels of the question's buttons.
const (
	quitConfirm = "Cancel jobs and quit"
	quitDismiss = "Keep running"
)

// NewQuitter returns the quit handling of p's window: quit is what
// quitting does once no job runs any more (close the panel, end the app).
func NewQuitter(p *Panel, quit func()) *Quitter { return &Quitter{p: p, quit: quit} }

// Close is the window's close intercept. With no job queued or running it
// quits at once; otherwise it asks whether to cancel the jobs and quit
// (yes: Stop; no: nothing changes). While the question is on screen, or
// the jobs are stopping, another close does nothing more.
func (q *Quitter) Close() {
	switch {
	case q.stopping || q.hide != nil:
		return
	case !q.p.Busy():
		q.quit()
		return
	}
	// Enter keeps the jobs running, as Escape does: quitting is the
	// choice that costs work, so it takes a click (or Tab, then Enter).
	q.hide = q.p.v.Dialogs().Show("quit", "Jobs are running", theme.QuestionIcon(), q.question(), []viewer.DialogButton{
		{Label: quitDismiss, Do: func() { q.hide = nil }},
		{Label: quitConfirm, Importance: widget.DangerImportance, Do: func() {
			q.hide = nil
			q.Stop()
		}},
	}, 0, 0)
}

// question says which jobs would be cancelled.
func (q *Quitter) question() string {
	var running, queued []string
	for _, st := range q.p.jobs.Statuses() {
		switch st.State {
		case job.StateRunning:
			running = append(running, st.Name)
		case job.StateQueued:
			queued = append(queued, st.Name)
		}
	}
	var parts []string
	if len(running) > 0 {
		parts = append(parts, fmt.Sprintf("%d %s running (%s)", len(running), plural(len(running), "job is", "jobs are"), strings.Join(running, ", ")))
	}
	if len(queued) > 0 {
		parts = append(parts, fmt.Sprintf("%d %s queued", len(queued), plural(len(queued), "job is", "jobs are")))
	}
	return strings.Join(parts, " and ") + ".\nCancel them and quit? Their partial outputs are removed."
}

// Stop cancels every job without asking and quits once they have ended.
// The wait is on a goroutine of its own: the UI goroutine stays free to
// draw the rows winding down, and quit runs on it afterwards.
func (q *Quitter) Stop() {
	if q.stopping {
		return
	}
	q.stopping = true
	if q.hide != nil {
		q.hide()
		q.hide = nil
	}
	done := q.p.StopJobs()
	go func() {
		<-done
		q.p.v.Async().Do(q.quit)
	}()
}

// Asking reports whether the question is on screen.
func (q *Quitter) Asking() bool { return q.hide != nil }

// Answer answers the question on screen as its buttons do (yes: cancel
// the jobs and quit), for tests and scripted use; without a question it
// does nothing.
func (q *Quitter) Answer(yes bool) {
	if q.hide == nil {
		return
	}
	if yes {
		q.Stop()
		return
	}
	q.hide()
	q.hide = nil
}

// StopJobs cancels every queued and running job and returns at once; the
// channel is closed when they have all ended and removed their partial
// outputs. Unlike Close it neither waits nor closes the panel, so it is
// safe from any goroutine (a signal handler's) and leaves the UI
// goroutine free.
func (p *Panel) StopJobs() <-chan struct{} { return p.queue.StopAll() }

// Working reports whether a job is queued or running. Unlike Busy it asks
// the queue rather than the job list, so it is safe from any goroutine
// and current even once the UI goroutine has stopped running callbacks.
func (p *Panel) Working() bool {
	for _, e := range p.queue.Entries() {
		if !e.State.Ended() {
			return true
		}
	}
	return false
}
