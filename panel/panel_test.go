package panel

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/viewer"
	"github.com/voxlab/voxlab/widgets"
)

// fakeLive records what the panel hands a pipeline's live view, and adds
// a points layer on the first partial result as a real one would.
type fakeLive struct {
	v        *viewer.Viewer
	mu       sync.Mutex
	partials []int
	stages   []string
	layer    *viewer.PointsLayer
	doneErr  error
	done     int
}

func (l *fakeLive) Partial(e job.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partials = append(l.partials, e.Partial.(int))
	l.stages = append(l.stages, e.Stage)
	if len(l.partials) == 1 {
		l.v.Async().Do(func() { l.layer = l.v.AddPoints("fake result", nil) })
	}
}

func (l *fakeLive) Done(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done++
	l.doneErr = err
}

// fakePipeline counts to its count parameter, one step per partial
// result, writing the steps to its output through outfile (so a
// cancelled run leaves nothing). A step waits on gates[output] when the
// output has a gate.
type fakePipeline struct {
	gates map[string]chan struct{}
	fail  error
	lives []*fakeLive
	// note, when set, is the report's note in place of the step count.
	note string
}

const fakeDevice = 64 << 20

func (f *fakePipeline) pipeline() *Pipeline {
	spec := &pipeline.Spec{
		Name: "fake", Title: "Fake", Summary: "counts",
		Args: []pipeline.Param{
			{Name: "in", Label: "Input", Kind: pipeline.Input},
			{Name: "out", Label: "Output", Kind: pipeline.Output},
		},
		Params: []pipeline.Param{
			{Name: "count", Label: "Count", Kind: pipeline.Int, Default: 5, Help: "steps"},
			{Name: "mode", Label: "Mode", Kind: pipeline.Choice, Options: []string{"a", "b"}, Default: "a"},
			{Name: "metrics", Label: "Metrics", Kind: pipeline.Multi, Options: []string{"x", "y", "z"}, Default: []string{"x", "z"}},
			{Name: "fast", Label: "Fast", Kind: pipeline.Bool, Advanced: true},
		},
		Batch: pipeline.Batch{Flag: "batch-size", Unit: "steps", Label: "Steps per block"},
	}
	return &Pipeline{
		Spec: spec,
		Plan: func(ctx context.Context, r Request) (*plan.Plan, error) {
			if r.Args[0] != "" && r.Args[0] == r.Args[1] {
				return nil, &RequestError{Field: "out", Err: fmt.Errorf("output %s is the input %s", r.Args[1], r.Args[0])}
			}
			n := r.Values.Int("count")
			if n > 100000 {
				return nil, fmt.Errorf("count %d: too many steps", n)
			}
			blk, _ := strconv.Atoi(r.Device.Batch)
			return plan.Make("fake", []plan.Phase{{Name: "work", Units: n, Unit: "steps", Block: blk,
				Arrays: []plan.Array{{Name: "buf", Where: plan.Device, PerUnit: 1 << 20}}}},
				plan.Budget{Device: fakeDevice, DeviceSource: "fake device", Host: 1 << 30, HostSource: "fake RAM"})
		},
		Run: func(ctx context.Context, r Request, p *job.Progress) error {
			n := r.Values.Int("count")
			out, err := outfile.Create(r.Args[1])
			if err != nil {
				return err
			}
			defer out.Abort()
			p.Stage("work", int64(n), "steps")
			for i := range n {
				if g := f.gates[r.Args[1]]; g != nil {
					select {
					case <-g:
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				if f.fail != nil && i == n/2 {
					return f.fail
				}
				p.Memory(int64(i+1)<<20, 1<<20)
				p.Add(1)
				p.Partial(i)
				fmt.Fprintf(out, "%d\n", i)
			}
			if err := out.Commit(); err != nil {
				return err
			}
			// What it did, as a pipeline's report says it.
			if f.note != "" {
				p.Note(f.note)
			} else {
				p.Note(fmt.Sprintf("fake: %d steps written", n))
			}
			return nil
		},
		Live: func(v *viewer.Viewer, r Request) Live {
			l := &fakeLive{v: v}
			f.lives = append(f.lives, l)
			return l
		},
	}
}

func cpuProbe(string) (gpu.DeviceInfo, string, error) {
	return gpu.DeviceInfo{Backend: "cpu", Name: "test cpu", Cores: 2, TotalBytes: 8 << 30, FreeBytes: 4 << 30}, "backend: cpu (test)", nil
}

func cudaProbe(string) (gpu.DeviceInfo, string, error) {
	return gpu.DeviceInfo{Backend: "cuda", Name: "test gpu", Cores: 100, ComputeCapability: "9.0", TotalBytes: 80 << 30, FreeBytes: 70 << 30}, "backend: cuda (test)", nil
}

type panelHarness struct {
	t   *testing.T
	hl  *viewer.Headless
	p   *Panel
	f   *fakePipeline
	dir string
	in  string
}

func newPanelHarness(t *testing.T, probe DeviceProbe) *panelHarness {
	t.Helper()
	return newPanelHarnessFor(t, probe, nil)
}

// newPanelHarnessFor is newPanelHarness with the fake pipeline changed by
// adjust (nil: unchanged) before the panel offers it.
func newPanelHarnessFor(t *testing.T, probe DeviceProbe, adjust func(*Pipeline)) *panelHarness {
	t.Helper()
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	hl := viewer.NewHeadless(w)
	w.Resize(fyne.NewSize(1280, 900))
	f := &fakePipeline{gates: map[string]chan struct{}{}}
	pl := f.pipeline()
	if adjust != nil {
		adjust(pl)
	}
	p := NewPanel(hl.Viewer, PanelOptions{Probe: probe, PlanDelay: time.Millisecond, BandwidthBytes: 1 << 20}, pl)
	t.Cleanup(func() {
		p.Close()
		hl.Close()
	})
	dir := t.TempDir()
	in := filepath.Join(dir, "input.txt")
	os.WriteFile(in, []byte("x"), 0o644)
	h := &panelHarness{t: t, hl: hl, p: p, f: f, dir: dir, in: in}
	h.set("in", in)
	h.set("out", filepath.Join(dir, "out.txt"))
	h.planned()
	return h
}

// freshForm shows the fake pipeline's form as a new session would: its
// defaults and suggestions, none of the values typed so far.
func (h *panelHarness) freshForm() {
	h.t.Helper()
	h.p.kept = map[string]map[string]string{}
	h.p.cur = nil
	if err := h.p.Select("fake"); err != nil {
		h.t.Fatal(err)
	}
}

// set types a value into a field's entry, or sets it as the user would.
func (h *panelHarness) set(name, value string) {
	h.t.Helper()
	switch w := h.p.Field(name).(type) {
	case *widget.Entry:
		w.SetText(value)
	case *widget.SelectEntry:
		w.SetText(value)
	default:
		if err := h.p.Set(name, value); err != nil {
			h.t.Fatal(err)
		}
	}
}

// planned waits until the plan preview is up to date.
func (h *panelHarness) planned() {
	h.t.Helper()
	if err := h.hl.Until(2*time.Minute, func() bool { return !h.p.Planning() }); err != nil {
		h.t.Fatalf("plan: %v", err)
	}
}

// until waits for cond, draining the UI queue.
func (h *panelHarness) until(what string, cond func() bool) {
	h.t.Helper()
	if err := h.hl.Until(2*time.Minute, cond); err != nil {
		h.t.Fatalf("%s: %v", what, err)
	}
}

// run taps Run and returns the new job's id.
func (h *panelHarness) run() int {
	h.t.Helper()
	h.planned()
	if h.p.RunButton().Disabled() {
		h.t.Fatalf("Run is disabled: %v", h.p.PlanError())
	}
	n := h.p.Jobs().Len()
	test.Tap(h.p.RunButton())
	if h.p.Jobs().Len() != n+1 {
		h.t.Fatalf("tapping Run listed %d jobs, want %d (%s)", h.p.Jobs().Len(), n+1, h.p.v.Dialogs().LastError())
	}
	return h.p.Jobs().Statuses()[n].ID
}

func (h *panelHarness) status(id int) JobStatus {
	st, ok := h.p.Jobs().Status(id)
	if !ok {
		h.t.Fatalf("job %d is not listed", id)
	}
	return st
}

func (h *panelHarness) ended(id int) JobStatus {
	h.t.Helper()
	h.until(fmt.Sprintf("job %d to end", id), func() bool { return h.status(id).State.Ended() })
	return h.status(id)
}

func TestPanelRunsJobToTheEnd(t *testing.T) {
	h := newPanelHarness(t, cpuProbe)
	h.set("count", "7")
	h.set("mode", "b")
	id := h.run()
	st := h.ended(id)
	if st.State != job.StateFinished || st.Err != nil {
		t.Fatalf("job ended %v: %v", st.State, st.Err)
	}
	if e := st.Event; e.Done != 7 || e.Total != 7 || e.Fraction() != 1 || e.Stage != "work" {
		t.Errorf("final progress %+v, want 7/7 steps of work", e)
	}
	if st.Event.PeakDevice != 7<<20 || st.Event.PeakHost != 1<<20 {
		t.Errorf("peak memory %d/%d, want %d/%d", st.Event.PeakDevice, st.Event.PeakHost, 7<<20, 1<<20)
	}
	r := h.p.jobs.rows[id]
	if r.bar.Value != 1 || !strings.Contains(r.state.Text, "finished in") || !strings.Contains(r.detail.Text, "peak device 7 MiB") {
		t.Errorf("row shows bar %v, %q, %q", r.bar.Value, r.state.Text, r.detail.Text)
	}
	// The report's note shows in the row, before the memory.
	if !slices.Equal(st.Notes, []string{"fake: 7 steps written"}) || !strings.HasPrefix(r.detail.Text, "fake: 7 steps written\npeak device") {
		t.Errorf("notes %q, row detail %q", st.Notes, r.detail.Text)
	}
	// Every partial result reached the live view, in order, then Done.
	l := h.f.lives[0]
	if !slices.Equal(l.partials, []int{0, 1, 2, 3, 4, 5, 6}) || l.done != 1 || l.doneErr != nil {
		t.Errorf("live view got partials %v, done %d (%v)", l.partials, l.done, l.doneErr)
	}
	if l.stages[0] != "work" {
		t.Errorf("partial events carry stage %q, want work", l.stages[0])
	}
	if l.layer == nil || !slices.Contains(h.hl.Layers(), viewer.Layer(l.layer)) {
		t.Error("the result layer did not appear")
	}
	got, err := os.ReadFile(filepath.Join(h.dir, "out.txt"))
	if err != nil || string(got) != "0\n1\n2\n3\n4\n5\n6\n" {
		t.Errorf("output %q, %v", got, err)
	}
	if b := h.p.Jobs().Banner(); !strings.Contains(b, "finished") || !strings.HasSuffix(b, "\nfake: 7 steps written") {
		t.Errorf("banner %q", b)
	}
}

// TestPanelBannerWrapsAboveTheJobs runs a job whose report wraps to
// several lines (as detect's and classify's do) and checks that the
// banner above the job list is as tall as its lines, inside the list's
// header: laid out once, it kept the height of one line and its other
// lines were drawn over the first job's row.
func TestPanelBannerWrapsAboveTheJobs(t *testing.T) {
	h := newPanelHarness(t, cpuProbe)
	h.f.note = strings.Repeat("fake: a report long enough to wrap over several lines of the job list ", 4)
	h.set("count", "2")
	h.ended(h.run())
	jl := h.p.jobs
	h.until("the banner", func() bool { return jl.banner.Visible() })
	var b, top, min fyne.Size
	var at fyne.Position
	fyne.DoAndWait(func() { b, at, top, min = jl.banner.Size(), jl.banner.Position(), jl.top.Size(), jl.banner.MinSize() })
	if b.Height < min.Height-0.5 || at.Y+b.Height > top.Height+0.5 {
		t.Errorf("banner %v at %v (needs %v) in a header %v high", b, at, min, top.Height)
	}
	if one := widgets.WrapLabel("x", widget.SuccessImportance).MinSize().Height; b.Height < 2*one {
		t.Errorf("banner %v high, one line is %v: the report did not wrap", b.Height, one)
	}
}

func TestPanelCancelLeavesNoOutput(t *testing.T) {
	h := newPanelHarness(t, cpuProbe)
	out := filepath.Join(h.dir, "out.txt")
	gate := make(chan struct{})
	h.f.gates[out] = gate
	h.set("count", "10")
	id := h.run()
	gate <- struct{}{} // one step done, then it waits
	h.until("the first step", func() bool { return h.status(id).Event.Done == 1 })
	if st := h.status(id); st.State != job.StateRunning {
		t.Fatalf("job is %v, want running", st.State)
	}
	if r := h.p.jobs.rows[id]; !strings.Contains(r.detail.Text, "work 1/10 steps (10%)") || r.bar.Value != 0.1 || !strings.Contains(r.state.Text, "running on cpu") {
		t.Errorf("running row: %q, %q, bar %v", r.state.Text, r.detail.Text, r.bar.Value)
	}
	test.Tap(h.p.jobs.rows[id].cancel)
	st := h.ended(id)
	if st.State != job.StateCancelled || !errors.Is(st.Err, context.Canceled) {
		t.Fatalf("job ended %v (%v), want cancelled", st.State, st.Err)
	}
	entries, _ := os.ReadDir(h.dir)
	if len(entries) != 1 || entries[0].Name() != "input.txt" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("after cancelling, the folder holds %v; want only the input", names)
	}
	l := h.f.lives[0]
	if l.done != 1 || !errors.Is(l.doneErr, context.Canceled) {
		t.Errorf("live Done got %v (%d calls), want context.Canceled", l.doneErr, l.done)
	}
	if r := h.p.jobs.rows[id]; !strings.Contains(r.state.Text, "no output was written") || !r.cancel.Disabled() {
		t.Errorf("row says %q", r.state.Text)
	}
}

func TestPanelQueuesOneJobPerDevice(t *testing.T) {
	h := newPanelHarness(t, cpuProbe)
	out1, out2 := filepath.Join(h.dir, "out.txt"), filepath.Join(h.dir, "second.txt")
	g1 := make(chan struct{})
	h.f.gates[out1] = g1
	h.set("count", "2")
	id1 := h.run()
	h.set("out", out2)
	id2 := h.run()
	h.until("job 1 to run", func() bool { return h.status(id1).State == job.StateRunning })
	// Job 1 waits on its gate: job 2 must wait its turn on the same
	// device. The queue starts a job only at its submission or when the
	// job before it on the device ends, under its lock: job 2 queued now
	// stays queued until job 1 ends, with no time to wait out.
	for _, e := range h.p.queue.Entries() {
		if e.ID == id2 && e.State != job.StateQueued {
			t.Fatalf("job 2 is %v while job 1 runs on the same device", e.State)
		}
	}
	h.until("job 2's row", func() bool { return h.status(id2).State == job.StateQueued })
	if r := h.p.jobs.rows[id2]; !strings.Contains(r.state.Text, "queued") {
		t.Errorf("queued row says %q", r.state.Text)
	}
	close(g1)
	if st := h.ended(id1); st.State != job.StateFinished {
		t.Fatalf("job 1 ended %v", st.State)
	}
	if st := h.ended(id2); st.State != job.StateFinished {
		t.Fatalf("job 2 ended %v: %v", st.State, st.Err)
	}
	// Cancelling a queued job removes it without running it.
	g3 := make(chan struct{})
	out3, out4 := filepath.Join(h.dir, "third.txt"), filepath.Join(h.dir, "fourth.txt")
	h.f.gates[out3] = g3
	h.set("out", out3)
	id3 := h.run()
	h.set("out", out4)
	id4 := h.run()
	test.Tap(h.p.jobs.rows[id4].cancel)
	if st := h.ended(id4); st.State != job.StateCancelled {
		t.Errorf("queued job cancelled: %v", st.State)
	}
	close(g3)
	h.ended(id3)
	if _, err := os.Stat(out4); !os.IsNotExist(err) {
		t.Errorf("the cancelled queued job wrote %s", out4)
	}
	// Clear drops the ended jobs.
	test.Tap(findButton(t, h.p.jobs.top, "Clear finished"))
	if n := h.p.Jobs().Len(); n != 0 {
		t.Errorf("%d jobs listed after clearing", n)
	}
}

func TestPanelFailureShowsErrorWithoutCrash(t *testing.T) {
	h := newPanelHarness(t, cpuProbe)
	h.f.fail = errors.New("disk on fire")
	h.set("count", "4")
	id := h.run()
	st := h.ended(id)
	if st.State != job.StateFailed || st.Err == nil || !strings.Contains(st.Err.Error(), "disk on fire") {
		t.Fatalf("job ended %v (%v)", st.State, st.Err)
	}
	if !strings.Contains(h.hl.Dialogs().LastError(), "disk on fire") {
		t.Errorf("no error dialog: last error %q", h.hl.Dialogs().LastError())
	}
	if _, err := os.Stat(filepath.Join(h.dir, "out.txt")); !os.IsNotExist(err) {
		t.Error("a failed job left its output")
	}
}

func TestPanelValidationBesideFields(t *testing.T) {
	h := newPanelHarness(t, cpuProbe)
	if h.p.RunButton().Disabled() {
		t.Fatalf("valid defaults cannot run: %v", h.p.PlanError())
	}
	h.set("count", "abc")
	h.planned()
	if msg := h.p.FieldError("count"); !strings.Contains(msg, "whole number") {
		t.Errorf("count abc: message %q", msg)
	}
	if !h.p.RunButton().Disabled() {
		t.Error("Run is enabled with a bad count")
	}
	// The planner's complaint goes beside the field it names.
	h.set("count", "500000")
	h.planned()
	if msg := h.p.FieldError("count"); !strings.Contains(msg, "too many") {
		t.Errorf("count 500000: message %q", msg)
	}
	if h.p.PlanError() == nil || !h.p.RunButton().Disabled() {
		t.Error("Run is enabled though the plan failed")
	}
	h.set("count", "5")
	h.planned()
	if msg := h.p.FieldError("count"); msg != "" || h.p.RunButton().Disabled() {
		t.Errorf("after fixing: message %q, run disabled %v", msg, h.p.RunButton().Disabled())
	}
	h.set("in", filepath.Join(h.dir, "missing.txt"))
	h.planned()
	if msg := h.p.FieldError("in"); !strings.Contains(msg, "no such file") {
		t.Errorf("missing input: %q", msg)
	}
	h.set("in", "")
	h.planned()
	if msg := h.p.FieldError("in"); !strings.Contains(msg, "choose the input") {
		t.Errorf("empty input: %q", msg)
	}
	if _, err := h.p.Run(); err == nil {
		t.Error("Run accepted a request without input")
	}
	h.set("in", h.in)
	h.set("out", filepath.Join(h.dir, "nowhere", "out.txt"))
	h.planned()
	if msg := h.p.FieldError("out"); !strings.Contains(msg, "does not exist") {
		t.Errorf("output in a missing folder: %q", msg)
	}
}

func TestPanelBatchAndMemoryControls(t *testing.T) {
	h := newPanelHarness(t, cpuProbe)
	h.set("count", "100")
	h.planned()
	// Auto: the largest block under 90% of the 64 MiB device, 1 MiB a step.
	if p := h.p.Plan(); p == nil || p.Block() != 57 {
		t.Fatalf("auto plan %v, want blocks of 57", p)
	}
	if s := h.p.pv.blocks.Text; !strings.Contains(s, "work: 100 steps in 2 blocks of 57") {
		t.Errorf("plan preview says %q", s)
	}
	if s := h.p.pv.device.Text(); !strings.Contains(s, "57 MiB of 64 MiB") || !strings.Contains(s, "fake device") {
		t.Errorf("device bar says %q", s)
	}
	if f := h.p.pv.device.Fraction(); f < 0.89 || f > 0.9 {
		t.Errorf("device bar at %v", f)
	}
	// A manual block that does not fit is planned, with a warning beside it.
	h.p.dev.batch.SetText("80")
	h.planned()
	if msg := h.p.dev.batchMsg.Text; h.p.dev.batchMsg.Hidden || !strings.Contains(msg, "may not fit") {
		t.Errorf("batch 80: message %q", msg)
	}
	// Past the usable share but within the device: the warning colour;
	// past the device: the error colour.
	if barColour(60<<20, fakeDevice, fakeDevice*9/10) != theme.Color(theme.ColorNameWarning) ||
		barColour(80<<20, 64<<20, 57<<20) != theme.Color(theme.ColorNameError) ||
		barColour(8<<20, 64<<20, 57<<20) != theme.Color(theme.ColorNameSuccess) {
		t.Errorf("memory bar colours do not follow the margin")
	}
	h.p.dev.batch.SetText("x")
	h.planned()
	if msg := h.p.dev.batchMsg.Text; !strings.Contains(msg, "positive number, or auto") || !h.p.RunButton().Disabled() {
		t.Errorf("batch x: %q, run disabled %v", msg, h.p.RunButton().Disabled())
	}
	h.p.dev.batch.SetText("auto")
	h.p.dev.devMem.SetText("lots")
	h.planned()
	if msg := h.p.dev.memMsg.Text; !strings.Contains(msg, "device memory cap") {
		t.Errorf("device memory lots: %q", msg)
	}
	h.p.dev.devMem.SetText("2GiB")
	h.planned()
	req, err := h.p.Request()
	if err != nil {
		t.Fatal(err)
	}
	if req.Device != (Device{Backend: "auto", Batch: "auto", DeviceMemory: "2GiB"}) {
		t.Errorf("device part of the request %+v", req.Device)
	}
}

func TestPinMemoryFollowsTheDevice(t *testing.T) {
	h := newPanelHarness(t, cpuProbe)
	d := h.p.dev
	if !d.pin.Disabled() || d.pin.Checked {
		t.Error("pin_memory is enabled or on with the CPU backend")
	}
	if !strings.Contains(d.pinNote.Text, "CPU backend") {
		t.Errorf("the disabled pin_memory says %q", d.pinNote.Text)
	}
	if d.key() != "cpu" {
		t.Errorf("queue key %q", d.key())
	}

	h2 := newPanelHarness(t, cudaProbe)
	d = h2.p.dev
	if d.pin.Disabled() || d.pin.Checked {
		t.Error("pin_memory is disabled, or on by default, with a CUDA device")
	}
	if !strings.Contains(d.pinNote.Text, "cannot be swapped out") || !strings.Contains(d.info.Text, "test gpu") {
		t.Errorf("pin note %q, device %q", d.pinNote.Text, d.info.Text)
	}
	test.Tap(d.pin)
	req, _ := h2.p.Request()
	if !req.Device.Pin || d.key() != "cuda:0" {
		t.Errorf("checked pin_memory: request %+v, key %q", req.Device, d.key())
	}
}

func TestMeasureSaysWhetherPinningPays(t *testing.T) {
	// The real probe on the CPU backend (1 MiB copies); a CUDA build's
	// auto would pick the GPU (panel_cuda_test.go measures that).
	h := newPanelHarness(t, nil)
	h.p.dev.backend.SetSelected("cpu")
	test.Tap(h.p.dev.measure)
	h.until("the measurement", func() bool { return !h.p.dev.measure.Disabled() })
	msg := h.p.dev.result.Text
	if !strings.Contains(msg, "GB/s") || !strings.Contains(msg, "pinning does not apply") {
		t.Errorf("measure says %q", msg)
	}
}

func TestRequestCommandLine(t *testing.T) {
	f := &fakePipeline{}
	p := f.pipeline()
	r := Request{Command: "fake", Args: []string{"my scan.nxs", "out.h5"},
		Values: pipeline.Values{"count": 7, "mode": "a", "metrics": []string{"x", "z"}, "fast": true},
		Device: Device{Backend: "cpu", Pin: true, Batch: "4", HostMemory: "8GiB"}}
	want := "voxlab fake 'my scan.nxs' out.h5 --count 7 --fast --backend cpu --pin-memory --batch-size 4 --host-memory 8GiB"
	if got := r.CommandLine(p); got != want {
		t.Errorf("command line\n%s\nwant\n%s", got, want)
	}
}

func TestFieldOfNamesTheField(t *testing.T) {
	p := (&fakePipeline{}).pipeline()
	spec := *p.Spec
	spec.Params = append(spec.Params, pipeline.Param{Name: "mask", Kind: pipeline.Input}, pipeline.Param{Name: "mask-radius", Kind: pipeline.Float})
	p.Spec = &spec
	for msg, want := range map[string]string{
		"count 4: must be odd":                    "count",
		"give --mask-radius or nothing":           "mask-radius",
		"--mask: file is not a volume":            "mask",
		"the mask is 32³ but the maps are 64³":    "",
		"batch-size 0: want a positive number":    "batch-size",
		"not enough device memory for the blocks": "",
	} {
		if got := p.fieldOf(msg); got != want {
			t.Errorf("fieldOf(%q) = %q, want %q", msg, got, want)
		}
	}
}

func TestPanelSuggestsAndOffersOpenLayers(t *testing.T) {
	h := newPanelHarness(t, cpuProbe)
	pl := h.p.cur
	pl.Spec.Suggest = func(open []pipeline.Layer) ([]string, map[string]string) {
		if len(open) == 0 {
			return nil, nil
		}
		return []string{open[0].Spec, filepath.Join(h.dir, "suggested.txt")}, map[string]string{"count": "3"}
	}
	csv := filepath.Join(h.dir, "pts.csv")
	os.WriteFile(csv, []byte("z,y,x\n1,2,3\n"), 0o644)
	if _, err := h.hl.Open(csv); err != nil {
		t.Fatal(err)
	}
	se := h.p.Field("in").(*widget.SelectEntry)
	// The open layer's file is offered as an input.
	h.freshForm()
	se = h.p.Field("in").(*widget.SelectEntry)
	if se.Text != csv || h.p.Field("out").(*widget.Entry).Text != filepath.Join(h.dir, "suggested.txt") {
		t.Errorf("suggested %q, %q", se.Text, h.p.Field("out").(*widget.Entry).Text)
	}
	if h.p.Field("count").(*widget.Entry).Text != "3" {
		t.Error("the suggested parameter was not applied")
	}
	if l := h.hl.LayerFor(csv); l == nil || viewer.Spec(l) != csv {
		t.Errorf("LayerFor(%s) = %v", csv, l)
	}
}

func TestProgressText(t *testing.T) {
	e := job.Event{Stage: "projections", Done: 45, Total: 90, Unit: "slices", Rate: 120, ETA: 375 * time.Millisecond,
		PeakDevice: 7 << 20, PeakHost: 10 << 20}
	want := "projections 45/90 slices (50%) · 120 slices/s · ETA 375ms · peak device 7 MiB, host 10 MiB"
	if got := progressText(e); got != want {
		t.Errorf("progress line\n%s\nwant\n%s", got, want)
	}
	if got := progressText(job.Event{Done: 3}); got != "starting 3 units" {
		t.Errorf("unknown total: %q", got)
	}
}

func TestProgressReachesTheUIThrottled(t *testing.T) {
	h := newPanelHarness(t, cpuProbe)
	h.set("count", "20000")
	start := time.Now()
	id := h.run()
	posted := 0
	for !h.status(id).State.Ended() {
		posted += h.hl.Drain()
		if time.Since(start) > time.Minute {
			t.Fatal("the job did not end")
		}
		time.Sleep(time.Millisecond)
	}
	posted += h.hl.Drain()
	elapsed := time.Since(start)
	// 20000 progress events and partial results: what reaches the UI
	// goroutine is at most one progress update per 50 ms, plus the
	// queue's state changes, the first partial's layer, the end, the
	// plan of the fresh output name the panel offers once the run is
	// submitted (its timer and its result), the suggestions made again
	// once the result's layer is recorded, and the report's notes: a
	// dozen, where an unthrottled path would post thousands.
	limit := int(elapsed/progressInterval) + 14
	t.Logf("%d UI callbacks in %v (limit %d)", posted, elapsed, limit)
	if posted > limit {
		t.Errorf("%d UI callbacks in %v: more than %d (20 a second)", posted, elapsed, limit)
	}
	if st := h.status(id); st.State != job.StateFinished || st.Event.Done != 20000 {
		t.Errorf("job %v at %d", st.State, st.Event.Done)
	}
}
