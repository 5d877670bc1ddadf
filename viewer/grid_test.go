package viewer

import (
	"math"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/voxlab/voxlab/processing/volume"
)

// memStack builds an in-memory stack of n maps of box³ uint8 with values
// f(map, z, y, x).
func memStack(t *testing.T, n, box int, f func(m, z, y, x int) float64) *volume.Stack {
	t.Helper()
	vol := memVolume(t, volume.Uint8, [3]int{n * box, box, box}, func(z, y, x int) float64 { return f(z/box, z%box, y, x) })
	st, err := volume.NewStack("maps", n, vol.Source())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// panelOf returns the grid panel showing l.
func (h *harness) panelOf(l Layer) *sliceView {
	h.t.Helper()
	for _, p := range h.v.panels {
		if len(p.group) > 0 && p.group[0] == l {
			return p
		}
	}
	h.t.Fatalf("no panel shows %s", l.Name())
	return nil
}

// fitsWhole checks that panel p shows rows x cols whole, centred and as
// large as it fits (touching two opposite sides).
func fitsWhole(t *testing.T, name string, p *sliceView, rows, cols int) {
	t.Helper()
	sz := p.Size()
	w, h := float64(sz.Width), float64(sz.Height)
	x0, y0 := p.xf().ToScreen(0, 0, w, h)
	x1, y1 := p.xf().ToScreen(float64(cols), float64(rows), w, h)
	const eps = 1e-6
	if x0 < -eps || y0 < -eps || x1 > w+eps || y1 > h+eps || math.Abs(x1-x0-w) > eps && math.Abs(y1-y0-h) > eps {
		t.Errorf("%s: %dx%d drawn over (%.1f,%.1f)-(%.1f,%.1f) of a %.0fx%.0f panel, want it fitted", name, rows, cols, x0, y0, x1, y1, w, h)
	}
	if math.Abs((x0+x1)/2-w/2) > eps || math.Abs((y0+y1)/2-h/2) > eps {
		t.Errorf("%s: not centred", name)
	}
}

// In grid mode each panel fits its own layers, however different their
// sizes (the demo's scan and 32³ maps), and a drag or scroll in one
// moves all of them alike, relative to their fits: what shared a
// screen position keeps sharing it.
func TestGridPanelsFitTheirOwnLayers(t *testing.T) {
	h := newHarness(t)
	scan, _ := h.v.AddImage("scan", memVolume(t, volume.Uint16, [3]int{9, 128, 160}, func(z, y, x int) float64 { return float64(x) }), ImageOptions{})
	maps, _ := h.v.AddStack("maps", memStack(t, 3, 8, func(m, z, y, x int) float64 { return float64(10*m + x) }), ImageOptions{Contrast: [2]float64{0, 255}})
	h.v.Panels().SetGrid(true)
	h.settle()
	ps, pm := h.panelOf(scan), h.panelOf(maps)
	fitsWhole(t, "scan", ps, 128, 160)
	fitsWhole(t, "maps", pm, 8, 8)
	if pm.xf().Scale < 10*ps.xf().Scale {
		t.Errorf("map panel at %v px/voxel, scan at %v: the map is not fitted", pm.xf().Scale, ps.xf().Scale)
	}
	// The map's pixels are where its panel's transform says: column 6 of
	// map 0 is 6.
	if got := h.pixelAt(pm, 4, 6); got != gray(6) {
		t.Errorf("map panel (4,6) drew %v, want gray 6", got)
	}

	sz := ps.Size()
	w, hh := float64(sz.Width), float64(sz.Height)
	q := fyne.NewPos(float32(w*0.3), float32(hh*0.6))
	ds := func(p *sliceView) (float64, float64) { return p.xf().ToData(float64(q.X), float64(q.Y), w, hh) }
	sx, sy := ds(ps)
	mx, my := ds(pm)
	// Zoom in on the scan, pan on the map panel, zoom out on the scan.
	for range 3 {
		ps.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: q}, Scrolled: fyne.Delta{DY: 10}})
	}
	pm.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: q}, Dragged: fyne.Delta{DX: 12, DY: -5}})
	ps.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: q}, Scrolled: fyne.Delta{DY: -10}})
	h.settle()
	zoom := math.Pow(2, 2.0/4)
	if got := ps.xf().Scale / ps.fit.Scale; math.Abs(got-zoom) > 1e-9 {
		t.Errorf("scan zoomed %v times its fit, want %v", got, zoom)
	}
	if got := pm.xf().Scale / pm.fit.Scale; math.Abs(got-zoom) > 1e-9 {
		t.Errorf("map zoomed %v times its fit, want %v as the scan", got, zoom)
	}
	// Both moved alike: the data that was under q is 12 px right and 5 px
	// up of it after the pan, an offset the last zoom (about q) scaled by
	// 2^(-1/4), in both panels.
	ox, oy := 12*math.Pow(2, -0.25), -5*math.Pow(2, -0.25)
	for _, c := range []struct {
		name   string
		p      *sliceView
		dx, dy float64
	}{{"scan", ps, sx, sy}, {"maps", pm, mx, my}} {
		x, y := c.p.xf().ToScreen(c.dx, c.dy, w, hh)
		if math.Abs(x-float64(q.X)-ox) > 1e-6 || math.Abs(y-float64(q.Y)-oy) > 1e-6 {
			t.Errorf("%s: the point under the pointer moved to (%.2f,%.2f), want (%.2f,%.2f)", c.name, x, y, float64(q.X)+ox, float64(q.Y)+oy)
		}
	}
	// Reset view fits each again.
	h.v.Panels().ResetView()
	h.settle()
	fitsWhole(t, "scan after reset", ps, 128, 160)
	fitsWhole(t, "maps after reset", pm, 8, 8)
}

