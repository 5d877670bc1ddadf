package viewer

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/volume"
)

func TestContinuousAutoContrastFollowsSlices(t *testing.T) {
	h := newHarness(t)
	l, _ := h.v.AddImage("img", memVolume(t, volume.Uint16, [3]int{4, 30, 30}, func(z, y, x int) float64 {
		return float64(1000*z + 10*x)
	}), ImageOptions{})
	h.settle()
	h.v.ctl.auto.SetChecked(true)
	if !l.ContinuousAutoContrast() {
		t.Fatal("the continuous check did not turn auto-contrast on")
	}
	for _, z := range []int{2, 3} {
		h.v.Dims().SetSlice(z)
		h.settle()
		if lo, hi := l.ContrastLimits(); lo != float64(1000*z) || hi != float64(1000*z+290) {
			t.Errorf("slice %d: limits %v %v, want its percentiles %d %d", z, lo, hi, 1000*z, 1000*z+290)
		}
	}
	// Setting limits by hand stops following.
	l.SetContrastLimits(0, 5000)
	h.v.Dims().SetSlice(1)
	h.settle()
	if lo, hi := l.ContrastLimits(); lo != 0 || hi != 5000 || h.v.ctl.auto.Checked {
		t.Errorf("manual limits did not stick: %v %v, check %v", lo, hi, h.v.ctl.auto.Checked)
	}
}

func TestPlayAdvancesAndStops(t *testing.T) {
	h := newHarness(t)
	h.v.AddImage("img", memVolume(t, volume.Uint8, [3]int{5, 4, 4}, func(z, y, x int) float64 { return float64(z) }), ImageOptions{})
	h.settle()
	h.v.dims.play.OnTapped()
	if !h.v.Playing() {
		t.Fatal("play did not start")
	}
	deadline := time.Now().Add(2 * time.Minute)
	for h.v.Dims().Slice() < 2 && time.Now().Before(deadline) {
		time.Sleep(playInterval / 4)
		h.q.drain()
	}
	if got := h.v.Dims().Slice(); got < 2 {
		t.Errorf("play did not advance the slices: at %d", got)
	}
	h.v.dims.play.OnTapped()
	if h.v.Playing() {
		t.Fatal("play did not stop")
	}
	// Once its goroutine has returned, play posts nothing more: the
	// steps it posted before run, and the slice stays where they left it.
	select {
	case <-h.v.dims.player.ended():
	case <-time.After(2 * time.Minute):
		t.Fatal("the play goroutine did not end after stop")
	}
	h.q.drain()
	at := h.v.Dims().Slice()
	h.settle() // the loads the last steps asked for: they do not step
	if h.v.Dims().Slice() != at {
		t.Errorf("slices still advance after play ended: %d -> %d", at, h.v.Dims().Slice())
	}
}

func TestDropAndPanels(t *testing.T) {
	h := newHarness(t)
	csv := filepath.Join(t.TempDir(), "dropped.csv")
	os.WriteFile(csv, []byte("z,y,x\n0,1,1\n"), 0o644)
	h.v.files.dropped(fyne.NewPos(10, 10), []fyne.URI{storage.NewFileURI(csv)})
	if ls := h.v.Layers(); len(ls) != 1 || ls[0].Name() != "dropped.csv" {
		t.Fatalf("dropping a CSV gave layers %v", ls)
	}
	// The processing panel docks beside the canvas; plots get a tab.
	h.v.Dock().AddPanel("Process", widget.NewLabel("panel"))
	if len(h.v.dock.side.Items) != 1 || h.v.dock.side.Items[0].Text != "Process" {
		t.Error("panel not docked")
	}
	tab := h.v.Dock().AddTab("Plots", widget.NewLabel("plots"))
	h.v.Dock().ShowTab(tab)
	if h.v.dock.tabs.Selected() != tab || len(h.v.dock.tabs.Items) != 2 {
		t.Error("plots tab not shown")
	}
	h.v.Dock().ShowTab(nil)
	if h.v.dock.tabs.SelectedIndex() != 0 {
		t.Error("ShowTab(nil) did not return to the view")
	}
}

// Inside Batch nothing is drawn, so only the slice finally chosen is read
// and sets the contrast limits.
func TestBatchReadsOnlyTheChosenSlice(t *testing.T) {
	h := newHarness(t)
	base := memVolume(t, volume.Uint16, [3]int{50, 8, 8}, func(z, y, x int) float64 { return float64(100*z + x) })
	src := &slowSource{Source: base.Source(), fail: -1}
	var l *ImageLayer
	h.v.Batch(func() {
		l, _ = h.v.AddImage("img", volume.New("img", src), ImageOptions{})
		h.v.Dims().SetSlice(40)
	})
	h.settle()
	if reads := src.reads(); len(reads) == 0 || reads[0] != 40 {
		t.Errorf("reads %v: the first read must be slice 40", reads)
	}
	if lo, hi := l.ContrastLimits(); lo != 4000 || hi != 4007 {
		t.Errorf("limits %v %v, want slice 40's (4000 4007)", lo, hi)
	}
}

// TestOrthoContrastFromTheMainSlice: with the orthogonal views on, the
// limits come from the slice of the dims' axis (the xy panel), not from
// whichever panel drew or loaded last: a side view's percentiles (here
// across every z) would give other limits, and the screenshot of one
// command would differ from run to run.
func TestOrthoContrastFromTheMainSlice(t *testing.T) {
	h := newHarness(t)
	l, _ := h.v.AddImage("img", memVolume(t, volume.Uint16, [3]int{4, 30, 30}, func(z, y, x int) float64 {
		return float64(1000*z + 10*x)
	}), ImageOptions{})
	h.v.Panels().SetOrtho(true)
	h.v.Dims().SetPoint([3]int{2, 15, 15})
	h.settle()
	if lo, hi := l.ContrastLimits(); lo != 2000 || hi != 2290 {
		t.Errorf("first limits %v %v, want the xy slice's percentiles 2000 2290", lo, hi)
	}
	h.v.ctl.auto.SetChecked(true)
	for _, z := range []int{3, 1} {
		h.v.Dims().SetSlice(z)
		h.settle()
		if lo, hi := l.ContrastLimits(); lo != float64(1000*z) || hi != float64(1000*z+290) {
			t.Errorf("continuous, slice %d: limits %v %v, want its percentiles %d %d", z, lo, hi, 1000*z, 1000*z+290)
		}
	}
	// The side panels drawing last (as they do when their slices load
	// after the xy panel's) leave the limits the xy slice's.
	for _, a := range []Axis{Y, X} {
		if _, exact := l.planeFor(a, 15, 0); !exact {
			t.Fatalf("the %v panel's slice is not loaded", a)
		}
		if lo, hi := l.ContrastLimits(); lo != 1000 || hi != 1290 {
			t.Errorf("continuous, after the %v panel drew: limits %v %v, want the xy slice's 1000 1290", a, lo, hi)
		}
	}
	if lo, hi := l.ContrastRange(); lo > 0 || hi < 3290 {
		t.Errorf("range %v %v: the side views' values (0 to 3290) should still widen it", lo, hi)
	}
}
