package viewer

import (
	"image/color"
	"math"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/resources"
)

// TestContrastControlsChangePixels drives the contrast entries, the range
// slider and the auto button and checks the pixels against the formula
// round(255 * clamp((v-lo)/(hi-lo))) for the gray map.
func TestContrastControlsChangePixels(t *testing.T) {
	h := newHarness(t)
	// Left half 50, right half 100; one bright outlier pixel at (0, 0).
	l, err := h.v.AddImage("img", memVolume(t, volume.Uint16, [3]int{1, 40, 40}, func(z, y, x int) float64 {
		if y == 0 && x == 0 {
			return 4000
		}
		if x < 20 {
			return 50
		}
		return 100
	}), ImageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	p := h.panel()
	// Initial limits: the 0.1/99.9 percentiles of the slice (the outlier
	// is 1 of 1600 pixels, above the 99.9th percentile).
	if lo, hi := l.ContrastLimits(); lo != 50 || hi != 100 {
		t.Fatalf("initial limits %v %v, want 50 100", lo, hi)
	}
	if got := h.pixelAt(p, 10, 5); got != gray(0) {
		t.Errorf("50 at [50,100] drew %v", got)
	}
	if got := h.pixelAt(p, 10, 30); got != gray(255) {
		t.Errorf("100 at [50,100] drew %v", got)
	}

	c := h.v.ctl
	c.lo.SetText("0")
	c.hi.SetText("200")
	c.hi.OnSubmitted(c.hi.Text)
	h.settle()
	if lo, hi := l.ContrastLimits(); lo != 0 || hi != 200 {
		t.Fatalf("entries set limits %v %v", lo, hi)
	}
	want := func(v, lo, hi float64) color.RGBA {
		t := math.Min(math.Max((v-lo)/(hi-lo), 0), 1)
		return gray(uint8(t*255 + 0.5))
	}
	if got := h.pixelAt(p, 10, 5); got != want(50, 0, 200) {
		t.Errorf("50 at [0,200] drew %v, want %v", got, want(50, 0, 200))
	}
	if got := h.pixelAt(p, 10, 30); got != want(100, 0, 200) {
		t.Errorf("100 at [0,200] drew %v, want %v", got, want(100, 0, 200))
	}

	// Drag the high handle of the range slider to the far right: the
	// limit becomes the top of the range (the slice maximum, 4000).
	rs := c.contrast
	rs.Resize(fyne.NewSize(200, 30))
	start := rs.posOf(rs.High)
	rs.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(start+5, 15)}, Dragged: fyne.Delta{DX: 5}})
	rs.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(400, 15)}, Dragged: fyne.Delta{DX: 195}})
	rs.DragEnd()
	h.settle()
	lo, hi := l.ContrastLimits()
	if lo != 0 || hi != 4000 {
		t.Fatalf("after dragging the high handle: %v %v, want 0 4000", lo, hi)
	}
	if got := h.pixelAt(p, 10, 30); got != want(100, 0, 4000) {
		t.Errorf("100 at [0,4000] drew %v, want %v", got, want(100, 0, 4000))
	}

	// Auto once returns to the percentiles.
	l.AutoContrast()
	h.settle()
	if lo, hi := l.ContrastLimits(); lo != 50 || hi != 100 {
		t.Errorf("auto contrast gave %v %v", lo, hi)
	}
	if c.lo.Text != "50" || c.hi.Text != "100" {
		t.Errorf("entries show %q %q after auto", c.lo.Text, c.hi.Text)
	}
}

func TestGammaColormapOpacity(t *testing.T) {
	h := newHarness(t)
	h.v.AddImage("img", memVolume(t, volume.Uint8, [3]int{1, 10, 10}, func(z, y, x int) float64 { return 64 }), ImageOptions{Contrast: [2]float64{0, 255}})
	h.settle()
	p := h.panel()
	if got := h.pixelAt(p, 5, 5); got != gray(64) {
		t.Fatalf("gray 64 drew %v", got)
	}
	h.v.ctl.gamma.SetValue(2)
	h.settle()
	// (64/255)^2 * 255 = 16.06 -> 16
	if got := h.pixelAt(p, 5, 5); got != gray(16) {
		t.Errorf("gamma 2 drew %v, want 16", got)
	}
	h.v.ctl.gamma.SetValue(1)
	h.v.ctl.cmap.SetSelected(resources.Viridis)
	h.settle()
	vir, _ := resources.Colormap(resources.Viridis)
	e := vir[64]
	if got := h.pixelAt(p, 5, 5); got != (color.RGBA{e[0], e[1], e[2], 255}) {
		t.Errorf("viridis drew %v, want %v", got, e)
	}
	h.v.ctl.cmap.SetSelected(resources.Gray)
	h.v.ctl.opacity.SetValue(0.5)
	h.settle()
	// Half of 64 over half of the background (0x26,0x29,0x30).
	got := h.pixelAt(p, 5, 5)
	wantR := (64*128 + 0x26*128) >> 8
	if int(got.R) != wantR {
		t.Errorf("opacity 0.5 drew %v, want R=%d", got, wantR)
	}
}

func TestAdditiveBlending(t *testing.T) {
	h := newHarness(t)
	vol := func(v float64) *volume.Volume {
		return memVolume(t, volume.Uint8, [3]int{1, 10, 10}, func(z, y, x int) float64 { return v })
	}
	h.v.AddImage("red", vol(255), ImageOptions{Colormap: "red", Contrast: [2]float64{0, 255}})
	h.v.AddImage("green", vol(128), ImageOptions{Colormap: "green", Contrast: [2]float64{0, 255}, Blending: Additive})
	h.settle()
	if got := h.pixelAt(h.panel(), 5, 5); got != (color.RGBA{255, 128, 0, 255}) {
		t.Errorf("red + green drew %v, want {255 128 0}", got)
	}
}

// A blank first slice must not fix the contrast limits: the first slice
// with a range does.
func TestBlankFirstSliceDoesNotFixContrast(t *testing.T) {
	h := newHarness(t)
	l, _ := h.v.AddImage("img", memVolume(t, volume.Uint16, [3]int{8, 20, 20}, func(z, y, x int) float64 {
		if z == 5 {
			return float64(100 + 10*x)
		}
		return 0
	}), ImageOptions{})
	h.settle()
	if got := h.pixelAt(h.panel(), 3, 3); got != gray(0) {
		t.Errorf("blank slice drew %v, want black", got)
	}
	h.v.Dims().SetSlice(5)
	h.settle()
	if lo, hi := l.ContrastLimits(); lo != 100 || hi != 290 {
		t.Errorf("limits %v %v, want the percentiles of slice 5 (100 290)", lo, hi)
	}
	h.v.Dims().SetSlice(6)
	h.settle()
	if lo, hi := l.ContrastLimits(); lo != 100 || hi != 290 {
		t.Errorf("a later blank slice changed the limits to %v %v", lo, hi)
	}
}
