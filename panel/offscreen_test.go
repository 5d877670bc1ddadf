package panel

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/viewer"
	"github.com/voxlab/voxlab/widgets"
)

// panelScene docks the processing panel in hl with the fake pipeline
// planned on in and a plots tab of a filling matrix on show beside a
// volume, as `voxlab gui --screenshot` does: the plan scrolled into view
// once the plan and the plots have settled.
func panelScene(t *testing.T, hl *viewer.Headless, vol, in, out string) {
	t.Helper()
	f := &fakePipeline{gates: map[string]chan struct{}{}}
	p := NewPanel(hl.Viewer, PanelOptions{Probe: cpuProbe, PlanDelay: time.Millisecond}, f.pipeline())
	t.Cleanup(func() {
		p.Close()
		hl.Async().Wait()
		hl.Close()
	})
	if _, err := hl.Open(vol); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{"in": in, "out": out, "count": "100", "batch-size": "20"} {
		if err := p.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	plots := NewPlots(hl.Viewer, "Plots")
	plots.Set(Matrix{Name: "l2", Unit: "distance", XLabel: "submitted", YLabel: "ground truth", Rows: 3, Cols: 4,
		Values: []float64{1, 2, 3, 4, 5, 6, math.NaN(), 8, 9, 10, 11, 12}})
	hl.Dock().ShowTab(plots.Tab())
	settled := func() bool { return !p.Planning() && plots.Idle() && hl.Idle() }
	if err := hl.Until(time.Minute, settled); err != nil {
		t.Fatal(err)
	}
	p.ShowPlan()
	if err := hl.Settle(time.Minute); err != nil {
		t.Fatal(err)
	}
	if p.Plan() == nil {
		t.Fatalf("no plan on show: %v", p.PlanError())
	}
	if heat, _ := plots.Images("l2"); heat == nil {
		t.Fatal("no plots on show")
	}
}

// TestOffscreenMatchesFyne: the processing panel with its plan, memory
// bars and plots, rendered as `voxlab gui --screenshot` renders it (an
// offscreen viewer, Headless.Capture), is pixel for pixel what Fyne's
// test driver draws of it.
func TestOffscreenMatchesFyne(t *testing.T) {
	dir := t.TempDir()
	vol := filepath.Join(dir, "vol.npy")
	vals := make([]uint16, 4*30*40)
	for i := range vals {
		vals[i] = uint16(i * 37 % 4000)
	}
	testutil.WriteNPY(t, vol, []int{4, 30, 40}, vals)
	in, out := filepath.Join(dir, "input.txt"), filepath.Join(dir, "out.txt")
	os.WriteFile(in, []byte("x"), 0o644)
	const w, h = 1280, 800

	off := viewer.NewOffscreen(w, h)
	panelScene(t, off, vol, in, out)
	got := off.Capture()

	test.NewTempApp(t).Settings().SetTheme(widgets.Theme())
	win := test.NewTempWindow(t, nil)
	hl := viewer.NewHeadless(win)
	win.Resize(fyne.NewSize(w, h))
	panelScene(t, hl, vol, in, out)
	want := hl.Capture()

	testutil.SamePixels(t, "offscreen_panel.png", got, want)
}
