package viewer

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
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
	e := h.v.Dims().Extent()
	for _, a := range orthoAxes {
		p := h.orthoPanel(a)
		ra, ca := p.dispAxes()
		for _, rc := range [][2]int{{0, 0}, {e[ra] - 1, e[ca] - 1}, {e[ra] / 2, 1}} {
			got, ok := p.valueAt(l, rc[0], rc[1])
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
	h.v.Panels().SetOrtho(true)
	pt := [3]int{3, 11, 7}
	h.v.Dims().SetPoint(pt)
	h.settle()
	h.checkPlanes(l, pt)

	// The crosshair: the point's column in the xy panel is drawn in
	// the theme's warning colour (dashed), the column beside it not.
	xy := h.orthoPanel(Z)
	sz := xy.Size()
	ps := xy.pixelScale()
	sx, _ := xy.xf().ToScreen(7.5, 0, float64(sz.Width), float64(sz.Height))
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
		ra, ca := p.dispAxes()
		if _, n := h.greenAround(p, float64(pt[ra]), float64(pt[ca]), 4); n == 0 {
			t.Fatalf("%s panel: no marker at the point", orthoTitle(a))
		}
	}
	_ = pts

	// A click in the xz panel at z 1, x 20 moves the point there: the
	// xy panel shows z 1 and the zy panel x 20; y stays.
	xz := h.orthoPanel(Y)
	sz = xz.Size()
	px, py := xz.xf().ToScreen(20.5, 1.5, float64(sz.Width), float64(sz.Height))
	xz.Tapped(&fyne.PointEvent{Position: fyne.NewPos(float32(px), float32(py))})
	h.settle()
	pt = [3]int{1, 11, 20}
	if h.v.Dims().Point() != pt {
		t.Fatalf("point %v after the click, want %v", h.v.Dims().Point(), pt)
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
	if zs := zy.Size(); math.Abs(float64(zs.Height-xs.Height)) > 0.5 || math.Abs(float64(zs.Width/xs.Height)-24.0/20) > 0.01 {
		t.Fatalf("zy panel %v, xy %v: want it as tall, 24:20 wide", zs, xs)
	}

	// Off again: one panel along the viewer's axis.
	h.v.Panels().SetOrtho(false)
	if len(h.v.panels) != 1 || h.v.panels[0].ortho != nil {
		t.Fatalf("%d panels after ortho off", len(h.v.panels))
	}
}

// TestPanelsShowTheirFramePixelForPixel: every panel's image is shown
// at its frame's size in device pixels, whatever fraction of a pixel
// the layout gives the panel (the ortho layout's scale makes them
// fractional). A frame a fraction of a pixel larger than its image was
// squeezed by the GPU's nearest sampling, which dropped the column
// through the middle: the ortho crosshair's, at the start.
func TestPanelsShowTheirFramePixelForPixel(t *testing.T) {
	h := newHarness(t)
	vol := memVolume(t, volume.Uint16, [3]int{60, 256, 256}, func(z, y, x int) float64 { return float64(x) })
	vol.VoxelSize = [3]float64{5, 2, 2}
	if _, err := h.v.AddImage("planes", vol, ImageOptions{}); err != nil {
		t.Fatal(err)
	}
	fractional := false
	for _, ortho := range []bool{false, true} {
		h.v.Panels().SetOrtho(ortho)
		for _, w := range []float32{900, 1001, 1280} {
			h.w.Resize(fyne.NewSize(w, w*0.62))
			h.settle()
			for _, p := range h.v.panels {
				r := test.WidgetRenderer(p).(*sliceRenderer)
				ps := p.pixelScale()
				sz := p.Size()
				fractional = fractional || float64(sz.Width)*ps != math.Floor(float64(sz.Width)*ps)
				iw, ih := float64(r.img.Size().Width)*ps, float64(r.img.Size().Height)*ps
				if math.Abs(iw-float64(p.f.w)) > 1e-3 || math.Abs(ih-float64(p.f.h)) > 1e-3 || iw > float64(sz.Width)*ps+1e-3 {
					t.Errorf("ortho %v, window %v: panel %v shows its %dx%d frame at %.3fx%.3f device pixels", ortho, w, sz, p.f.w, p.f.h, iw, ih)
				}
			}
		}
	}
	if !fractional {
		t.Error("no panel got a fractional size: the check proves nothing")
	}
}

// yRamp is a volume whose voxels are 40 × their row (y), read from no
// file; while gate is set, reads wait for release.
type yRamp struct {
	info    volume.Info
	gate    atomic.Bool
	release chan struct{}
}

func (s *yRamp) Info() volume.Info { return s.info }
func (s *yRamp) Close() error      { return nil }
func (s *yRamp) ReadSlab(z0, z1 int, dst []byte) error {
	if s.gate.Load() {
		<-s.release
	}
	u := volume.Uint16s(dst)
	ny, nx := s.info.Shape[1], s.info.Shape[2]
	for i := range u {
		u[i] = uint16(40 * ((i / nx) % ny))
	}
	return nil
}

// TestOrthoSideViewsFollowADrag: a drag in the xy panel of a volume
// whose side slices are slow (read plane by plane) updates the xz and zy
// panels at once, from the layer's coarse copy, instead of leaving them
// blank until the read ends; the real planes replace them when read.
func TestOrthoSideViewsFollowADrag(t *testing.T) {
	h := newHarness(t)
	src := &yRamp{info: volume.Info{Shape: [3]int{40, 512, 2048}, DType: volume.Uint16}, release: make(chan struct{})}
	if src.info.Bytes() <= wholeBytes {
		t.Fatal("the volume is read whole: no slow side views")
	}
	l, err := h.v.AddImage("big", volume.New("big.raw", src), ImageOptions{Contrast: [2]float64{0, 20000}})
	if err != nil {
		t.Fatal(err)
	}
	h.v.Panels().SetOrtho(true)
	h.settle() // side views read, coarse copy built
	if l.preview == nil || l.preview.grid == nil {
		t.Fatal("no coarse copy after the first side views")
	}
	// The storage hangs from here on: no slice can load.
	src.gate.Store(true)
	var once sync.Once
	open := func() { once.Do(func() { close(src.release) }) }
	defer open()
	xy := h.orthoPanel(Z)
	sz := xy.Size()
	from, to := [2]float64{100, 300}, [2]float64{400, 1500} // (y, x)
	sx, sy := xy.xf().ToScreen(from[1]+0.5, from[0]+0.5, float64(sz.Width), float64(sz.Height))
	ex, ey := xy.xf().ToScreen(to[1]+0.5, to[0]+0.5, float64(sz.Width), float64(sz.Height))
	const steps = 5
	for i := 1; i <= steps; i++ {
		x := sx + (ex-sx)*float64(i)/steps
		y := sy + (ey-sy)*float64(i)/steps
		xy.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(float32(x), float32(y))}})
		h.q.drain()
		pt := h.v.Dims().Point()
		// The xz panel shows the plane y = pt[1], coarse: 40 y, the
		// mean over the copy's block of rows.
		p, exact := l.planeFor(Y, pt[1], 0)
		if p == nil || exact || p.fy <= 1 {
			t.Fatalf("step %d (point %v): xz panel plane %v (exact %v): want the coarse copy's", i, pt, p, exact)
		}
		f := int(p.fy)
		want := 40 * (float64(pt[1]/f*f) + float64(f-1)/2)
		if got := p.value(0, 0); math.Abs(got-want) > 40 {
			t.Errorf("step %d: xz panel at y %d shows %v, want about %v", i, pt[1], got, want)
		}
		if p, _ := l.planeFor(X, pt[2], 0); p == nil {
			t.Fatalf("step %d: zy panel blank", i)
		}
	}
	if pt := h.v.Dims().Point(); pt[1] != int(to[0]) || pt[2] != int(to[1]) {
		t.Fatalf("the drag ended at %v, want y %v x %v", pt, to[0], to[1])
	}
	// The storage answers: the real planes replace the coarse ones.
	src.gate.Store(false)
	open()
	h.settle()
	if p, exact := l.planeFor(Y, int(to[0]), 0); p == nil || !exact || p.value(0, 0) != 40*to[0] {
		t.Errorf("after the reads: xz plane exact %v", exact)
	}
}

