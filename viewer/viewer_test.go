package viewer

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/resources"
)

func TestLayerListOperations(t *testing.T) {
	h := newHarness(t)
	v := h.v
	vol := func() *volume.Volume {
		return memVolume(t, volume.Uint8, [3]int{4, 8, 8}, func(z, y, x int) float64 { return 1 })
	}
	a, _ := v.AddImage("a", vol(), ImageOptions{})
	b, _ := v.AddImage("b", vol(), ImageOptions{})
	c := v.AddPoints("c", nil)
	names := func() string {
		var s []string
		for _, l := range v.Layers() {
			s = append(s, l.Name())
		}
		return strings.Join(s, ",")
	}
	if got := names(); got != "a,b,c" || v.Selected() != c {
		t.Fatalf("after adding: %s, selected %v", got, v.Selected().Name())
	}
	if n := h.v.list.Length(); n != 3 {
		t.Fatalf("list shows %d rows", n)
	}
	// The list shows the top layer first: row 2 is the bottom layer "a".
	h.v.list.Select(2)
	if v.Selected() != a {
		t.Fatalf("selecting row 2 selected %s", v.Selected().Name())
	}
	v.MoveLayer(a, +1)
	if got := names(); got != "b,a,c" {
		t.Errorf("after moving a up: %s", got)
	}
	v.MoveLayer(a, +5)
	if got := names(); got != "b,c,a" {
		t.Errorf("after moving a to the top: %s", got)
	}
	v.MoveLayer(a, -10)
	if got := names(); got != "a,b,c" {
		t.Errorf("after moving a to the bottom: %s", got)
	}
	// Hiding through the list row's check box.
	row := test.WidgetRenderer(h.v.list)
	_ = row
	b.SetVisible(false)
	if b.Visible() {
		t.Error("b still visible")
	}
	v.RemoveLayer(b)
	if got := names(); got != "a,c" {
		t.Errorf("after removing b: %s", got)
	}
	v.Select(c)
	v.RemoveLayer(c)
	if v.Selected() != a {
		t.Errorf("after removing the selected top layer, selected = %v", v.Selected())
	}
	v.RemoveLayer(a)
	if len(v.Layers()) != 0 || v.Selected() != nil {
		t.Error("layers left after removing all")
	}
}

func TestVisibilityCheckInList(t *testing.T) {
	h := newHarness(t)
	l, _ := h.v.AddImage("img", memVolume(t, volume.Uint8, [3]int{1, 4, 4}, func(z, y, x int) float64 { return 200 }), ImageOptions{Contrast: [2]float64{0, 200}})
	h.settle()
	if got := h.pixelAt(h.panel(), 1, 1); got != gray(255) {
		t.Fatalf("visible layer drew %v", got)
	}
	// Find the check box of the list's first row and untick it.
	var chk *widget.Check
	for _, o := range test.LaidOutObjects(h.v.list) {
		if c, ok := o.(*widget.Check); ok {
			chk = c
			break
		}
	}
	if chk == nil {
		t.Fatal("no visibility check in the layer list")
	}
	test.Tap(chk)
	if l.Visible() {
		t.Fatal("unticking the list's check did not hide the layer")
	}
	h.settle()
	if got := h.pixelAt(h.panel(), 1, 1); got.R != 0x26 {
		t.Errorf("hidden layer still drawn: %v", got)
	}
}

