package panel

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/viewer"
)

// slowToStop makes the fake pipeline take until windDown is closed to
// end once cancelled (after removing its output), as a real job does
// while it stops a kernel and deletes its temporary file.
func slowToStop(windDown <-chan struct{}) func(*Pipeline) {
	return func(pl *Pipeline) {
		run := pl.Run
		pl.Run = func(ctx context.Context, r Request, p *job.Progress) error {
			err := run(ctx, r, p)
			if ctx.Err() != nil {
				<-windDown
			}
			return err
		}
	}
}

// dialogButton returns the button labelled text of the dialog on top of
// w.
func dialogButton(t *testing.T, v *viewer.Viewer, kind, text string) *widget.Button {
	t.Helper()
	b := v.Dialogs().Button(kind, text)
	if b == nil {
		t.Fatalf("no %s dialog with a %q button is shown", kind, text)
	}
	return b
}

// startBlocked starts a fake job of count steps whose second step waits,
// and waits until its first is done.
func startBlocked(h *panelHarness, out string) int {
	h.t.Helper()
	gate := make(chan struct{})
	h.f.gates[out] = gate
	h.set("out", out)
	h.set("count", "10")
	id := h.run()
	gate <- struct{}{}
	h.until("the first step", func() bool { return h.status(id).Event.Done == 1 })
	return id
}

// TestQuitAsksThenCancelsAndWaits: closing the window while a job runs
// asks first; "Keep running" changes nothing; "Cancel jobs and quit"
// cancels the job, the UI goroutine stays free while it winds down (its
// row says so), and quit comes once it has ended, with no output left.
func TestQuitAsksThenCancelsAndWaits(t *testing.T) {
	windDown := make(chan struct{})
	h := newPanelHarnessFor(t, cpuProbe, slowToStop(windDown))
	out := filepath.Join(h.dir, "out.txt")
	id := startBlocked(h, out)
	quits := 0
	q := NewQuitter(h.p, func() { quits++ })

	q.Close()
	if !q.Asking() || quits != 0 {
		t.Fatalf("closing with a running job: asking %v, %d quits; want the question and no quit", q.Asking(), quits)
	}
	test.Tap(dialogButton(t, h.p.v, "quit", quitDismiss))
	h.hl.Drain()
	if q.Asking() || quits != 0 || h.status(id).State != job.StateRunning {
		t.Fatalf("after Keep running: asking %v, %d quits, job %v", q.Asking(), quits, h.status(id).State)
	}

	q.Close()
	test.Tap(dialogButton(t, h.p.v, "quit", quitConfirm))
	h.until("the row to say it is cancelling", func() bool {
		return strings.Contains(h.p.jobs.rows[id].state.Text, "Cancelling")
	})
	q.Close() // closing again while the jobs stop does nothing more
	if quits != 0 || q.Asking() || h.status(id).State.Ended() {
		t.Fatalf("while the job winds down: %d quits, asking %v, job %v", quits, q.Asking(), h.status(id).State)
	}
	close(windDown)
	h.until("the quit", func() bool { return quits == 1 })
	if st := h.status(id); st.State != job.StateCancelled {
		t.Errorf("the job ended %v before the quit, want cancelled", st.State)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the cancelled job left its output: %v", err)
	}
	if entries, _ := os.ReadDir(h.dir); len(entries) != 1 {
		t.Errorf("the folder holds %d entries, want only the input", len(entries))
	}
}

// TestQuitWithoutJobsQuitsAtOnce: nothing to ask.
func TestQuitWithoutJobsQuitsAtOnce(t *testing.T) {
	h := newPanelHarness(t, cpuProbe)
	quits := 0
	q := NewQuitter(h.p, func() { quits++ })
	q.Close()
	if quits != 1 || q.Asking() {
		t.Errorf("%d quits, asking %v; want one quit and no question", quits, q.Asking())
	}
}

// TestCancelSaysCancellingAtOnce: the row of a job that takes a while to
// stop says so the moment its cancel button is tapped, and its button is
// off.
func TestCancelSaysCancellingAtOnce(t *testing.T) {
	windDown := make(chan struct{})
	h := newPanelHarnessFor(t, cpuProbe, slowToStop(windDown))
	id := startBlocked(h, filepath.Join(h.dir, "out.txt"))
	r := h.p.jobs.rows[id]
	test.Tap(r.cancel)
	if !strings.Contains(r.state.Text, "Cancelling") || !r.cancel.Disabled() || r.st.State != job.StateRunning {
		t.Errorf("just after cancel: %q, button disabled %v, state %v", r.state.Text, r.cancel.Disabled(), r.st.State)
	}
	close(windDown)
	if st := h.ended(id); st.State != job.StateCancelled {
		t.Errorf("ended %v", st.State)
	}
	if r.bar.Visible() || !strings.Contains(r.state.Text, "no output was written") {
		t.Errorf("ended row: bar shown %v, %q", r.bar.Visible(), r.state.Text)
	}
}

// TestRunningJobOnTop: the running job heads the list, the queued follow
// in submission order, and the ended ones come last, the latest first.
func TestRunningJobOnTop(t *testing.T) {
	h := newPanelHarness(t, cpuProbe)
	h.set("count", "1")
	first := h.run()
	h.ended(first)
	out2, out3 := filepath.Join(h.dir, "second.txt"), filepath.Join(h.dir, "third.txt")
	gate := make(chan struct{})
	h.f.gates[out2] = gate
	h.set("out", out2)
	h.set("count", "2")
	second := h.run()
	h.set("out", out3)
	third := h.run()
	h.until("the second job to run", func() bool { return h.status(second).State == job.StateRunning })
	h.until("the list's order", func() bool { return slices.Equal(h.p.jobs.Order(), []int{second, third, first}) })
	close(gate)
	h.ended(second)
	h.ended(third)
	h.until("the list's order", func() bool { return slices.Equal(h.p.jobs.Order(), []int{third, second, first}) })
	// Statuses keep submission order.
	var ids []int
	for _, st := range h.p.Jobs().Statuses() {
		ids = append(ids, st.ID)
	}
	if !slices.Equal(ids, []int{first, second, third}) {
		t.Errorf("statuses in order %v", ids)
	}
	// A compact row: title with output, state, detail; no bar once ended.
	r := h.p.jobs.rows[first]
	if !strings.Contains(r.title.Text, "→ ") || r.bar.Visible() {
		t.Errorf("ended row: title %q, bar shown %v", r.title.Text, r.bar.Visible())
	}
}