// TestOrthoThinStackGetsUsableStrips: a stack of 4 planes under 200 x
// 200 pixels gets xz and zy panels a tenth of the xy panel's height
// (minStrip, not a few pixels), z stretched in them and their titles saying by how
// much; a click in them still lands on the voxel under the pointer.
func TestOrthoThinStackGetsUsableStrips(t *testing.T) {
	h := newHarness(t)
	vol := memVolume(t, volume.Uint16, [3]int{4, 200, 200}, func(z, y, x int) float64 { return orthoValue(z, y, x) })
	vol.VoxelSize = [3]float64{1, 1, 1}
	l, err := h.v.AddImage("thin", vol, ImageOptions{Contrast: [2]float64{0, 6000}})
	if err != nil {
		t.Fatal(err)
	}
	h.v.Panels().SetOrtho(true)
	h.settle()
	xy, xz, zy := h.orthoPanel(Z), h.orthoPanel(Y), h.orthoPanel(X)
	if r := xz.Size().Height / xy.Size().Height; r < 0.09 || zy.Size().Width != xz.Size().Height {
		t.Fatalf("xz panel %v, zy %v under xy %v: want side strips a tenth of xy's height", xz.Size(), zy.Size(), xy.Size())
	}
	if got := test.WidgetRenderer(xz).(*sliceRenderer).title.Text; got != "xz (z ×5)" {
		t.Errorf("xz title %q, want it to say z is stretched 5 times", got)
	}
	sz := xz.Size()
	px, py := xz.xf().ToScreen(150.5, 2.5, float64(sz.Width), float64(sz.Height))
	xz.Tapped(&fyne.PointEvent{Position: fyne.NewPos(float32(px), float32(py))})
	h.settle()
	if pt := h.v.Dims().Point(); pt[0] != 2 || pt[2] != 150 {
		t.Fatalf("click at z 2, x 150 of the stretched xz panel moved the point to %v", pt)
	}
	h.checkPlanes(l, h.v.Dims().Point())
	// The voxel size set in the controls shapes the panels too: z of 50
	// needs no stretch.
	h.v.Select(l)
	h.v.ctl.voxel.SetText("50, 1, 1")
	h.v.ctl.voxel.OnSubmitted(h.v.ctl.voxel.Text)
	h.settle()
	if vs := l.Volume().VoxelSize; vs != [3]float64{50, 1, 1} {
		t.Fatalf("voxel size %v after typing 50, 1, 1", vs)
	}
	if got := test.WidgetRenderer(xz).(*sliceRenderer).title.Text; got != "xz" {
		t.Errorf("xz title %q with 200 µm of z, want no stretch", got)
	}
	if r := xz.Size().Height / xy.Size().Height; math.Abs(float64(r)-1) > 0.01 {
		t.Errorf("xz/xy heights %v for 200 µm of z under 200 µm of y, want 1", r)
	}
	// A bad size is refused beside the entry.
	h.v.ctl.voxel.SetText("5, abc, 2")
	h.v.ctl.voxel.OnSubmitted(h.v.ctl.voxel.Text)
	if h.v.ctl.voxelMsg.Hidden || !strings.Contains(h.v.ctl.voxelMsg.Text, "abc") || l.Volume().VoxelSize != [3]float64{50, 1, 1} {
		t.Errorf("bad voxel size: message %q (hidden %v), size %v", h.v.ctl.voxelMsg.Text, h.v.ctl.voxelMsg.Hidden, l.Volume().VoxelSize)
	}
}