func TestSliderAndKeysChangeSlice(t *testing.T) {
	h := newHarness(t)
	h.v.AddImage("img", memVolume(t, volume.Uint8, [3]int{30, 6, 6}, func(z, y, x int) float64 { return float64(z * 5) }), ImageOptions{Contrast: [2]float64{0, 255}})
	h.settle()
	// The first volume opens at its middle plane (it opened at plane 0).
	if h.v.Dims().Slice() != 15 || !strings.Contains(h.v.dims.label.Text, "z 15/29") {
		t.Fatalf("the first volume opened at slice %d (%q), want its middle, 15", h.v.Dims().Slice(), h.v.dims.label.Text)
	}
	h.v.Dims().SetSlice(0)
	h.settle()
	p := h.panel()
	if got := h.pixelAt(p, 2, 2); got != gray(0) {
		t.Fatalf("slice 0 drew %v", got)
	}
	h.v.dims.slider.SetValue(12)
	h.settle()
	if h.v.Dims().Slice() != 12 {
		t.Fatalf("slider at 12, viewer at %d", h.v.Dims().Slice())
	}
	if got := h.pixelAt(p, 2, 2); got != gray(60) {
		t.Errorf("slice 12 drew %v, want 60", got)
	}
	h.v.typedKey(&fyne.KeyEvent{Name: fyne.KeyRight})
	h.settle()
	if h.v.Dims().Slice() != 13 || h.pixelAt(p, 2, 2) != gray(65) {
		t.Errorf("right arrow: slice %d, pixel %v", h.v.Dims().Slice(), h.pixelAt(p, 2, 2))
	}
	if h.v.dims.slider.Value != 13 {
		t.Errorf("slider did not follow the key: %v", h.v.dims.slider.Value)
	}
	h.v.typedKey(&fyne.KeyEvent{Name: fyne.KeyEnd})
	h.v.typedKey(&fyne.KeyEvent{Name: fyne.KeyRight}) // stays at the end
	h.settle()
	if h.v.Dims().Slice() != 29 || h.pixelAt(p, 2, 2) != gray(145) {
		t.Errorf("end: slice %d, pixel %v", h.v.Dims().Slice(), h.pixelAt(p, 2, 2))
	}
	h.v.Dims().Step(1, true) // play wraps
	if h.v.Dims().Slice() != 0 {
		t.Errorf("wrapping step went to %d", h.v.Dims().Slice())
	}
	if !strings.Contains(h.v.dims.label.Text, "z 0/29") {
		t.Errorf("dims label %q", h.v.dims.label.Text)
	}
}

// TestDimsFollowVisibleLayers: the slider spans the visible layers (a
// hidden deep stack, like the demo's 1280 planes of maps, does not
// stretch it past the brain beside it), and hiding a layer and showing
// it again comes back to the slice shown before.
func TestDimsFollowVisibleLayers(t *testing.T) {
	h := newHarness(t)
	h.v.AddImage("brain", memVolume(t, volume.Uint8, [3]int{6, 4, 4}, func(z, y, x int) float64 { return float64(z) }), ImageOptions{})
	maps, _ := h.v.AddImage("maps", memVolume(t, volume.Uint8, [3]int{40, 4, 4}, func(z, y, x int) float64 { return float64(z) }), ImageOptions{Hidden: true})
	h.settle()
	if n := int(h.v.dims.slider.Max) + 1; n != 6 || !strings.Contains(h.v.dims.label.Text, "z 3/5") {
		t.Errorf("with the maps hidden the slider covers %d slices (%q), want the brain's 6", n, h.v.dims.label.Text)
	}
	h.v.Dims().SetSlice(30)
	if h.v.Dims().Slice() != 5 {
		t.Errorf("SetSlice(30) beyond the visible layers went to %d, want 5", h.v.Dims().Slice())
	}
	maps.SetVisible(true)
	h.settle()
	if n := int(h.v.dims.slider.Max) + 1; n != 40 {
		t.Errorf("with the maps shown the slider covers %d slices, want 40", n)
	}
	h.v.Dims().SetSlice(30)
	maps.SetVisible(false)
	h.settle()
	if h.v.Dims().Slice() != 5 || h.v.dims.slider.Value != 5 || !strings.Contains(h.v.dims.label.Text, "z 5/5") {
		t.Errorf("hiding the maps at slice 30: slice %d, slider %v, label %q; want the brain's last, 5", h.v.Dims().Slice(), h.v.dims.slider.Value, h.v.dims.label.Text)
	}
	maps.SetVisible(true)
	h.settle()
	if h.v.Dims().Slice() != 30 || h.v.dims.slider.Value != 30 {
		t.Errorf("showing the maps again: slice %d, slider %v; want 30 as before", h.v.Dims().Slice(), h.v.dims.slider.Value)
	}
	// A move made while the maps were hidden is the one kept.
	maps.SetVisible(false)
	h.v.Dims().SetSlice(2)
	maps.SetVisible(true)
	h.settle()
	if h.v.Dims().Slice() != 2 {
		t.Errorf("moved to 2 with the maps hidden, then showed them: slice %d", h.v.Dims().Slice())
	}
}