// Raw and dezinged of one scan stay pixel-aligned through zooms and pans
// (the same transform in panels of one size).
func TestGridSameSizeStaysAligned(t *testing.T) {
	h := newHarness(t)
	f := func(z, y, x int) float64 { return float64(x + y) }
	raw, _ := h.v.AddImage("raw", memVolume(t, volume.Uint16, [3]int{4, 30, 50}, f), ImageOptions{})
	dz, _ := h.v.AddImage("dezinged", memVolume(t, volume.Uint16, [3]int{4, 30, 50}, f), ImageOptions{})
	h.v.Panels().SetGrid(true)
	h.settle()
	a, b := h.panelOf(raw), h.panelOf(dz)
	a.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(40, 30)}, Scrolled: fyne.Delta{DY: 25}})
	b.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: -17, DY: 9}})
	h.settle()
	if a.Size() != b.Size() || a.xf() != b.xf() {
		t.Fatalf("panels of one size differ: %v %+v vs %v %+v", a.Size(), a.xf(), b.Size(), b.xf())
	}
	for y := 0; y < a.f.h; y += 7 {
		for x := 0; x < a.f.w; x += 7 {
			if ca, cb := a.f.img.RGBAAt(x, y), b.f.img.RGBAAt(x, y); ca != cb {
				t.Fatalf("device pixel (%d,%d): raw %v, dezinged %v", x, y, ca, cb)
			}
		}
	}
}

// The grid takes the columns that show the data largest: two wide scans
// one above the other, two square ones side by side.
func TestGridColumnsFollowTheData(t *testing.T) {
	for _, c := range []struct {
		name       string
		shape      [3]int
		sideBySide bool
	}{
		{"wide", [3]int{2, 20, 400}, false},
		{"square", [3]int{2, 50, 50}, true},
	} {
		h := newHarness(t)
		vol := func() *volume.Volume {
			return memVolume(t, volume.Uint8, c.shape, func(z, y, x int) float64 { return 1 })
		}
		h.v.AddImage("a", vol(), ImageOptions{})
		h.v.AddImage("b", vol(), ImageOptions{})
		h.v.Panels().SetGrid(true)
		h.settle()
		pa, pb := h.v.panels[0].Position(), h.v.panels[1].Position()
		if got := pa.Y == pb.Y && pa.X < pb.X; got != c.sideBySide {
			t.Errorf("%s: panels at %v and %v, side by side %v, want %v", c.name, pa, pb, got, c.sideBySide)
		}
	}
}