// TestOrthoCrosshairMeetsTheClickedVoxel: on two channels of a 30 x
// 200 x 300 crop with the voxel size 5,2,2 µm typed on the top one (as
// a user sets it on one layer), a click anywhere in any panel (centre,
// off-centre, corners; before and after a zoom and a pan) moves the
// point to the voxel under it, and in every panel the lines through the
// point map back to that voxel; the panels sharing an axis draw its
// line at the same place on screen (xz under xy shares x, zy beside xy
// shares y); and the panels keep the voxel size's proportions. Before,
// the layout took its scale from the bottom layer (no voxel size) and
// the panels theirs from the top one: a click at x=400 put xz's line
// at x=427, and zy lay beside xz with y across.
func TestOrthoCrosshairMeetsTheClickedVoxel(t *testing.T) {
	h := newHarness(t)
	h.w.Resize(fyne.NewSize(1280, 800))
	shape := [3]int{30, 200, 300}
	for i, n := range []string{"ch0", "ch1"} {
		vol := memVolume(t, volume.Uint16, shape, func(z, y, x int) float64 { return orthoValue(z, y, x) })
		if i == 1 {
			// The top layer has the voxel size, set before its loader
			// reads the volume (a write after would race the loader).
			vol.VoxelSize = [3]float64{5, 2, 2}
		}
		if _, err := h.v.AddImage(n, vol, ImageOptions{Contrast: [2]float64{0, 40000}}); err != nil {
			t.Fatal(err)
		}
	}
	h.v.Panels().SetOrtho(true)
	h.settle()
	xy, xz, zy := h.orthoPanel(Z), h.orthoPanel(Y), h.orthoPanel(X)

	// Layout: xz under xy as wide, zy beside xy as tall; one scale:
	// 150 µm of z against 400 µm of y and 600 µm of x.
	pos := func(p *sliceView) fyne.Position { return fyne.CurrentApp().Driver().AbsolutePositionForObject(p) }
	near := func(a, b float32) bool { return math.Abs(float64(a-b)) < 0.5 }
	if !near(pos(xz).X, pos(xy).X) || !near(xz.Size().Width, xy.Size().Width) || pos(xz).Y <= pos(xy).Y {
		t.Errorf("xz at %v %v, xy at %v %v: want xz under xy, as wide", pos(xz), xz.Size(), pos(xy), xy.Size())
	}
	if !near(pos(zy).Y, pos(xy).Y) || !near(zy.Size().Height, xy.Size().Height) || pos(zy).X <= pos(xy).X {
		t.Errorf("zy at %v %v, xy at %v %v: want zy beside xy, as tall", pos(zy), zy.Size(), pos(xy), xy.Size())
	}
	ratio := func(a, b float32) float64 { return float64(a / b) }
	if r := ratio(xy.Size().Height, xy.Size().Width); math.Abs(r-400.0/600) > 0.01 {
		t.Errorf("xy panel %v: want 400:600 µm", xy.Size())
	}
	if r := ratio(xz.Size().Height, xy.Size().Height); math.Abs(r-150.0/400) > 0.01 {
		t.Errorf("xz panel %v under xy %v: want 150:400 µm", xz.Size(), xy.Size())
	}
	if r := ratio(zy.Size().Width, xy.Size().Width); math.Abs(r-150.0/600) > 0.01 {
		t.Errorf("zy panel %v beside xy %v: want 150:600 µm", zy.Size(), xy.Size())
	}

	// screenOf returns where panel p draws its lines through the point
	// (absolute), and voxelAt the voxel under an absolute position.
	screenOf := func(p *sliceView) (x, y float32) {
		ra, ca := p.dispAxes()
		pt := h.v.Dims().Point()
		sz := p.Size()
		sx, sy := p.xf().ToScreen(float64(pt[ca])+0.5, float64(pt[ra])+0.5, float64(sz.Width), float64(sz.Height))
		return pos(p).X + float32(sx), pos(p).Y + float32(sy)
	}
	click := func(p *sliceView, at fyne.Position) {
		p.Tapped(&fyne.PointEvent{Position: at.Subtract(pos(p))})
		h.settle()
	}
	check := func(what string, want [3]int) {
		t.Helper()
		if got := h.v.Dims().Point(); got != want {
			t.Fatalf("%s: point %v, want the voxel clicked %v", what, got, want)
		}
		for _, p := range []*sliceView{xy, xz, zy} {
			x, y := screenOf(p)
			row, col := p.cellAt(fyne.NewPos(x, y).Subtract(pos(p)))
			ra, ca := p.dispAxes()
			if row != want[ra] || col != want[ca] {
				t.Errorf("%s: %s panel's lines meet at (%d, %d), want (%d, %d)", what, orthoTitle(*p.ortho), row, col, want[ra], want[ca])
			}
		}
		xyX, xyY := screenOf(xy)
		if x, _ := screenOf(xz); math.Abs(float64(x-xyX)) > 0.5 {
			t.Errorf("%s: xz's x line at %v, xy's at %v", what, x, xyX)
		}
		if _, y := screenOf(zy); math.Abs(float64(y-xyY)) > 0.5 {
			t.Errorf("%s: zy's y line at %v, xy's at %v", what, y, xyY)
		}
	}
	// voxel returns the absolute position of voxel (z, y, x)'s centre
	// in panel p.
	voxel := func(p *sliceView, zyx [3]float64) fyne.Position {
		ra, ca := p.dispAxes()
		sz := p.Size()
		sx, sy := p.xf().ToScreen(zyx[ca]+0.5, zyx[ra]+0.5, float64(sz.Width), float64(sz.Height))
		return pos(p).Add(fyne.NewPos(float32(sx), float32(sy)))
	}
	for _, round := range []string{"fitted", "zoomed and panned"} {
		if round != "fitted" {
			h.v.Panels().setNav(h.v.nav.ZoomAt(1.7, 100, 80, float64(xy.Size().Width), float64(xy.Size().Height), 0.1, 100).Pan(-30, 12))
			h.settle()
		}
		for _, pt := range [][3]int{{15, 100, 150}, {3, 20, 270}, {27, 190, 5}, {0, 0, 0}, {29, 199, 299}, {11, 137, 42}} {
			h.v.Dims().SetPoint([3]int{15, 100, 150})
			click(xy, voxel(xy, [3]float64{float64(h.v.Dims().Point()[0]), float64(pt[1]), float64(pt[2])}))
			click(xz, voxel(xz, [3]float64{float64(pt[0]), float64(pt[1]), float64(pt[2])}))
			check(fmt.Sprintf("%s, clicks in xy and xz at %v", round, pt), pt)
			h.v.Dims().SetPoint([3]int{15, 100, 150})
			click(zy, voxel(zy, [3]float64{float64(pt[0]), float64(pt[1]), float64(h.v.Dims().Point()[2])}))
			click(xy, voxel(xy, [3]float64{float64(pt[0]), float64(pt[1]), float64(pt[2])}))
			check(fmt.Sprintf("%s, clicks in zy and xy at %v", round, pt), pt)
		}
	}

	// A scroll in the zy panel zooms about the pointer along y (what
	// is under it stays) and leaves the x on show in xy where it was:
	// zy's pointer across is z, which does not pan.
	dataAt := func(p *sliceView, at fyne.Position) (x, y float64) {
		sz := p.Size()
		return p.xf().ToData(float64(at.X), float64(at.Y), float64(sz.Width), float64(sz.Height))
	}
	under := fyne.NewPos(zy.Size().Width*0.8, zy.Size().Height*0.3)
	centre := fyne.NewPos(xy.Size().Width/2, xy.Size().Height/2)
	_, y0 := dataAt(zy, under)
	x0, _ := dataAt(xy, centre)
	zy.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: under}, Scrolled: fyne.Delta{DY: 20}})
	h.settle()
	_, y1 := dataAt(zy, under)
	x1, _ := dataAt(xy, centre)
	if math.Abs(y1-y0) > 1e-6 || math.Abs(x1-x0) > 1e-6 {
		t.Errorf("scroll in zy: y under the pointer %v then %v; x at xy's centre %v then %v", y0, y1, x0, x1)
	}
	check("after a scroll in zy", h.v.Dims().Point())

	// Ortho and 3D are one or the other, and the checks say which.
	h.v.Scene().SetOn(true)
	if h.v.ortho.on || h.v.ortho.check.Checked || !h.v.v3Check.Checked {
		t.Errorf("3D on: ortho %v (check %v), 3D check %v", h.v.ortho.on, h.v.ortho.check.Checked, h.v.v3Check.Checked)
	}
	h.v.Panels().SetOrtho(true)
	if !h.v.ortho.on || !h.v.ortho.check.Checked || h.v.v3Check.Checked {
		t.Errorf("ortho on: ortho %v (check %v), 3D check %v", h.v.ortho.on, h.v.ortho.check.Checked, h.v.v3Check.Checked)
	}
}

