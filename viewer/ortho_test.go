package viewer

import (
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/voxlab/voxlab/processing/volume"
)

// orthoValue is the test volume's voxel: it names its position.
func orthoValue(z, y, x int) float64 { return float64(z*1000 + y*30 + x) }

// orthoPanel returns the ortho panel slicing along a.
func (h *harness) orthoPanel(a Axis) *sliceView {
	for _, p := range h.v.panels {
		if p.ortho != nil && *p.ortho == a {
			return p
		}
	}
	h.t.Fatalf("no ortho panel along %s", a)
	return nil
}

// checkPlanes checks that each panel shows the plane through pt.
func (h *harness) checkPlanes(l Layer, pt [3]int) {
	h.t.Helper()
	e := h.v.Extent()
	for _, a := range orthoAxes {
		p := h.orthoPanel(a)
		ra, ca := a.displayAxes()
		for _, rc := range [][2]int{{0, 0}, {e[ra] - 1, e[ca] - 1}, {e[ra] / 2, 1}} {
			got, ok := h.v.valueIn(p, l, rc[0], rc[1])
			zyx := pt
			zyx[ra], zyx[ca] = rc[0], rc[1]
			if want := orthoValue(zyx[0], zyx[1], zyx[2]); !ok || got != want {
				h.t.Fatalf("%s panel at point %v, cell %v: %v (%v), want voxel %v = %v", orthoTitle(a), pt, rc, got, ok, zyx, want)
			}
		}
	}
}

// TestOrthoPlanesThroughPoint: the three panels show the xy, xz and zy
// planes through the point, with the crosshair on it; a click in one
// panel moves the other two panels' planes and the dims slider follows;
// the layout keeps the voxel size's proportions; points show in every
// panel that cuts them.
func TestOrthoPlanesThroughPoint(t *testing.T) {
	h := newHarness(t)
	vol := memVolume(t, volume.Uint16, [3]int{6, 20, 25}, func(z, y, x int) float64 { return orthoValue(z, y, x) })
	vol.VoxelSize = [3]float64{4, 1, 1}
	l, err := h.v.AddImage("vol", vol, ImageOptions{Contrast: [2]float64{0, 6000}})
	if err != nil {
		t.Fatal(err)
	}
	pts := h.v.AddPoints("cells", []Point{{Z: 3, Y: 11, X: 7}})
	h.v.SetOrtho(true)
	pt := [3]int{3, 11, 7}
	h.v.SetPoint(pt)
	h.settle()
	h.checkPlanes(l, pt)

	// The crosshair: the point's column in the xy panel is drawn in
	// the theme's warning colour (dashed), the column beside it not.
	xy := h.orthoPanel(Z)
	sz := xy.Size()
	ps := xy.pixelScale()
	sx, _ := xy.xf().toScreen(7.5, 0, float64(sz.Width), float64(sz.Height))
	r, g, b, _ := theme.Color(theme.ColorNameWarning).RGBA()
	warn := [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
	count := func(x int) int {
		n := 0
		for y := range xy.f.h {
			c := xy.f.img.RGBAAt(x, y)
			if [3]uint8{c.R, c.G, c.B} == warn {
				n++
			}
		}
		return n
	}
	if n, off := count(int(math.Floor(sx*ps))), count(int(math.Floor(sx*ps))+3); n < xy.f.h/3 || off > 2 {
		t.Fatalf("crosshair column: %d of %d pixels in the warning colour, %d beside it", n, xy.f.h, off)
	}

	// Every panel cuts the point, so every panel draws its marker.
	for _, a := range orthoAxes {
		p := h.orthoPanel(a)
		ra, ca := a.displayAxes()
		if _, n := h.greenAround(p, float64(pt[ra]), float64(pt[ca]), 4); n == 0 {
			t.Fatalf("%s panel: no marker at the point", orthoTitle(a))
		}
	}
	_ = pts

	// A click in the xz panel at z 1, x 20 moves the point there: the
	// xy panel shows z 1 and the zy panel x 20; y stays.
	xz := h.orthoPanel(Y)
	sz = xz.Size()
	px, py := xz.xf().toScreen(20.5, 1.5, float64(sz.Width), float64(sz.Height))
	xz.Tapped(&fyne.PointEvent{Position: fyne.NewPos(float32(px), float32(py))})
	h.settle()
	pt = [3]int{1, 11, 20}
	if h.v.Point() != pt {
		t.Fatalf("point %v after the click, want %v", h.v.Point(), pt)
	}
	h.checkPlanes(l, pt)
	if got := h.v.dims.slider.Value; got != 1 {
		t.Fatalf("z slider at %v, want 1", got)
	}

	// One physical scale: the xz panel is 6 planes of 4 µm tall against
	// the xy panel's 20 rows of 1 µm, and as wide.
	xs, zs := xy.Size(), xz.Size()
	if math.Abs(float64(zs.Height/xs.Height)-24.0/20) > 0.01 || math.Abs(float64(zs.Width-xs.Width)) > 0.5 {
		t.Fatalf("xy panel %v, xz panel %v: want heights 20:24 and equal widths", xs, zs)
	}
	zy := h.orthoPanel(X)
	if w := zy.Size().Width; math.Abs(float64(w/xs.Width)-20.0/25) > 0.01 {
		t.Fatalf("zy panel %v wide, xy %v: want 20:25", w, xs.Width)
	}

	// Off again: one panel along the viewer's axis.
	h.v.SetOrtho(false)
	if len(h.v.panels) != 1 || h.v.panels[0].ortho != nil {
		t.Fatalf("%d panels after ortho off", len(h.v.panels))
	}
}
