package main

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxlab/voxlab/panel"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/processing/volume/h5"
)

// writeBigScan writes a NeXus scan of 64 noisy projections of 512²
// without darks or flats into a folder of its own (a copy of the one
// the test process writes once: bigScan). At kernel 13 and dif 1 every
// voxel needs its median: one block of all 64 projections takes some
// six seconds on two cores (minutes under the race detector).
func writeBigScan(t *testing.T) string {
	t.Helper()
	return filepath.Join(bigScan.copyTo(t), "big.nxs")
}

var bigScan = &fixture{name: "big scan", write: func(dir string) error {
	info := volume.Info{Shape: [3]int{64, 512, 512}, DType: volume.Uint16}
	data := make([]byte, info.Bytes())
	rng := rand.New(rand.NewPCG(1, 2))
	for i, u := 0, volume.Uint16s(data); i < len(u); i++ {
		u[i] = uint16(10000 + 80*rng.NormFloat64())
	}
	src, err := volume.NewMemory(info, data)
	if err != nil {
		return err
	}
	return h5.WriteNeXus(filepath.Join(dir, "big.nxs"), src, make([]int, info.Shape[0]), nil)
}}

// bigBlockRequest dezings scan into out as one block of all its
// projections at kernel 13.
func bigBlockRequest(scan, out string) panel.Request {
	return panel.Request{Command: "dezing", Args: []string{scan, out},
		Values: pipeline.Values{"kernel": 13, "dif": 1.0}, Device: panel.Device{Backend: "cpu", Batch: "64"}}
}

// onlyScanLeft fails unless the scan is all its folder holds: no output,
// no temporary file.
func onlyScanLeft(t *testing.T, scan string) {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Dir(scan))
	for _, e := range entries {
		if e.Name() != filepath.Base(scan) {
			t.Errorf("a cancelled run left %s", e.Name())
		}
	}
}

// startBigBlock submits the one-block dezing and waits until its row
// has shown the block's progress move three times (the kernels' reports
// inside the block), returning the job and the longest wait between
// moves.
func startBigBlock(h *guiHarness, scan string) (int, time.Duration) {
	h.t.Helper()
	id, err := h.p.Submit(bigBlockRequest(scan, filepath.Join(filepath.Dir(scan), "big-dezinged.h5")))
	if err != nil {
		h.t.Fatal(err)
	}
	var moves []time.Time
	last := 0.0
	h.until("progress inside the block", func() bool {
		st, _ := h.p.Jobs().Status(id)
		if st.State.Ended() {
			h.t.Fatalf("the job ended %v (%v) before its block moved", st.State, st.Err)
		}
		if e := st.Event; e.Stage == "projections" && e.Done == 0 && e.Units() > last {
			moves, last = append(moves, time.Now()), e.Units()
		}
		return len(moves) >= 3
	})
	var gap time.Duration
	for i := 1; i < len(moves); i++ {
		gap = max(gap, moves[i].Sub(moves[i-1]))
	}
	return id, gap
}

// TestGUIOneBlockMovesAndCancelsInsideTheBlock: a dezing planned as
// one block of many seconds shows progress (and an ETA) from inside the
// block, says "Cancelling…" at once, and ends cancelled a few rows after
// the cancel, short of 100 %, leaving no output. Work is counted, not
// seconds: the machine may be busy (the latency is logged).
func TestGUIOneBlockMovesAndCancelsInsideTheBlock(t *testing.T) {
	h := newGUIHarness(t)
	scan := writeBigScan(t)
	id, gap := startBigBlock(h, scan)
	at, _ := h.p.Jobs().Status(id)
	if at.Event.ETA <= 0 || at.Event.Fraction() <= 0 {
		t.Errorf("inside the block: ETA %v, %.1f%%; want both", at.Event.ETA, 100*at.Event.Fraction())
	} else {
		t.Logf("the block would take %.1f s at its rate so far", float64(at.Event.Total)/at.Event.Rate)
	}
	cancelled := time.Now()
	if !h.p.Cancel(id) {
		t.Fatal("the job had already ended")
	}
	h.until("the cancellation", func() bool {
		st, _ := h.p.Jobs().Status(id)
		return st.State.Ended()
	})
	latency := time.Since(cancelled)
	st, _ := h.p.Jobs().Status(id)
	t.Logf("cancel to the end shown: %v; progress moved at most %v apart inside the block (%.1f%% when cancelled)", latency, gap, 100*st.Event.Fraction())
	if st.State != job.StateCancelled || st.Event.Fraction() >= 1 {
		t.Fatalf("ended %v at %.0f%%, want cancelled short of 100%%", st.State, 100*st.Event.Fraction())
	}
	if after := st.Event.Units() - at.Event.Units(); after > float64(st.Event.Total)/4 {
		t.Errorf("%.1f of the block's %d projections were done after the cancel, want the rows in hand", after, st.Event.Total)
	}
	h.until("the UI", func() bool { return h.hl.Idle() })
	onlyScanLeft(t, scan)
}