// TestOrthoZYPanelShowsYDownZAcross: the zy panel draws its x plane
// transposed, y down its rows beside the xy panel's and z across: a
// volume whose voxels are 8 × z shows columns of one grey each, getting
// lighter to the right, the same down every row.
func TestOrthoZYPanelShowsYDownZAcross(t *testing.T) {
	h := newHarness(t)
	vol := memVolume(t, volume.Uint8, [3]int{30, 40, 50}, func(z, y, x int) float64 { return float64(8 * z) })
	vol.VoxelSize = [3]float64{5, 2, 2}
	if _, err := h.v.AddImage("planes", vol, ImageOptions{Contrast: [2]float64{0, 255}}); err != nil {
		t.Fatal(err)
	}
	h.v.Panels().SetOrtho(true)
	h.v.Dims().SetPoint([3]int{0, 0, 25}) // the crosshair off the cells read
	h.settle()
	zy := h.orthoPanel(X)
	for _, y := range []float64{3, 17, 38} {
		for _, z := range []float64{2, 11, 27} {
			if got, want := h.pixelAt(zy, y, z), gray(uint8(8*z)); got != want {
				t.Errorf("zy panel at y %v, z %v: %v, want %v", y, z, got, want)
			}
		}
	}
}

// TestTransposeEveryType: the zy panel's transposed plane holds the
// source's value at (c, r) in (r, c), for every element type.
func TestTransposeEveryType(t *testing.T) {
	for _, dt := range []volume.DType{volume.Uint8, volume.Int8, volume.Uint16, volume.Int16, volume.Uint32, volume.Int32, volume.Float32, volume.Float64} {
		vol := memVolume(t, dt, [3]int{1, 5, 7}, func(z, y, x int) float64 { return float64(y*7 + x) })
		p := &plane{dtype: dt, rows: 5, cols: 7, data: make([]byte, vol.PlaneBytes()), off: []bool{false, true, false, false, true}}
		if err := vol.ReadSlab(0, 1, p.data); err != nil {
			t.Fatal(err)
		}
		tp := transpose(p)
		if tp.rows != 7 || tp.cols != 5 || !slices.Equal(tp.offCols, p.off) {
			t.Fatalf("%v: %dx%d, off columns %v", dt, tp.rows, tp.cols, tp.offCols)
		}
		for r := range 7 {
			for c := range 5 {
				if got, want := tp.value(r, c), p.value(c, r); got != want {
					t.Fatalf("%v: transposed (%d, %d) = %v, want %v", dt, r, c, got, want)
				}
			}
		}
	}
}