func TestAxisChoice(t *testing.T) {
	h := newHarness(t)
	f := func(z, y, x int) float64 { return float64(z*100 + y*10 + x) }
	h.v.AddImage("img", memVolume(t, volume.Uint16, [3]int{5, 6, 7}, f), ImageOptions{})
	h.settle()
	for _, c := range []struct {
		axis     Axis
		idx      int
		row, col int
		want     float64
	}{
		{Z, 3, 4, 5, f(3, 4, 5)},
		{Y, 2, 4, 5, f(4, 2, 5)}, // rows are z, columns x
		{X, 6, 1, 3, f(1, 3, 6)}, // rows are z, columns y
	} {
		h.v.Dims().SetAxis(c.axis)
		h.v.Dims().SetSlice(c.idx)
		h.settle()
		got, ok := h.v.ValueAt(h.v.stack.At(0), c.row, c.col)
		if !ok || got != c.want {
			t.Errorf("axis %s slice %d (%d,%d) = %v %v, want %v", c.axis, c.idx, c.row, c.col, got, ok, c.want)
		}
		if n := int(h.v.dims.slider.Max) + 1; n != [3]int{5, 6, 7}[c.axis] {
			t.Errorf("axis %s: slider covers %d slices", c.axis, n)
		}
	}
}

func TestPointsOnTheirSlice(t *testing.T) {
	h := newHarness(t)
	h.v.AddImage("img", memVolume(t, volume.Uint8, [3]int{40, 50, 50}, func(z, y, x int) float64 { return 0 }), ImageOptions{Contrast: [2]float64{0, 255}})
	pl := h.v.AddPoints("cells", []Point{{Z: 10, Y: 20, X: 30, Type: "cell"}, {Z: 10, Y: 40, X: 10, Type: "cell"}, {Z: 25, Y: 5, X: 5}}, PointsOptions{Size: 6, OutOfSlice: 2})
	h.v.Dims().SetSlice(10)
	h.settle()
	p := h.panel()
	green := defaultStyle(0).Face
	// A ring: its centre is empty, its edge is green.
	ringEdge := func(row, col float64) color.RGBA {
		return h.pixelAt(p, row, col-2.5)
	}
	if got := ringEdge(20, 30); got.G < 200 || got.R > 100 {
		t.Errorf("slice 10: no green ring at (20,30): %v", got)
	}
	if pl.InView() != 2 {
		t.Errorf("in view %d, want 2", pl.InView())
	}
	if !strings.Contains(h.v.bar.info.Text, "cells: 2 in view") {
		t.Errorf("status %q lacks the count", h.v.bar.info.Text)
	}
	// One plane away: drawn fainter and smaller.
	inG, inN := h.greenAround(p, 20, 30, 5)
	h.v.Dims().SetSlice(11)
	h.settle()
	outG, outN := h.greenAround(p, 20, 30, 5)
	if outG == 0 || outG >= inG || outN >= inN {
		t.Errorf("slice 11: out-of-slice point not fainter and smaller: green %d vs %d, %d vs %d pixels", outG, inG, outN, inN)
	}
	if pl.InView() != 0 {
		t.Errorf("slice 11: %d in view, want 0", pl.InView())
	}
	_ = green
	// Beyond ±2 planes: nothing.
	h.v.Dims().SetSlice(13)
	h.settle()
	for dc := -4.0; dc <= 4; dc++ {
		if got := h.pixelAt(p, 20, 30+dc); got != gray(0) {
			t.Fatalf("slice 13: point drawn at (20,%v): %v", 30+dc, got)
		}
	}
	// Appending live shows up after the merged redraw.
	pl.Feed().Append(Point{Z: 13, Y: 20, X: 30, Type: "cell"})
	h.settle()
	if got := ringEdge(20, 30); got.G < 200 {
		t.Errorf("appended point not drawn: %v", got)
	}
	if pl.Len() != 4 {
		t.Errorf("len %d", pl.Len())
	}
}

func TestValueUnderCursor(t *testing.T) {
	h := newHarness(t)
	h.v.AddImage("raw", memVolume(t, volume.Uint16, [3]int{3, 20, 30}, func(z, y, x int) float64 { return float64(1000*z + 10*y + x) }), ImageOptions{})
	h.v.AddImage("f", memVolume(t, volume.Float32, [3]int{3, 20, 30}, func(z, y, x int) float64 { return 0.5 + float64(x) }), ImageOptions{})
	h.v.Dims().SetSlice(2)
	h.settle()
	p := h.panel()
	sz := p.Size()
	sx, sy := p.xf().ToScreen(7.5, 4.5, float64(sz.Width), float64(sz.Height))
	p.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(float32(sx), float32(sy))}})
	want := "z 2  y 4  x 7  │  raw: 2047  │  f: 7.5"
	if got := h.v.bar.status.Text; got != want {
		t.Errorf("status %q, want %q", got, want)
	}
	p.MouseOut()
	if strings.Contains(h.v.bar.status.Text, "raw:") {
		t.Errorf("status kept the value after the pointer left: %q", h.v.bar.status.Text)
	}
}

