package panel

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/widgets"
)

// JobStatus is what the job list shows of one job.
type JobStatus struct {
	ID     int
	Name   string
	Device string
	State  job.State
	// Event is the latest progress (for an ended job, its final event
	// with the peak memory it reported).
	Event    job.Event
	Err      error
	Duration time.Duration
	// Warnings the job reported.
	Warnings []string
	// Notes are the lines of what the job did (its report's), shown
	// once it finished.
	Notes []string
}

// jobRow is one job in the list, compact: its name and output beside the
// cancel button, then its state, a progress bar while it runs, and stage,
// done/total, throughput and ETA (timing and peak memory once it ended).
type jobRow struct {
	st     JobStatus
	title  *widget.Label
	state  *widget.Label
	bar    *widget.ProgressBar
	detail *widget.Label
	warn   *widget.Label
	cancel *widget.Button
	box    *fyne.Container
	live   Live
	// req is the job's request (Submit's; empty for rows listed
	// otherwise).
	req Request
	// outputs are the files or folders the job writes.
	outputs []string
	// cancelling: the job was asked to stop and has not ended yet.
	cancelling bool
	// ended: the terminal event was applied (the row is final); endSeq
	// numbers the ended rows in the order they ended.
	ended  bool
	endSeq int
}

// JobList lists the panel's jobs: the running ones at the top, then the
// queued ones as they were submitted, then the ended ones, the latest
// first, kept with their timing and peak memory until cleared.
type JobList struct {
	p      *Panel
	rows   map[int]*jobRow
	order  []int
	list   *fyne.Container
	scroll *container.Scroll
	empty  *widget.Label
	top    *fyne.Container
	banner *widget.Label
	box    *fyne.Container
	// ends counts the rows that ended, for their order.
	ends int
}

func newJobList(p *Panel) *JobList {
	jl := &JobList{p: p, rows: map[int]*jobRow{}}
	jl.list = container.NewVBox()
	jl.banner = widgets.WrapLabel("", widget.SuccessImportance)
	jl.banner.Hide()
	clear := widget.NewButtonWithIcon("Clear finished", theme.ContentClearIcon(), jl.clearEnded)
	clear.Importance = widget.LowImportance
	head := container.NewBorder(nil, nil, widget.NewLabelWithStyle("Jobs", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), clear)
	jl.empty = widgets.WrapLabel("No jobs yet: choose a pipeline above and press Run.", widget.LowImportance)
	jl.list.Add(jl.empty)
	jl.top = container.NewVBox(widget.NewSeparator(), head, jl.banner)
	jl.scroll = container.NewVScroll(jl.list)
	jl.box = container.NewBorder(jl.top, nil, nil, nil, jl.scroll)
	return jl
}

// rank is where a row goes in the list: running, then queued, then
// ended.
func (r *jobRow) rank() int {
	switch {
	case r.ended || r.st.State.Ended():
		return 2
	case r.st.State == job.StateRunning:
		return 0
	}
	return 1
}

// arrange puts the rows in the list's order (running first) and, when a
// job has just started, scrolls the list to the top where it now is.
func (jl *JobList) arrange(started bool) {
	ids := slices.Clone(jl.order)
	slices.SortStableFunc(ids, func(a, b int) int {
		ra, rb := jl.rows[a], jl.rows[b]
		if d := ra.rank() - rb.rank(); d != 0 || ra.rank() != 2 {
			return d
		}
		return rb.endSeq - ra.endSeq // latest ended first
	})
	objs := make([]fyne.CanvasObject, 0, len(ids))
	for _, id := range ids {
		objs = append(objs, jl.rows[id].box)
	}
	if len(objs) == 0 {
		objs = append(objs, jl.empty)
	}
	if !slices.Equal(objs, jl.list.Objects) {
		jl.list.Objects = objs
		jl.list.Refresh()
	}
	if started {
		jl.scroll.ScrollToTop()
	}
	if jl.p.cancelBtn != nil {
		jl.p.updateCancel()
	}
}

