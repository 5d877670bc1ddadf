package main

import (
	"image"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/panel"
	"github.com/voxlab/voxlab/processing/demo"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/viewer"
	"github.com/voxlab/voxlab/widgets"
)

// countingLive counts the partial results a pipeline's live view gets.
type countingLive struct {
	panel.Live
	n *atomic.Int64
}

func (c countingLive) Partial(e job.Event) {
	c.n.Add(1)
	c.Live.Partial(e)
}

// guiHarness is the viewer with the processing panel on the demo data,
// driven headless with Fyne's test driver.
type guiHarness struct {
	t        *testing.T
	hl       *viewer.Headless
	p        *panel.Panel
	dir      string
	partials atomic.Int64
}

func newGUIHarness(t *testing.T) *guiHarness {
	t.Helper()
	dir := writeDemo(t)
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	hl := viewer.NewHeadless(w)
	w.Resize(fyne.NewSize(1400, 900))
	h := &guiHarness{t: t, hl: hl, dir: dir}
	hl.Batch(func() {
		for _, rel := range []string{demo.TomoScan, demo.BrainPlanes, demo.MapsGT} {
			if _, err := hl.Open(filepath.Join(dir, rel)); err != nil {
				t.Fatal(err)
			}
		}
	})
	pls := guiPipelines()
	var names []string
	for _, pl := range pls {
		if n := pl.Spec.Name; n == "dezing" || n == "detect" || n == "distance" {
			names = append(names, n)
		}
	}
	if !slices.Equal(names, []string{"dezing", "detect", "distance"}) {
		t.Fatalf("the panel offers %q of the three, want dezing, detect and distance in that order", names)
	}
	for _, pl := range pls {
		spec := pl.Spec
		pl.Live = func(v *viewer.Viewer, r panel.Request) panel.Live {
			return countingLive{panel.NewLive(v, spec, r.Args), &h.partials}
		}
	}
	h.p = panel.NewPanel(hl.Viewer, panel.PanelOptions{PlanDelay: time.Millisecond}, pls...)
	t.Cleanup(func() {
		h.p.Close()
		hl.Async().Wait()
		hl.Close()
	})
	return h
}

func (h *guiHarness) until(what string, cond func() bool) {
	h.t.Helper()
	if err := h.hl.Until(2*time.Minute, cond); err != nil {
		h.t.Fatalf("%s: %v", what, err)
	}
}

// choose selects a pipeline, applies settings and waits for its plan.
func (h *guiHarness) choose(cmd string, set map[string]string) {
	h.t.Helper()
	if err := h.p.Select(cmd); err != nil {
		h.t.Fatal(err)
	}
	for k, v := range set {
		if err := h.p.Set(k, v); err != nil {
			h.t.Fatal(err)
		}
	}
	h.until("the plan", func() bool { return !h.p.Planning() })
	if err := h.p.PlanError(); err != nil {
		h.t.Fatalf("%s: plan: %v", cmd, err)
	}
}

// runToEnd taps Run and waits for the job to end.
func (h *guiHarness) runToEnd() panel.JobStatus {
	h.t.Helper()
	n := h.p.Jobs().Len()
	test.Tap(h.p.RunButton())
	if h.p.Jobs().Len() != n+1 {
		h.t.Fatal("Run did not submit a job")
	}
	id := h.p.Jobs().Statuses()[n].ID
	h.until("the job", func() bool {
		st, _ := h.p.Jobs().Status(id)
		return st.State.Ended()
	})
	// Let the results' layers and plots arrive.
	h.until("the results", func() bool { return h.hl.Idle() })
	st, _ := h.p.Jobs().Status(id)
	return st
}

func (h *guiHarness) layer(name string) viewer.Layer {
	for _, l := range h.hl.Layers() {
		if l.Name() == name {
			return l
		}
	}
	return nil
}