func TestZoomAndPanEvents(t *testing.T) {
	h := newHarness(t)
	h.v.AddImage("img", memVolume(t, volume.Uint8, [3]int{1, 100, 200}, func(z, y, x int) float64 { return float64(x) }), ImageOptions{})
	h.settle()
	p := h.panel()
	sz := p.Size()
	w, hh := float64(sz.Width), float64(sz.Height)
	// Reset view fits the 200-wide plane into the panel width.
	if got := p.xf().Scale; math.Abs(got-math.Min(w/200, hh/100)) > 1e-9 {
		t.Fatalf("fit scale %v", got)
	}
	// Scroll one notch at a point: the data under it stays under it.
	at := fyne.NewPos(100, 80)
	x0, y0 := p.xf().ToData(100, 80, w, hh)
	p.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: at}, Scrolled: fyne.Delta{DY: 10}})
	x1, y1 := p.xf().ToData(100, 80, w, hh)
	if math.Abs(x1-x0) > 1e-9 || math.Abs(y1-y0) > 1e-9 {
		t.Errorf("zoom moved the point under the cursor: (%v,%v) -> (%v,%v)", x0, y0, x1, y1)
	}
	// Drag right by 30: the data moves with the pointer.
	before := p.xf()
	p.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: at}, Dragged: fyne.Delta{DX: 30, DY: -10}})
	if dx := (before.CX - p.xf().CX) * p.xf().Scale; math.Abs(dx-30) > 1e-9 {
		t.Errorf("pan moved the data by %v pixels, want 30", dx)
	}
	// Zoomed far in, each data pixel covers a block of screen pixels of
	// one value (nearest neighbour).
	for range 20 {
		p.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: at}, Scrolled: fyne.Delta{DY: 10}})
	}
	h.settle()
	if p.xf().Scale < 16 {
		t.Fatalf("scale after zooming in: %v", p.xf().Scale)
	}
	cx, cy := p.xf().ToData(float64(at.X), float64(at.Y), w, hh)
	col := math.Floor(cx)
	sx0, _ := p.xf().ToScreen(col, cy, w, hh)
	sx1, _ := p.xf().ToScreen(col+1, cy, w, hh)
	ref := p.f.img.RGBAAt(int(sx0)+1, int(at.Y))
	for x := int(sx0) + 1; x < int(sx1)-1; x++ {
		if got := p.f.img.RGBAAt(x, int(at.Y)); got != ref {
			t.Fatalf("pixel block of column %v not uniform at x=%d: %v vs %v", col, x, got, ref)
		}
	}
	h.v.Panels().ResetView()
	if math.Abs(p.xf().Scale-math.Min(w/200, hh/100)) > 1e-9 {
		t.Errorf("reset view scale %v", p.xf().Scale)
	}
}

func TestGridModeLinksPanels(t *testing.T) {
	h := newHarness(t)
	raw, _ := h.v.AddImage("raw", memVolume(t, volume.Uint8, [3]int{5, 20, 20}, func(z, y, x int) float64 { return 100 }), ImageOptions{Contrast: [2]float64{0, 255}})
	h.v.AddImage("dezinged", memVolume(t, volume.Uint8, [3]int{5, 20, 20}, func(z, y, x int) float64 { return 200 }), ImageOptions{Contrast: [2]float64{0, 255}})
	h.v.Panels().SetGrid(true)
	h.settle()
	if len(h.v.panels) != 2 {
		t.Fatalf("%d panels in grid mode", len(h.v.panels))
	}
	a, b := h.v.panels[0], h.v.panels[1]
	if a.Position().X >= b.Position().X || a.Position().Y != b.Position().Y {
		t.Errorf("panels not side by side: %v %v", a.Position(), b.Position())
	}
	if got := h.pixelAt(a, 10, 10); got != gray(100) {
		t.Errorf("left panel shows %v, want the raw layer", got)
	}
	if got := h.pixelAt(b, 10, 10); got != gray(200) {
		t.Errorf("right panel shows %v, want the dezinged layer", got)
	}
	// Panning one pans both: they share the transform.
	a.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: 1000}})
	h.settle()
	if got := b.f.img.RGBAAt(b.f.w/2, b.f.h/2); got != (color.RGBA{0x26, 0x29, 0x30, 255}) {
		t.Errorf("right panel did not follow the pan of the left one: centre %v", got)
	}
	// Points join the panel of the image below them.
	h.v.AddPoints("cells", []Point{{Z: 0, Y: 10, X: 10}})
	if len(h.v.panels) != 2 || len(h.v.panels[1].group) != 2 {
		t.Errorf("points did not join the top image's panel: %d panels", len(h.v.panels))
	}
	raw.SetVisible(false)
	if len(h.v.panels) != 1 {
		t.Errorf("hiding a layer left %d panels", len(h.v.panels))
	}
	h.v.Panels().SetGrid(false)
	if len(h.v.panels) != 1 || h.v.panels[0].group != nil {
		t.Error("grid off did not return to one panel of all layers")
	}
}