// newestActive returns the id of the job submitted last that has not
// ended (0: none).
func (jl *JobList) newestActive() int {
	for i := len(jl.order) - 1; i >= 0; i-- {
		if r := jl.rows[jl.order[i]]; !r.ended && !r.st.State.Ended() {
			return jl.order[i]
		}
	}
	return 0
}

// Order returns the listed jobs' ids as the list shows them, top first.
func (jl *JobList) Order() []int {
	var ids []int
	for _, o := range jl.list.Objects {
		for id, r := range jl.rows {
			if r.box == o {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// Cancel asks job id to stop (a queued one leaves the queue) and shows
// it cancelling at once; it reports whether the job was found and not
// yet ended.
func (jl *JobList) Cancel(id int) bool {
	if !jl.p.queue.Cancel(id) {
		return false
	}
	if r, ok := jl.rows[id]; ok && !r.ended && r.st.State == job.StateRunning {
		r.cancelling = true
		r.render()
	}
	jl.p.updateCancel()
	return true
}

// relayout lays the list out again after labels were shown or hidden.
// It lays out twice: a wrapped label newly shown (the banner) reports
// its height for the width it had before, so the first pass gives it
// its width and the second the height of its lines; with one, the
// banner's second and third lines were drawn over the first job's row
// until something else laid the box out (the --run screenshots).
func (jl *JobList) relayout() {
	jl.box.Refresh()
	jl.box.Refresh()
}

// claims reports whether a job that has not ended writes path.
func (jl *JobList) claims(path string) bool {
	for _, r := range jl.rows {
		if !r.ended && slices.Contains(r.outputs, path) {
			return true
		}
	}
	return false
}

// Len returns the number of jobs listed.
func (jl *JobList) Len() int { return len(jl.order) }

// Status returns job id's status, and whether it is listed.
func (jl *JobList) Status(id int) (JobStatus, bool) {
	r, ok := jl.rows[id]
	if !ok {
		return JobStatus{}, false
	}
	return r.st, true
}

// Statuses returns every listed job's status in submission order.
func (jl *JobList) Statuses() []JobStatus {
	out := make([]JobStatus, 0, len(jl.order))
	for _, id := range jl.order {
		out = append(out, jl.rows[id].st)
	}
	return out
}

// Banner returns the text of the last job-ended notice.
func (jl *JobList) Banner() string { return jl.banner.Text }

// add lists a submitted job.
func (jl *JobList) add(id int, name, device string, outputs []string, live Live) *jobRow {
	r := &jobRow{st: JobStatus{ID: id, Name: name, Device: device, State: job.StateQueued}, live: live, outputs: outputs}
	// The outputs by their names, on the title's line (so that a row
	// takes four lines at most), which ends in an ellipsis when too long:
	// the full path would hide the name, where runs differ.
	var names []string
	for _, o := range outputs {
		names = append(names, filepath.Base(o))
	}
	output := strings.Join(names, ", ")
	title := fmt.Sprintf("#%d %s", id, name)
	if output != "" {
		title += " → " + output
	}
	r.title = widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	r.title.Truncation = fyne.TextTruncateEllipsis
	r.state = widgets.WrapLabel("", widget.MediumImportance)
	r.bar = widget.NewProgressBar()
	// A running row says its state on its bar, a line fewer.
	r.bar.TextFormatter = func() string {
		return fmt.Sprintf("%s · %.0f%%", r.state.Text, 100*r.bar.Value)
	}
	r.detail = widgets.WrapLabel("", widget.LowImportance)
	r.warn = widgets.WrapLabel("", widget.WarningImportance)
	r.warn.Hide()
	r.cancel = widget.NewButtonWithIcon("", theme.CancelIcon(), func() { jl.Cancel(id) })
	r.cancel.Importance = widget.LowImportance
	r.box = container.NewVBox(container.NewBorder(nil, nil, nil, r.cancel, r.title), r.state, r.bar, r.detail, r.warn)
	jl.rows[id] = r
	jl.order = append(jl.order, id)
	r.render()
	jl.arrange(false)
	jl.relayout()
	return r
}

// changed applies a queue state change (queued, running, ended).
func (jl *JobList) changed(e job.Entry) {
	r, ok := jl.rows[e.ID]
	if !ok || r.ended {
		return
	}
	started := r.st.State != job.StateRunning && e.State == job.StateRunning
	r.st.State = e.State
	if e.Cancelling && !e.State.Ended() {
		r.cancelling = true
	}
	if e.State.Ended() {
		r.st.Duration = e.Duration()
		if e.Progress.Kind.Terminal() {
			r.st.Event = e.Progress
		}
		if e.State == job.StateCancelled && e.Started.IsZero() {
			// Cancelled while queued: it never ran, so no sink will end it.
			jl.end(r, job.Event{Kind: job.Cancelled, Err: context.Canceled})
			return
		}
	}
	r.render()
	jl.arrange(started)
}

// progress applies a (throttled) progress event.
func (jl *JobList) progress(id int, e job.Event) {
	r, ok := jl.rows[id]
	if !ok || r.ended {
		return
	}
	started := r.st.State == job.StateQueued
	if started {
		r.st.State = job.StateRunning
	}
	r.st.Event = e
	r.render()
	if started {
		jl.arrange(true)
	}
}

// warning records a job's warning.
func (jl *JobList) warning(id int, msg string) {
	if r, ok := jl.rows[id]; ok {
		r.st.Warnings = append(r.st.Warnings, msg)
		widgets.SetLabel(r.warn, strings.Join(r.st.Warnings, "\n"))
		jl.relayout()
	}
}

// note records a line of what job id did, shown when it has finished.
func (jl *JobList) note(id int, msg string) {
	if r, ok := jl.rows[id]; ok && !r.ended {
		r.st.Notes = append(r.st.Notes, msg)
	}
}

// end applies a job's terminal event: the row shows its timing and peak
// memory, the live results are finished, and the user is told.
func (jl *JobList) end(r *jobRow, e job.Event) {
	if r.ended {
		return
	}
	r.ended, r.cancelling = true, false
	jl.ends++
	r.endSeq = jl.ends
	r.st.Event = e
	r.st.Err = e.Err
	switch e.Kind {
	case job.Finished:
		r.st.State = job.StateFinished
	case job.Cancelled:
		r.st.State = job.StateCancelled
	default:
		r.st.State = job.StateFailed
	}
	if r.st.Duration == 0 {
		r.st.Duration = e.Elapsed
	}
	r.render()
	var msg string
	switch r.st.State {
	case job.StateFinished:
		msg = fmt.Sprintf("%s finished in %s", r.st.Name, roundDuration(r.st.Duration))
		if len(r.st.Notes) > 0 {
			// The report's headline: what it did (its counts).
			msg += "\n" + r.st.Notes[0]
		}
		jl.banner.Importance = widget.SuccessImportance
	case job.StateCancelled:
		msg = fmt.Sprintf("%s cancelled; %s", r.st.Name, job.LeftBehind(e.Err))
		jl.banner.Importance = widget.WarningImportance
	default:
		msg = fmt.Sprintf("%s failed: %v", r.st.Name, e.Err)
		jl.banner.Importance = widget.DangerImportance
	}
	jl.banner.SetText(msg)
	jl.banner.Show()
	jl.arrange(false)
	jl.relayout()
	// Its outputs are on disk now, or (cancelled, failed) free again:
	// the form's output names follow.
	if r.st.State == job.StateFinished && r.req.Command != "" {
		jl.p.finished = append(jl.p.finished, pipeline.Finished{Command: r.req.Command, Args: r.req.Args, Values: r.req.Values})
	}
	if jl.p.cur != nil {
		jl.p.freshOutputs()
		// A form that follows finished runs (train after cubes) takes
		// this one.
		if jl.p.cur.Spec.Follow != nil {
			jl.p.resuggest()
		}
	}
	if r.live != nil {
		func() {
			// A result that cannot be shown is reported, never a crash.
			defer func() {
				if x := recover(); x != nil {
					jl.p.v.Dialogs().ShowError(fmt.Errorf("showing the results of %s: %v", r.st.Name, x))
				}
			}()
			r.live.Done(e.Err)
		}()
	}
	if a := fyne.CurrentApp(); a != nil && canNotify() {
		a.SendNotification(fyne.NewNotification("voxlab", msg))
	}
	if r.st.State == job.StateFailed {
		jl.p.v.Dialogs().ShowError(fmt.Errorf("%s: %w", r.st.Name, e.Err))
	}
}

// clearEnded removes the ended jobs from the list and the queue.
func (jl *JobList) clearEnded() {
	jl.p.queue.Clear()
	kept := jl.order[:0]
	for _, id := range jl.order {
		if jl.rows[id].ended {
			delete(jl.rows, id)
			continue
		}
		kept = append(kept, id)
	}
	jl.order = kept
	jl.banner.Hide()
	jl.arrange(false)
	jl.relayout()
}

// render shows the row's status.
func (r *jobRow) render() {
	st, e := r.st, r.st.Event
	// A running job's state is on its bar; a queued or ended one has no
	// bar, and says how it stands.
	r.bar.Hidden = st.State != job.StateRunning
	r.state.Hidden = !r.bar.Hidden
	switch st.State {
	case job.StateQueued:
		r.state.SetText("queued for " + st.Device)
		r.detail.SetText("waiting for the job before it on this device")
	case job.StateRunning:
		if r.cancelling {
			r.state.Importance = widget.WarningImportance
			r.state.SetText("Cancelling…")
		} else {
			r.state.SetText("running on " + st.Device)
		}
		r.detail.SetText(progressText(e))
	case job.StateFinished:
		r.state.Importance = widget.SuccessImportance
		r.state.SetText(fmt.Sprintf("finished in %s", roundDuration(st.Duration)))
		// What it did first (its report's notes), then its memory.
		r.detail.SetText(strings.Join(slices.DeleteFunc(append(slices.Clone(st.Notes), memoryText(e)), func(s string) bool { return s == "" }), "\n"))
	case job.StateCancelled:
		r.state.Importance = widget.WarningImportance
		r.state.SetText("cancelled after " + roundDuration(st.Duration) + "; " + job.LeftBehind(st.Err))
		r.detail.SetText(memoryText(e))
	case job.StateFailed:
		r.state.Importance = widget.DangerImportance
		msg := "failed"
		if st.Err != nil {
			msg += ": " + st.Err.Error()
		}
		r.state.SetText(msg)
		r.detail.SetText(memoryText(e))
	}
	if st.State.Ended() || r.cancelling {
		r.cancel.Disable()
	}
	r.state.Refresh()
	// After the state's text: the bar shows it.
	v := e.Fraction()
	if st.State == job.StateFinished {
		v = 1
	}
	r.bar.SetValue(v)
}

// progressText is a running job's line: stage, done/total, rate, ETA and
// memory so far.
func progressText(e job.Event) string {
	var parts []string
	unit := e.Unit
	if unit == "" {
		unit = "units"
	}
	stage := e.Stage
	if stage == "" {
		stage = "starting"
	}
	// Whole units done, counting those of the block in progress.
	done := int64(e.Units())
	if e.Total > 0 {
		parts = append(parts, fmt.Sprintf("%s %d/%d %s (%.0f%%)", stage, done, e.Total, unit, 100*e.Fraction()))
	} else {
		parts = append(parts, fmt.Sprintf("%s %d %s", stage, done, unit))
	}
	if e.Rate > 0 {
		parts = append(parts, fmt.Sprintf("%.3g %s/s", e.Rate, unit))
	}
	if e.ETA > 0 {
		parts = append(parts, "ETA "+roundDuration(e.ETA))
	}
	if m := memoryText(e); m != "" {
		parts = append(parts, m)
	}
	return strings.Join(parts, " · ")
}

// memoryText gives the peak memory a job reported.
func memoryText(e job.Event) string {
	if e.PeakDevice == 0 && e.PeakHost == 0 {
		return ""
	}
	return fmt.Sprintf("peak device %s, host %s", plan.FormatBytes(e.PeakDevice), plan.FormatBytes(e.PeakHost))
}

func roundDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// canNotify reports whether desktop notifications can be sent: on Linux
// they go over the session D-Bus, and without one Fyne only logs an error
// (the banner above the job list says it anyway).
func canNotify() bool {
	return runtime.GOOS != "linux" || os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" || fyne.CurrentApp().Driver().Device().IsMobile()
}
