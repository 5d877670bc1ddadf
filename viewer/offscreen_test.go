package viewer

import (
	"errors"
	"image"
	"math"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/widgets"
)

// offscreenScene fills a viewer with what a screenshot shows: image
// layers in two colormaps, a stack with its map slider, points, a heat
// map, grid mode, the compare offer above the canvas, the controls of
// the selected layer and an error dialog over the window.
func offscreenScene(t *testing.T) func(v *Viewer) error {
	return func(v *Viewer) error {
		raw, err := v.AddImage("raw", memVolume(t, volume.Uint16, [3]int{6, 60, 80}, func(z, y, x int) float64 {
			return float64((x*700 + y*300 + z*50) % 65536)
		}), ImageOptions{Colormap: "viridis", Contrast: [2]float64{100, 65400}})
		if err != nil {
			return err
		}
		res, err := v.AddImage("result", memVolume(t, volume.Uint8, [3]int{6, 60, 80}, func(z, y, x int) float64 {
			return float64((x*3 + y*2) % 256)
		}), ImageOptions{Colormap: "inferno", Gamma: 0.7})
		if err != nil {
			return err
		}
		// Contrast limits given: the first plane shown sets automatic
		// ones, and which plane a loader delivers before SetSlice and
		// SetMap take effect is a matter of timing (114..65350 once,
		// for the raw layer's middle plane, against 100..65400).
		if _, err := v.AddStack("maps", memStack(t, 4, 12, func(m, z, y, x int) float64 { return float64((m*40 + z*5 + x*7 + y) % 256) }), ImageOptions{Contrast: [2]float64{0, 255}}); err != nil {
			return err
		}
		v.AddPoints("cells", []Point{{Z: 2, Y: 20, X: 30, Type: "cell"}, {Z: 3, Y: 40, X: 50, Type: "artifact"}})
		hm, err := v.AddHeatmap("l2", 4, 3, []float64{0, 1, 2, 3, 4, 5, 6, math.NaN(), 8, 9, 10, 11})
		if err != nil {
			return err
		}
		v.Panels().SetGrid(true)
		v.Dims().SetSlice(2)
		v.Dims().SetMap(1)
		v.Offer().Compare(raw, res)
		v.Select(hm)
		v.Select(raw)
		v.Dialogs().ShowError(errors.New("cells.csv line 3: \"two\" is not a number"))
		return nil
	}
}

// TestRenderOffscreenMatchesTestWindow: RenderOffscreen (a Fyne app and
// window of its own, made on a goroutine of its own, in voxlab's theme,
// sized to w x h, captured once the loaders are done) draws, pixel for
// pixel, what a viewer of the same scene shows in a window of Fyne's test
// driver set up here by hand: the same layout, text, icons, rounded
// rectangles, slider thumbs, scroll shadows, images and dialog. A
// screenshot taken in the wrong theme or size, or before the slices
// loaded, differs.
func TestRenderOffscreenMatchesTestWindow(t *testing.T) {
	const w, h = 1000, 700
	got, err := RenderOffscreen(w, h, 10*time.Second, offscreenScene(t))
	if err != nil {
		t.Fatal(err)
	}

	test.NewTempApp(t).Settings().SetTheme(widgets.Theme())
	win := test.NewTempWindow(t, nil)
	hl := NewHeadless(win)
	defer hl.Close()
	win.Resize(fyne.NewSize(w, h))
	if err := offscreenScene(t)(hl.Viewer); err != nil {
		t.Fatal(err)
	}
	if err := hl.Settle(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	relayout(win.Canvas().Content()) // as RenderOffscreen does before its capture
	want := win.Canvas().Capture()
	testutil.SamePixels(t, "offscreen_viewer.png", got, want)
}

// TestCaptureDrawsAFormHalfInView: a points layer's controls (a form
// taller than the side panel at 1280x800) are captured with their rows
// in view drawn, as a window shows them clipped: Capture hid the whole
// form because part of it lay below the panel's fold, and a --screenshot
// after a detection showed the layer's controls blank.
func TestCaptureDrawsAFormHalfInView(t *testing.T) {
	test.NewTempApp(t).Settings().SetTheme(widgets.Theme())
	win := test.NewTempWindow(t, nil)
	hl := NewHeadless(win)
	defer hl.Close()
	win.Resize(fyne.NewSize(1280, 800))
	if _, err := hl.AddImage("ch0", memVolume(t, volume.Uint8, [3]int{4, 40, 40}, func(z, y, x int) float64 { return 9 }), ImageOptions{}); err != nil {
		t.Fatal(err)
	}
	hl.AddPoints("cells", []Point{{Z: 2, Y: 20, X: 20}})
	if err := hl.Settle(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	mode := hl.ctl.pts.mode
	d := fyne.CurrentApp().Driver()
	pos, sz := d.AbsolutePositionForObject(mode), mode.Size()
	if pos.Y+sz.Height > 400 {
		t.Fatalf("the mode choice lies at %v: not in the side panel's view, the check proves nothing", pos)
	}
	want := win.Canvas().Capture() // every object drawn, none hidden
	got := hl.Capture()
	r := image.Rect(int(pos.X), int(pos.Y), int(pos.X+sz.Width), int(pos.Y+sz.Height))
	diff := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if got.At(x, y) != want.At(x, y) {
				diff++
			}
		}
	}
	if diff > 0 {
		t.Errorf("the mode choice, in view at %v, is captured with %d of %d pixels unlike the window's", r, diff, r.Dx()*r.Dy())
	}
}