// The status bar gives the voxel under the pointer in the data of the
// panel it is over, with the map over a stack.
func TestStatusPerPanel(t *testing.T) {
	h := newHarness(t)
	img, _ := h.v.AddImage("img", memVolume(t, volume.Uint16, [3]int{12, 40, 60}, func(z, y, x int) float64 { return float64(100*y + x) }), ImageOptions{})
	maps, _ := h.v.AddStack("maps", memStack(t, 4, 8, func(m, z, y, x int) float64 { return float64(50*m + 8*y + x) }), ImageOptions{})
	h.v.Panels().SetGrid(true)
	h.v.Dims().SetMap(2)
	h.v.Dims().SetSlice(3)
	h.settle()
	hoverAt := func(p *sliceView, row, col float64) {
		sz := p.Size()
		x, y := p.xf().ToScreen(col+0.5, row+0.5, float64(sz.Width), float64(sz.Height))
		p.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(float32(x), float32(y))}})
	}
	hoverAt(h.panelOf(img), 20, 30)
	if want := "z 3  y 20  x 30  │  img: 2030"; h.v.bar.status.Text != want {
		t.Errorf("over the image: %q, want %q", h.v.bar.status.Text, want)
	}
	hoverAt(h.panelOf(maps), 5, 6)
	if want := "map 2  z 3  y 5  x 6  │  maps: 146"; h.v.bar.status.Text != want {
		t.Errorf("over the maps: %q, want %q", h.v.bar.status.Text, want)
	}
	if title := panelTitle(h.panelOf(maps).group, &h.v.at); title != "maps: map 2" {
		t.Errorf("map panel title %q", title)
	}
	// Past the maps' 8 planes their panel is empty and says why.
	h.v.Dims().SetSlice(10)
	if title := panelTitle(h.panelOf(maps).group, &h.v.at); title != "maps: map 2 (ends at z 7)" {
		t.Errorf("map panel title past its end %q", title)
	}
}

// Clicking a cell of a distance heat map shows the ground-truth map of
// its row in the stack with one map per row, at its middle plane,
// showing the stack if it was hidden.
func TestHeatmapClickSelectsMap(t *testing.T) {
	h := newHarness(t)
	maps, _ := h.v.AddStack("gt", memStack(t, 5, 8, func(m, z, y, x int) float64 { return float64(m) }), ImageOptions{})
	vals := make([]float64, 5*3)
	for i := range vals {
		vals[i] = float64(i)
	}
	hm, err := h.v.AddHeatmap("l2", 5, 3, vals)
	if err != nil {
		t.Fatal(err)
	}
	h.v.Panels().SetGrid(true)
	maps.SetVisible(false)
	h.v.Dims().SetSlice(0)
	h.settle()
	p := h.panelOf(hm)
	sz := p.Size()
	x, y := p.xf().ToScreen(1.5, 3.5, float64(sz.Width), float64(sz.Height))
	at := fyne.NewPos(float32(x), float32(y))
	p.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: at}})
	if want := "row 3  col 1 (click: map 3)  │  l2: 10"; h.v.bar.status.Text != want {
		t.Errorf("over the heat map: %q, want %q", h.v.bar.status.Text, want)
	}
	p.Tapped(&fyne.PointEvent{Position: at})
	h.settle()
	if h.v.Dims().Map() != 3 || !maps.Visible() || h.v.Dims().Slice() != 4 {
		t.Fatalf("after the click: map %d plane %d, stack visible %v; want map 3 shown at its middle plane 4", h.v.Dims().Map(), h.v.Dims().Slice(), maps.Visible())
	}
	if v, ok := h.v.ValueAt(maps, 2, 2); !ok || v != 3 {
		t.Errorf("stack shows %v %v, want map 3", v, ok)
	}
	if !strings.Contains(h.v.dims.mapLabel.Text, "map 3/4") {
		t.Errorf("map slider label %q", h.v.dims.mapLabel.Text)
	}
}

// In grid mode cells detected on one channel are drawn over each
// channel of the same extent (signal and background side by side, as a
// user checks candidates), not over an image of another shape.
func TestGridPointsOverEachChannel(t *testing.T) {
	h := newHarness(t)
	h.v.win.Resize(fyne.NewSize(1280, 800))
	grey := func(z, y, x int) float64 { return 40 }
	ch0, _ := h.v.AddImage("ch0", memVolume(t, volume.Uint8, [3]int{6, 50, 70}, grey), ImageOptions{})
	ch1, _ := h.v.AddImage("ch1", memVolume(t, volume.Uint8, [3]int{6, 50, 70}, grey), ImageOptions{})
	other, _ := h.v.AddImage("other", memVolume(t, volume.Uint8, [3]int{6, 30, 30}, grey), ImageOptions{})
	pts := h.v.AddPoints("cells", []Point{{Z: 3, Y: 20, X: 40, Type: "cell"}})
	h.v.PlaceAbove(pts, ch0)
	h.v.Panels().SetGrid(true)
	h.v.Dims().SetSlice(3)
	h.settle()
	for _, img := range []*ImageLayer{ch0, ch1} {
		p := h.panelOf(img)
		if _, n := h.greenAround(p, 20, 40, 4); n == 0 {
			t.Errorf("%s's panel (layers %v) does not draw the cell at 20,40", img.Name(), names(p.group))
		}
	}
	if p := h.panelOf(other); slices.Contains(p.group, Layer(pts)) {
		t.Errorf("the points are drawn over %s, an image of another shape", other.Name())
	}
}