func finished(t *testing.T, st panel.JobStatus) {
	t.Helper()
	if st.State != job.StateFinished {
		t.Fatalf("%s ended %v: %v", st.Name, st.State, st.Err)
	}
	if st.Event.Fraction() != 1 || st.Event.Done != st.Event.Total || st.Event.Total == 0 {
		t.Errorf("%s: final progress %d/%d %s", st.Name, st.Event.Done, st.Event.Total, st.Event.Unit)
	}
	if st.Event.PeakDevice == 0 {
		t.Errorf("%s: no peak device memory reported", st.Name)
	}
}

// TestGUIDezingShowsBlocksBesideTheScan: the dezinged blocks arrive in
// a layer that is added and selected, the output file replaces it, and
// the view is the user's: every other layer keeps its visibility and the
// grid its state, and showing the result side by side with the scan is
// one click on the offer above the canvas.
func TestGUIDezingShowsBlocksBesideTheScan(t *testing.T) {
	h := newGUIHarness(t)
	// The user hid the brain.
	brain := h.layer("planes")
	if brain == nil {
		t.Fatalf("no brain layer; layers %v", names(h.hl.Layers()))
	}
	brain.SetVisible(false)
	visible := map[viewer.Layer]bool{}
	for _, l := range h.hl.Layers() {
		visible[l] = l.Visible()
	}
	// Blocks of 30 projections: three partial results.
	h.choose("dezing", map[string]string{"kernel": "5", "batch-size": "30"})
	req, _ := h.p.Request()
	want := filepath.Join(h.dir, demo.TomoScan)
	if req.Args[0] != want || req.Args[1] != filepath.Join(h.dir, "tomo", "scan-dezinged.h5") {
		t.Fatalf("suggested %v, want the demo scan and a sibling output", req.Args)
	}
	if req.Values.Int("kernel") != 5 || req.Values.Float("dif") != 1000 {
		t.Errorf("parameters %v: want kernel 5 and the default dif 1000", req.Values)
	}
	if p := h.p.Plan(); p == nil || p.Block() != 30 {
		t.Errorf("plan %v, want blocks of 30", p)
	}
	st := h.runToEnd()
	finished(t, st)
	if n := h.partials.Load(); n != 3 {
		t.Errorf("%d partial results reached the viewer, want 3 blocks", n)
	}
	if _, err := os.Stat(req.Args[1]); err != nil {
		t.Fatal(err)
	}
	res := h.layer("scan-dezinged.h5:data")
	if res == nil || !res.Visible() {
		t.Fatalf("no visible result layer; layers %v", names(h.hl.Layers()))
	}
	if h.layer("scan-dezinged.h5 (running)") != nil {
		t.Error("the live layer was not replaced by the output file")
	}
	if h.hl.Selected() != res {
		t.Errorf("selected %v, want the result", h.hl.Selected())
	}
	for l, was := range visible {
		if l.Visible() != was {
			t.Errorf("the result changed %s's visibility to %v", l.Name(), l.Visible())
		}
	}
	if h.hl.Panels().Grid() {
		t.Error("the result turned grid mode on")
	}
	in, offered, compare := h.hl.Offer().Layers()
	if in != h.hl.LayerFor(want) || offered != res {
		t.Fatalf("offer to compare %v with %v, want the scan and the result", in, offered)
	}
	test.Tap(compare)
	if !h.hl.Panels().Grid() || !in.Visible() || !res.Visible() || brain.Visible() {
		t.Errorf("compare side by side: grid %v, scan %v, result %v", h.hl.Panels().Grid(), in.Visible(), res.Visible())
	}
	if il := res.(*viewer.ImageLayer); il.Volume().Shape != [3]int{90, 128, 160} {
		t.Errorf("result shape %v", il.Volume().Shape)
	}
	// The next run gets a fresh output name.
	if req2, _ := h.p.Request(); req2.Args[1] != filepath.Join(h.dir, "tomo", "scan-dezinged-2.h5") {
		t.Errorf("next output %s", req2.Args[1])
	}
}