func TestHeatmapFillsLive(t *testing.T) {
	h := newHarness(t)
	hm, err := h.v.AddHeatmap("l2", 4, 6, nil, ImageOptions{Colormap: resources.Gray, Contrast: [2]float64{0, 10}})
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	p := h.panel()
	if got := h.pixelAt(p, 1, 1); got.R != 0x26 {
		t.Errorf("unfilled cell drew %v, want the background", got)
	}
	// Fill rows 1-2, columns 2-4.
	if err := hm.Feed().SetBlock(1, 2, 2, []float64{5, 5, 5, 10, 10, 10}); err != nil {
		t.Fatal(err)
	}
	h.settle()
	if got := h.pixelAt(p, 1, 3); got != gray(128) {
		t.Errorf("cell (1,3)=5 drew %v", got)
	}
	if got := h.pixelAt(p, 2, 4); got != gray(255) {
		t.Errorf("cell (2,4)=10 drew %v", got)
	}
	if got := h.pixelAt(p, 1, 1); got.R != 0x26 {
		t.Errorf("unfilled cell drew %v after the fill", got)
	}
	if v, ok := h.v.ValueAt(hm, 2, 3); !ok || v != 10 {
		t.Errorf("value at (2,3) = %v %v", v, ok)
	}
	if err := hm.Feed().SetBlock(3, 5, 1, []float64{1, 2}); err == nil {
		t.Error("a block past the edge was accepted")
	}
}

func TestRefreshPlanesOfVolumeBeingWritten(t *testing.T) {
	h := newHarness(t)
	info := volume.Info{Shape: [3]int{4, 5, 5}, DType: volume.Uint8}
	data := make([]byte, info.Bytes())
	m, _ := volume.NewMemory(info, data)
	l, _ := h.v.AddImage("out", volume.New("out", m), ImageOptions{Contrast: [2]float64{0, 255}})
	h.v.Dims().SetSlice(2)
	h.settle()
	if got := h.pixelAt(h.panel(), 1, 1); got != gray(0) {
		t.Fatalf("before writing: %v", got)
	}
	// The pipeline writes plane 2 (in memory here) and says so.
	pb := int(info.PlaneBytes())
	for i := 2 * pb; i < 3*pb; i++ {
		data[i] = 77
	}
	l.Feed().RefreshPlanes(2, 3)
	h.settle()
	if got := h.pixelAt(h.panel(), 1, 1); got != gray(77) {
		t.Errorf("after RefreshPlanes: %v, want 77", got)
	}
}

func TestPanelsHaveScaleBar(t *testing.T) {
	h := newHarness(t)
	vol := memVolume(t, volume.Uint8, [3]int{1, 100, 100}, func(z, y, x int) float64 { return 0 })
	vol.VoxelSize = [3]float64{2, 0.5, 0.5}
	h.v.AddImage("img", vol, ImageOptions{})
	h.settle()
	length, label := h.panel().scaleBar()
	// 0.5 µm per voxel at the fit scale: the bar spans a 1-2-5 length.
	phys := length / h.panel().xf().Scale * 0.5
	var said float64
	if _, err := fmt.Sscanf(label, "%g µm", &said); err != nil || length <= 0 || length > 150 || math.Abs(phys-said) > 1e-9*said || niceLength(said) != said {
		t.Errorf("scale bar %v px %q (phys %v)", length, label, phys)
	}
	if n := niceLength(37); n != 20 {
		t.Errorf("niceLength(37) = %v", n)
	}
}
