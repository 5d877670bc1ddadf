package panel

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/job"
)

// inView reports whether o lies inside the window's canvas and, when it
// sits in the form's scroller, inside the scroller's visible part.
func inView(h *panelHarness, o fyne.CanvasObject) bool {
	d := fyne.CurrentApp().Driver()
	c := h.hl.Window().Canvas()
	pos, sz := d.AbsolutePositionForObject(o), o.Size()
	if !o.Visible() || pos.Y < 0 || pos.Y+sz.Height > c.Size().Height || pos.X+sz.Width > c.Size().Width {
		return false
	}
	sp := d.AbsolutePositionForObject(h.p.scroll)
	inScroll := slices.Contains(test.LaidOutObjects(h.p.scroll.Content), o)
	if inScroll && (pos.Y < sp.Y || pos.Y+sz.Height > sp.Y+h.p.scroll.Size().Height) {
		return false
	}
	return true
}

// TestRunAndCancelStayInView: at 1280 x 800 the form is longer than its
// scroller, yet Run and Cancel are in view with the form at the top and
// at the bottom; a Run leaves the form where the user scrolled it; Cancel
// cancels the running job.
func TestRunAndCancelStayInView(t *testing.T) {
	h := newPanelHarness(t, cpuProbe)
	h.hl.Window().Resize(fyne.NewSize(1280, 800))
	h.hl.Drain()
	if h.p.scroll.Content.MinSize().Height <= h.p.scroll.Size().Height {
		t.Fatalf("the form (%v) fits its scroller (%v): nothing to check", h.p.scroll.Content.MinSize(), h.p.scroll.Size())
	}
	for _, y := range []float32{0, 1e6} {
		h.p.scroll.ScrollToOffset(fyne.NewPos(0, y))
		h.p.offset = h.p.scroll.Offset
		if !inView(h, h.p.RunButton()) || !inView(h, h.p.CancelButton()) {
			t.Errorf("form scrolled to %v: Run in view %v, Cancel %v", h.p.scroll.Offset, inView(h, h.p.RunButton()), inView(h, h.p.CancelButton()))
		}
	}
	if !h.p.CancelButton().Disabled() {
		t.Error("Cancel is on with no job")
	}
	// The user scrolls halfway, then runs: the form stays there.
	mid := fyne.NewPos(0, (h.p.scroll.Content.MinSize().Height-h.p.scroll.Size().Height)/2)
	test.Scroll(h.hl.Window().Canvas(), fyne.CurrentApp().Driver().AbsolutePositionForObject(h.p.scroll).Add(fyne.NewPos(20, 20)), 0, -mid.Y)
	at := h.p.scroll.Offset
	if at.Y <= 0 {
		t.Fatalf("the wheel did not scroll the form (%v)", at)
	}
	out := filepath.Join(h.dir, "out.txt")
	gate := make(chan struct{})
	h.f.gates[out] = gate
	id := h.run()
	h.until("the job to run", func() bool { return h.status(id).State == job.StateRunning })
	h.planned()
	h.hl.Drain()
	if h.p.scroll.Offset != at {
		t.Errorf("after Run the form moved from %v to %v", at, h.p.scroll.Offset)
	}
	if !inView(h, h.p.RunButton()) || h.p.CancelButton().Disabled() || !inView(h, h.p.CancelButton()) {
		t.Fatalf("while the job runs: Run in view %v, Cancel on %v and in view %v", inView(h, h.p.RunButton()), !h.p.CancelButton().Disabled(), inView(h, h.p.CancelButton()))
	}
	test.Tap(h.p.CancelButton())
	if st := h.ended(id); st.State != job.StateCancelled {
		t.Errorf("Cancel: the job ended %v", st.State)
	}
	if !h.p.CancelButton().Disabled() {
		t.Error("Cancel still on once no job runs")
	}
}

// TestCancelledJobFreesItsName: the output name a job claimed is offered
// again once the job is cancelled (it left nothing): -2 after a finished
// run, not -3.
func TestCancelledJobFreesItsName(t *testing.T) {
	h := newPanelHarnessFor(t, cpuProbe, func(pl *Pipeline) { pl.Spec.Args[1].Default = "result.txt" })
	h.freshForm()
	h.set("in", h.in)
	out := h.p.Field("out").(*widget.Entry)
	first := filepath.Join(h.dir, "input-result.txt")
	second := filepath.Join(h.dir, "input-result-2.txt")
	if out.Text != first {
		t.Fatalf("output %q, want %q", out.Text, first)
	}
	h.ended(h.run())
	if out.Text != second {
		t.Fatalf("after a finished run: %q, want %q", out.Text, second)
	}
	gate := make(chan struct{})
	h.f.gates[second] = gate
	id := h.run()
	if want := filepath.Join(h.dir, "input-result-3.txt"); out.Text != want {
		t.Fatalf("while -2 runs: %q, want %q", out.Text, want)
	}
	h.p.Cancel(id)
	h.ended(id)
	h.hl.Drain()
	if _, err := os.Stat(second); !os.IsNotExist(err) {
		t.Fatalf("the cancelled job left %s", second)
	}
	if out.Text != second {
		t.Errorf("after cancelling the run of -2: output %q, want %q again", out.Text, second)
	}
}

// TestOutputBesideOMENames: OME's double extensions are dropped with
// the extension.
func TestOutputBesideOMENames(t *testing.T) {
	for in, want := range map[string]string{
		"/d/x.ome.zarr":        "/d/x-dezinged.h5",
		"/d/x.ome.zarr/":       "/d/x-dezinged.h5",
		"/d/x.OME.tif":         "/d/x-dezinged.h5",
		"/d/scan.nxs":          "/d/scan-dezinged.h5",
		"/d/home.ome":          "/d/home-dezinged.h5",
		"/d/.ome.zarr":         "/d/.ome-dezinged.h5",
		"/d/brain.ome.tiff:/c": "/d/brain-dezinged.h5",
	} {
		if got := OutputBeside(in, "dezinged.h5"); got != want {
			t.Errorf("OutputBeside(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSplitExtOME: the names numbered after an output keep OME's double
// extension whole (out-2.ome.zarr, not out.ome-2.zarr).
func TestSplitExtOME(t *testing.T) {
	for in, want := range map[string][2]string{
		"/d/out.ome.zarr": {"/d/out", ".ome.zarr"},
		"/d/out.OME.tif":  {"/d/out", ".OME.tif"},
		"/d/out.zarr":     {"/d/out", ".zarr"},
		"/d/out.h5":       {"/d/out", ".h5"},
		"/d/.ome.zarr":    {"/d/.ome", ".zarr"},
		"/d/out":          {"/d/out", ""},
	} {
		if stem, ext := splitExt(in); stem != want[0] || ext != want[1] {
			t.Errorf("splitExt(%q) = %q, %q, want %q, %q", in, stem, ext, want[0], want[1])
		}
	}
}