// TestGUIOutputsFollowTheInput: each pipeline's output is named after
// its input, beside it; choosing another input renames an output the
// user has not edited, and leaves an edited one alone.
func TestGUIOutputsFollowTheInput(t *testing.T) {
	h := newGUIHarness(t)
	for _, c := range []struct {
		cmd, out string
		field    string
	}{
		{"dezing", "tomo/scan-dezinged.h5", "out"},
		{"detect", "brain/planes-cells.csv", "out"},
		{"distance", "maps/gt-distances", "out"},
	} {
		if err := h.p.Select(c.cmd); err != nil {
			t.Fatal(err)
		}
		req, _ := h.p.Request()
		if got := req.Args[len(req.Args)-1]; got != filepath.Join(h.dir, c.out) {
			t.Errorf("%s: output %s, want %s", c.cmd, got, filepath.Join(h.dir, c.out))
		}
	}
	h.choose("dezing", nil)
	other := filepath.Join(h.dir, "maps", "gt.npy")
	h.p.Set("in", other)
	if req, _ := h.p.Request(); req.Args[1] != filepath.Join(h.dir, "maps", "gt-dezinged.h5") {
		t.Errorf("after choosing %s: output %s", other, req.Args[1])
	}
	mine := filepath.Join(h.dir, "mine.h5")
	h.p.Set("out", mine)
	h.p.Set("in", filepath.Join(h.dir, demo.TomoScan))
	if req, _ := h.p.Request(); req.Args[1] != mine {
		t.Errorf("the edited output became %s", req.Args[1])
	}
}

// TestGUIRunOnAnyFormat: `voxlab gui FILE --run PIPELINE` runs on FILE
// whatever format voxlab reads it in (a plain NPY here), writing the
// output beside it.
func TestGUIRunOnAnyFormat(t *testing.T) {
	dir := t.TempDir()
	vol := filepath.Join(dir, "vol.npy")
	writeNPY(t, vol, [3]int{12, 24, 28}, func(z, y, x int) uint16 { return uint16(100 + (z*7+y*3+x)%50) })
	for _, c := range []struct{ run, out string }{
		{"dezing", "vol-dezinged.h5"},
		{"detect", "vol-cells.csv"},
	} {
		shot := filepath.Join(dir, c.run+".png")
		code, out, errOut := runCmd("gui", vol, "--run", c.run, "--screenshot", shot, "--size", "1000x700")
		if code != 0 {
			t.Errorf("gui vol.npy --run %s: exit %d: %s%s", c.run, code, out, errOut)
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, c.out)); err != nil {
			t.Errorf("--run %s: %v", c.run, err)
		}
	}
	// A slice past the data is an error, as for view.
	if code, _, e := runCmd("gui", vol, "--slice", "900", "--screenshot", filepath.Join(dir, "x.png")); code != 2 || !strings.Contains(e, "--slice 900: the data have 12 slices") {
		t.Errorf("gui --slice 900: exit %d: %s", code, e)
	}
}

func names(ls []viewer.Layer) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Name())
	}
	return out
}

func TestGUIDetectShowsCellsPlaneByPlane(t *testing.T) {
	h := newGUIHarness(t)
	h.choose("detect", map[string]string{"batch-size": "4"})
	req, _ := h.p.Request()
	if req.Args[0] != filepath.Join(h.dir, demo.BrainPlanes) {
		t.Fatalf("suggested input %s", req.Args[0])
	}
	st := h.runToEnd()
	finished(t, st)
	if n := h.partials.Load(); n < 2 {
		t.Errorf("%d partial results: cells did not arrive as the planes were done", n)
	}
	l, ok := h.layer(filepath.Base(req.Args[1])).(*viewer.PointsLayer)
	if !ok {
		t.Fatalf("no points layer of the result; layers %v", names(h.hl.Layers()))
	}
	truth, err := viewer.ReadPointsCSV(filepath.Join(h.dir, demo.BrainCells))
	if err != nil {
		t.Fatal(err)
	}
	// The demo's cells are found (the detect tests hold the accuracy to
	// 95%; here the layer must hold the run's result).
	if l.Len() < len(truth)*9/10 || l.Len() > len(truth)*11/10 {
		t.Errorf("result layer has %d cells, the demo %d", l.Len(), len(truth))
	}
}