// TestGUIQuitCancelsTheRunningJob: closing the window during the block
// asks; the answer cancels the job, and the quit follows, the job
// cancelled inside its block, with no output or temporary file left.
func TestGUIQuitCancelsTheRunningJob(t *testing.T) {
	h := newGUIHarness(t)
	scan := writeBigScan(t)
	id, _ := startBigBlock(h, scan)
	quit := false
	q := panel.NewQuitter(h.p, func() { quit = true })
	q.Close()
	if !q.Asking() {
		t.Fatal("closing the window with a running job did not ask")
	}
	answered := time.Now()
	q.Answer(true)
	h.until("the quit", func() bool { return quit })
	t.Logf("answer to quit: %v", time.Since(answered))
	if st, _ := h.p.Jobs().Status(id); st.State != job.StateCancelled || st.Event.Fraction() >= 1 {
		t.Errorf("the job is %v at %.0f%% at the quit, want cancelled short of 100%%", st.State, 100*st.Event.Fraction())
	}
	onlyScanLeft(t, scan)
}

// TestGUIInterruptStopsJobsWithoutTheLoop: Ctrl-C (the context main
// cancels on SIGINT and SIGTERM) cancels the jobs from the signal's own
// goroutine, with no UI callback run (Fyne's loop is gone by then), and
// what runGUI waits for after the loop ends comes, the temporary output
// removed.
func TestGUIInterruptStopsJobsWithoutTheLoop(t *testing.T) {
	h := newGUIHarness(t)
	scan := writeBigScan(t)
	startBigBlock(h, scan)
	ctx, interrupt := context.WithCancel(context.Background())
	var quit atomic.Bool
	defer interruptJobs(ctx, h.p, func() { quit.Store(true) })()
	sent := time.Now()
	interrupt()
	// Nothing drains the UI queue from here on, as after Fyne's loop.
	for deadline := time.Now().Add(time.Minute); h.p.Working(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the jobs did not stop within a minute of the interrupt")
		}
	}
	took := time.Since(sent)
	<-h.p.StopJobs() // what runGUI waits for after the loop: nothing left
	for deadline := time.Now().Add(2 * time.Minute); !quit.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no quit within two minutes of the jobs' end")
		}
	}
	t.Logf("interrupt to all jobs ended: %v", took)
	onlyScanLeft(t, scan)
}

// TestGUICtrlCRemovesThePartialOutput runs `voxlab gui SCAN --run dezing`
// in a real window, interrupts it once the window is drawn and its one
// block computes, and wants it gone before the block could end, with no
// temporary output, and no finished output, left.
func TestGUICtrlCRemovesThePartialOutput(t *testing.T) {
	needDisplay(t)
	imp := needTool(t, "import", "ImageMagick's import (Debian package imagemagick)")
	scan := writeBigScan(t)
	dir := filepath.Dir(scan)
	c := startChild(t, strings.Join([]string{"gui", scan, "--run", "dezing",
		"--set", "batch-size=64", "--set", "kernel=13", "--set", "dif=1", "--size", "900x600"}, "\t"))
	// The job is running once its temporary output exists.
	part := func() string {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".part") {
				return e.Name()
			}
		}
		return ""
	}
	for deadline := time.After(time.Minute); part() == ""; {
		select {
		case <-c.exited:
			t.Fatalf("voxlab gui exited (%v) before its job wrote anything:\n%s", c.err, c.out.String())
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no temporary output within a minute:\n%s", c.out.String())
		}
	}
	// A user presses Ctrl-C on a window they see: under -race the window
	// can still be starting when the job has begun.
	screenUntil(t, imp, "the window", c, drawn)
	if part() == "" {
		t.Fatalf("the job ended before the window was drawn: the block is too small to interrupt:\n%s", c.out.String())
	}
	sent := time.Now()
	if err := c.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.exited:
		t.Logf("Ctrl-C to exit: %v (%v)", time.Since(sent), c.err)
	case <-time.After(2 * time.Minute):
		t.Fatalf("voxlab gui did not exit within two minutes of Ctrl-C:\n%s", c.out.String())
	}
	if p := part(); p != "" {
		t.Errorf("Ctrl-C left %s:\n%s", p, c.out.String())
	}
	onlyScanLeft(t, scan)
}

// TestGUISinkPanicStillRemovesOutput: a panic in one of the panel's
// sinks (UI code run on the job's goroutine) fails the job with the
// panic, but through the pipeline's own abort path: no temporary output
// is left.
func TestGUISinkPanicStillRemovesOutput(t *testing.T) {
	dir := writeDemo(t)
	scan := filepath.Join(dir, "tomo", "scan.nxs")
	prog := job.NewProgress("dezing", func(e job.Event) {
		if e.Kind == job.Partial {
			panic("the window is gone")
		}
	})
	out := filepath.Join(dir, "tomo", "out.h5")
	err := runRequest(context.Background(), pipelines["dezing"], panel.Request{Command: "dezing", Args: []string{scan, out},
		Device: panel.Device{Batch: "1"}}, prog)
	var pe *job.PanicError
	if !errors.As(err, &pe) || pe.Value != "the window is gone" {
		t.Fatalf("run ended with %v, want the sink's panic", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	for _, e := range entries {
		if strings.Contains(e.Name(), "out") {
			t.Errorf("the run left %s", e.Name())
		}
	}
}