func TestGUIDistanceFillsHeatmapsAndPlots(t *testing.T) {
	h := newGUIHarness(t)
	h.choose("distance", map[string]string{"metrics": "l2,corr,fsc", "low-memory": "true", "chunk-size": "7"})
	req, _ := h.p.Request()
	if req.Args[1] != filepath.Join(h.dir, demo.MapsSubmitted) || req.Values.String("mask") != filepath.Join(h.dir, demo.MapsMask) {
		t.Fatalf("suggested %v, mask %q", req.Args, req.Values.String("mask"))
	}
	st := h.runToEnd()
	finished(t, st)
	// 40 ground-truth maps in chunks of 7: 6 chunks of each of 3 metrics.
	if n := h.partials.Load(); n != 18 {
		t.Errorf("%d partial results, want 18 chunks", n)
	}
	for _, m := range []string{"l2", "corr", "fsc"} {
		hm, ok := h.layer(m).(*viewer.HeatmapLayer)
		if !ok {
			t.Fatalf("no heat-map layer %s; layers %v", m, names(h.hl.Layers()))
		}
		if r, c := hm.Shape(); r != 40 || c != 10 {
			t.Errorf("%s is %dx%d, want 40x10", m, r, c)
		}
		if _, err := os.Stat(filepath.Join(req.Args[2], m+".npy")); err != nil {
			t.Error(err)
		}
	}
	if !strings.HasPrefix(h.hl.Layers()[len(h.hl.Layers())-1].Name(), "fsc") {
		t.Errorf("top layer %s", h.hl.Layers()[len(h.hl.Layers())-1].Name())
	}
}

func TestGUICancelLeavesNoOutput(t *testing.T) {
	h := newGUIHarness(t)
	// One projection per block: plenty of chances to stop.
	h.choose("dezing", map[string]string{"batch-size": "1", "kernel": "13"})
	req, _ := h.p.Request()
	n := h.p.Jobs().Len()
	test.Tap(h.p.RunButton())
	id := h.p.Jobs().Statuses()[n].ID
	h.until("the first block", func() bool { return h.partials.Load() > 0 })
	if !h.p.Cancel(id) {
		t.Fatal("the job had already ended")
	}
	h.until("the cancellation", func() bool {
		st, _ := h.p.Jobs().Status(id)
		return st.State.Ended()
	})
	st, _ := h.p.Jobs().Status(id)
	if st.State != job.StateCancelled {
		t.Fatalf("job ended %v: %v", st.State, st.Err)
	}
	h.until("the UI", func() bool { return h.hl.Idle() })
	entries, _ := os.ReadDir(filepath.Dir(req.Args[1]))
	for _, e := range entries {
		if e.Name() != "scan.nxs" && e.Name() != "zingers.csv" {
			t.Errorf("a cancelled run left %s", e.Name())
		}
	}
	if h.layer("scan-dezinged.h5 (running)") != nil {
		t.Error("the live layer of a cancelled run stayed")
	}
}

func TestGUIScreenshotAfterRun(t *testing.T) {
	dir := writeDemo(t)
	shot := filepath.Join(t.TempDir(), "detect.png")
	code, out, errOut := runCmd("gui", "--demo", dir, "--run", "detect", "--set", "threshold=9", "--screenshot", shot, "--size", "1200x800")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	img := testutil.ReadPNG(t, shot)
	if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 800 {
		t.Errorf("screenshot %v", b)
	}
	// The run wrote its result beside the planes before the capture.
	if _, err := os.Stat(filepath.Join(dir, "brain", "planes-cells.csv")); err != nil {
		t.Error(err)
	}
	// The detections are drawn: green ring pixels over the brain.
	green := 0
	for y := 0; y < 800; y++ {
		for x := 0; x < 1200; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if g>>8 > 200 && r>>8 < 120 && b>>8 < 150 {
				green++
			}
		}
	}
	if green < 100 {
		t.Errorf("only %d green pixels: no cells on screen", green)
	}
	for _, bad := range [][]string{
		{"gui", "--run", "nosuch", "--screenshot", shot},
		{"gui", "--set", "kernel=3", "--screenshot", shot},
		{"gui", "--demo", dir, "--run", "dezing", "--set", "kernel", "--screenshot", shot},
	} {
		if code, _, _ := runCmd(bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
	if code, _, e := runCmd("gui", "--demo", dir, "--run", "dezing", "--set", "nosuch=1", "--screenshot", shot); code != 2 || !strings.Contains(e, "nosuch") {
		t.Errorf("unknown --set: exit %d: %s", code, e)
	}
}

// TestGUICtrlCUnderDisplay opens the real window on the demo with a job
// queued, waits until the screen shows the window drawn (grabbing it
// until it does), and interrupts it: the window closes cleanly (exit 0)
// and the job leaves no temporary file.
func TestGUICtrlCUnderDisplay(t *testing.T) {
	needDisplay(t)
	imp := needTool(t, "import", "ImageMagick's import (Debian package imagemagick)")
	dir := writeDemo(t)
	c := startChild(t, strings.Join([]string{"gui", "--demo", dir, "--run", "dezing", "--set", "batch-size=1", "--size", "1000x700"}, "\t"))
	screenUntil(t, imp, "the window", c, drawn)
	interruptChild(t, c)
	entries, _ := os.ReadDir(filepath.Join(dir, "tomo"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("a temporary file is left: %s", e.Name())
		}
	}
}

// drawn reports whether a tenth of a screen grab is voxlab's theme
// background: the window (900 x 600 or more of Xvfb's 1280 x 1024, much
// of it background) is mapped and painted. An empty Xvfb screen, black or its stippled weave, has
// none of that colour.
func drawn(img image.Image) bool {
	r0, g0, b0, _ := widgets.Theme().Color(theme.ColorNameBackground, theme.VariantDark).RGBA()
	bd := img.Bounds()
	n, hit := 0, 0
	for y := bd.Min.Y; y < bd.Max.Y; y += 5 {
		for x := bd.Min.X; x < bd.Max.X; x += 5 {
			r, g, b, _ := img.At(x, y).RGBA()
			n++
			if r>>8 == r0>>8 && g>>8 == g0>>8 && b>>8 == b0>>8 {
				hit++
			}
		}
	}
	return 10*hit >= n
}

func TestGUIPlanPreviewFollowsTheDeviceControls(t *testing.T) {
	h := newGUIHarness(t)
	h.choose("dezing", nil)
	// Auto cuts the demo's 90 projections into blocks that let reading,
	// computing and writing overlap, though the budget holds them all.
	if p := h.p.Plan(); p == nil || p.Block() < 3 || p.Block() >= 90 || p.PeakDevice == 0 {
		t.Fatalf("auto plan %+v", p)
	}
	// A device too small for one block: the planner's error, no Run.
	h.p.Set("device-memory", "64KiB")
	h.until("the plan", func() bool { return !h.p.Planning() })
	if err := h.p.PlanError(); err == nil || !strings.Contains(err.Error(), "not enough device memory") {
		t.Errorf("64 KiB device: %v", err)
	}
	if !h.p.RunButton().Disabled() {
		t.Error("Run is enabled though nothing fits")
	}
	// A manual block larger than fits is planned, with a warning.
	h.p.Set("device-memory", "4MiB")
	h.p.Set("batch-size", "90")
	h.until("the plan", func() bool { return !h.p.Planning() })
	if p := h.p.Plan(); p == nil || p.Block() != 90 || len(p.Warnings) == 0 || !strings.Contains(p.Warnings[0], "may not fit") {
		t.Errorf("manual block 90 in 4 MiB: %+v", p)
	}
	// Auto under the same cap picks a block that fits.
	h.p.Set("batch-size", "auto")
	h.until("the plan", func() bool { return !h.p.Planning() })
	if p := h.p.Plan(); p == nil || p.Block() >= 90 || len(p.Warnings) != 0 || float64(p.PeakDevice) > 0.9*float64(4<<20) {
		t.Errorf("auto in 4 MiB: %+v", p)
	}
	// The same limits reach the command: the job runs in the planned blocks.
	st := h.runToEnd()
	finished(t, st)
	if st.Event.PeakDevice > 4<<20 {
		t.Errorf("peak device %d over the 4 MiB cap", st.Event.PeakDevice)
	}
}
