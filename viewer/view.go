package viewer

import (
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/viewer/model"
	"github.com/voxlab/voxlab/widgets"
)

// sliceView is one panel of the canvas: it draws the viewer's layers (or,
// in grid mode, one group of them) into a reused RGBA frame the size of the
// panel in device pixels, and turns drags into pans, scrolls into zooms
// centred on the pointer and pointer moves into the status line.
type sliceView struct {
	widget.BaseWidget
	v *Viewer
	// group is what a grid panel shows: an image layer and the points
	// layers above it; nil shows every visible layer.
	group []Layer
	f     frame
	// fit shows the panel's layers whole; fitFor is what it was made
	// for (fitted: it was made).
	fit    xform
	fitFor fitKey
	fitted bool
	// ortho is the axis a panel of the orthogonal views slices along
	// (orthoPanels); nil: the viewer's.
	ortho *Axis
	// flip holds the zy panel's transposed planes (flipped).
	flip flipCache
}

// axis returns the axis the panel slices along.
func (s *sliceView) axis() Axis {
	if s.ortho != nil {
		return *s.ortho
	}
	return s.v.at.Axis()
}

// fitKey is what a panel's fit depends on.
type fitKey struct {
	w, h       float32
	axis       Axis
	rows, cols int
	aspect     float64
}

// xf returns the panel's transform: its fit under the shared navigation.
// The side panels of the orthogonal views pan only along the axis they
// share with the xy panel (xz along x, zy along y), so that their lines
// stay on the point's voxel; z keeps its place in both.
func (s *sliceView) xf() xform {
	n := s.v.nav
	if s.ortho != nil {
		switch *s.ortho {
		case Y:
			n.TY = 0
		case X:
			n.TX = 0
		}
	}
	return n.Apply(s.fitNow())
}

// dispAxes returns the volume axes the panel shows as rows and columns:
// the slicing axis's (Axis.displayAxes), except in the zy panel of the
// orthogonal views, which shows y down its rows, as the xy panel beside
// it does, and z across (orthoDisplayAxes).
func (s *sliceView) dispAxes() (row, col int) {
	if s.ortho != nil {
		return orthoDisplayAxes(*s.ortho)
	}
	return s.axis().DisplayAxes()
}

// flipped reports whether the panel shows its planes transposed (the
// zy panel: a plane along x is read with z down its rows).
func (s *sliceView) flipped() bool { return s.ortho != nil && *s.ortho == X }

// valueAt returns layer l's value at (row, col) of the plane s shows,
// if it is loaded.
func (s *sliceView) valueAt(l Layer, row, col int) (float64, bool) {
	if s.ortho != nil {
		return s.v.ortho.valueIn(s, l, row, col)
	}
	return s.v.ValueAt(l, row, col)
}

// fitNow returns the panel's fit, made again when what it shows or its
// size changed: at any time until the user pans or zooms, afterwards
// only for a new size (hiding a layer then leaves the view alone).
func (s *sliceView) fitNow() xform {
	sz := s.Size()
	e := extentOf(s.v.stack.All(), s.group)
	ra, ca := s.dispAxes()
	aspect := aspectAlong(s.v.stack.All(), s.group, s.axis())
	if s.ortho != nil {
		// One voxel size for the three panels, the layout's, z
		// stretched in the side panels of a thin stack (zStretch).
		vs := orthoVoxel(s.v.stack.All())
		vs[0] *= max(s.v.ortho.z, 1)
		aspect = vs[ra] / vs[ca]
	}
	k := fitKey{w: sz.Width, h: sz.Height, axis: s.axis(), rows: e[ra], cols: e[ca], aspect: aspect}
	if s.fitted && (k == s.fitFor || s.v.navigated && k.w == s.fitFor.w && k.h == s.fitFor.h) {
		return s.fit
	}
	s.fit = model.Fit(k.rows, k.cols, k.aspect, float64(k.w), float64(k.h))
	s.fitFor, s.fitted = k, true
	return s.fit
}

func newSliceView(v *Viewer, group []Layer) *sliceView {
	s := &sliceView{v: v, group: group}
	s.ExtendBaseWidget(s)
	return s
}

// CreateRenderer builds the panel's image and overlays.
func (s *sliceView) CreateRenderer() fyne.WidgetRenderer {
	r := &sliceRenderer{s: s}
	r.img = canvas.NewImageFromImage(nil)
	r.img.FillMode = canvas.ImageFillStretch
	r.img.ScaleMode = canvas.ImageScalePixels
	r.title = canvas.NewText("", overlayText)
	r.titleBg = canvas.NewRectangle(overlayShade)
	r.title.TextSize = max(theme.TextSize()*0.9, widgets.MinTextSize)
	r.bar = canvas.NewRectangle(color.White)
	r.barBg = canvas.NewRectangle(overlayShade)
	r.barText = canvas.NewText("", color.White)
	r.barText.TextSize = max(theme.TextSize()*0.85, widgets.MinTextSize)
	r.barText.Alignment = fyne.TextAlignCenter
	return r
}

// Dragged pans every panel with the pointer (or moves the ortho point,
// draws a selection box, moves points); the status bar follows the
// pointer through it all, as it does without a button held.
func (s *sliceView) Dragged(e *fyne.DragEvent) {
	defer s.hover(e.Position)
	if s.ortho != nil {
		s.v.Dims().SetPoint(s.v.ortho.pick(s, e.Position))
		s.hover(e.Position)
		return
	}
	if s.v.edit.dragged(s, e) {
		return
	}
	s.v.Panels().setNav(s.v.nav.Pan(float64(e.Dragged.DX), float64(e.Dragged.DY)))
}

// DragEnd ends a pan.
func (s *sliceView) DragEnd() { s.v.edit.dragEnd(s) }

// Scrolled zooms every panel about the pointer's position: one wheel
// notch (10 units in Fyne) zooms by 2^(1/4).
func (s *sliceView) Scrolled(e *fyne.ScrollEvent) {
	sz := s.Size()
	f := math.Pow(2, float64(e.Scrolled.DY)/40)
	lo, hi := zoomRange(s.v.panels)
	x, y := float64(e.Position.X), float64(e.Position.Y)
	if s.ortho != nil {
		// A side panel zooms about the pointer along the axis it shares
		// with the xy panel only: its z does not pan (xf).
		switch *s.ortho {
		case Y:
			y = float64(sz.Height) / 2
		case X:
			x = float64(sz.Width) / 2
		}
	}
	s.v.Panels().setNav(s.v.nav.ZoomAt(f, x, y, float64(sz.Width), float64(sz.Height), lo, hi))
	s.hover(e.Position)
}

// MouseIn starts reporting values under the pointer.
func (s *sliceView) MouseIn(e *desktop.MouseEvent) { s.hover(e.Position) }

// MouseMoved reports values under the pointer.
func (s *sliceView) MouseMoved(e *desktop.MouseEvent) { s.hover(e.Position) }

// MouseOut clears the pointer readout.
func (s *sliceView) MouseOut() {
	s.v.ptr = pointer{}
	s.v.bar.update(s.v)
}

// Tapped focuses the panel so arrow keys step through slices; a tap on
// a heat-map cell shows the map of its row (see Viewer.tapped).
func (s *sliceView) Tapped(e *fyne.PointEvent) {
	if c := fyne.CurrentApp().Driver().CanvasForObject(s); c != nil {
		c.Focus(s)
	}
	if s.ortho != nil {
		s.v.Dims().SetPoint(s.v.ortho.pick(s, e.Position))
		s.hover(e.Position)
		return
	}
	if s.v.edit.clickDone(1) || s.v.edit.tapped(s, e) {
		return
	}
	s.tapHeatmap(e.Position)
}

// DoubleTapped resets the view; in the points edit modes it is a click
// (Fyne reports two quick clicks as one double tap).
func (s *sliceView) DoubleTapped(e *fyne.PointEvent) {
	if s.v.edit.clickDone(2) || s.v.edit.tapped(s, e) {
		return
	}
	s.v.Panels().ResetView()
}

// FocusGained is part of fyne.Focusable.
func (s *sliceView) FocusGained() {}

// FocusLost is part of fyne.Focusable.
func (s *sliceView) FocusLost() {}

// TypedRune is part of fyne.Focusable.
func (s *sliceView) TypedRune(rune) {}

// TypedKey steps through slices with the arrow keys.
func (s *sliceView) TypedKey(e *fyne.KeyEvent) { s.v.typedKey(e) }

// cellAt returns the data (row, col) under a panel position.
func (s *sliceView) cellAt(pos fyne.Position) (row, col int) {
	sz := s.Size()
	x, y := s.xf().ToData(float64(pos.X), float64(pos.Y), float64(sz.Width), float64(sz.Height))
	return int(math.Floor(y)), int(math.Floor(x))
}

// pixelScale returns device pixels per logical pixel.
func (s *sliceView) pixelScale() float64 {
	if c := fyne.CurrentApp().Driver().CanvasForObject(s); c != nil && c.Scale() > 0 {
		return float64(c.Scale())
	}
	return 1
}

// frameSize is the panel's size in whole device pixels: its frame's,
// and the size its image is shown at (frameSize/ps logical), so that
// each frame pixel is one screen pixel. A frame a fraction of a pixel
// larger than its image was squeezed into it by the GPU's nearest
// sampling, which drops a column and a row near the middle — where the
// orthogonal views' crosshair starts, which then did not show until the
// point moved.
func (s *sliceView) frameSize() (w, h int) {
	sz, ps := s.Size(), s.pixelScale()
	return max(int(math.Floor(float64(sz.Width)*ps+1e-6)), 1), max(int(math.Floor(float64(sz.Height)*ps+1e-6)), 1)
}

// draw renders the panel into its frame.
func (s *sliceView) draw() {
	sz := s.Size()
	ps := s.pixelScale()
	s.f.resize(s.frameSize())
	var flip *flipCache
	if s.flipped() {
		flip = &s.flip
	}
	c := drawCtx{at: &s.v.at, axis: s.axis(), flip: flip, t: s.xf(), sw: float64(sz.Width), sh: float64(sz.Height), ps: ps}
	c.paint(&s.f, shownIn(s.v.stack.All(), s.group))
	if s.ortho != nil {
		s.v.ortho.crosshair(s, ps)
	} else {
		s.v.edit.paint(&s.f, s, ps)
	}
}

// The panel title and scale bar are drawn over the data, which may be
// white: a shade under them keeps their text readable on any data
// (#dddddd on black at 75% over white is 7.6:1; TestThemeContrast).
var (
	overlayText  = color.NRGBA{0xdd, 0xdd, 0xdd, 0xff}
	overlayShade = color.NRGBA{0, 0, 0, 0xc0}
)

type sliceRenderer struct {
	s       *sliceView
	img     *canvas.Image
	title   *canvas.Text
	titleBg *canvas.Rectangle
	bar     *canvas.Rectangle
	barBg   *canvas.Rectangle
	barText *canvas.Text
	size    fyne.Size
}

func (r *sliceRenderer) Layout(size fyne.Size) {
	r.size = size
	w, h := r.s.frameSize()
	ps := float32(r.s.pixelScale())
	r.img.Resize(fyne.NewSize(float32(w)/ps, float32(h)/ps))
	r.Refresh()
}

func (r *sliceRenderer) MinSize() fyne.Size { return fyne.NewSize(64, 64) }

func (r *sliceRenderer) Refresh() {
	if r.size.IsZero() || r.s.v.frozen > 0 {
		return
	}
	r.s.draw()
	r.img.Image = r.s.f.img
	r.img.Refresh()
	pad := theme.Padding()
	r.title.Text = panelTitle(r.s.group, &r.s.v.at)
	if r.s.ortho != nil {
		r.title.Text = r.s.v.ortho.panelTitle(*r.s.ortho)
	}
	r.title.Move(fyne.NewPos(pad*2, pad))
	r.title.Refresh()
	ts := fyne.MeasureText(r.title.Text, r.title.TextSize, r.title.TextStyle)
	r.titleBg.Hidden = r.title.Text == ""
	r.titleBg.Move(fyne.NewPos(pad, pad))
	r.titleBg.Resize(fyne.NewSize(ts.Width+2*pad, ts.Height))
	r.titleBg.Refresh()
	length, label := r.s.scaleBar()
	r.bar.Hidden, r.barText.Hidden, r.barBg.Hidden = length == 0, length == 0, length == 0
	if length > 0 {
		x := r.size.Width - float32(length) - 4*pad
		y := r.size.Height - 3*pad
		r.bar.Resize(fyne.NewSize(float32(length), 3))
		r.bar.Move(fyne.NewPos(x, y))
		r.barText.Text = label
		bs := fyne.MeasureText(label, r.barText.TextSize, r.barText.TextStyle)
		r.barText.Move(fyne.NewPos(x+float32(length)/2-bs.Width/2, y-bs.Height))
		r.barText.Resize(bs)
		// The shade spans the label and the bar below it.
		x0 := min(x, x+float32(length)/2-bs.Width/2) - pad
		x1 := max(x+float32(length), x+float32(length)/2+bs.Width/2) + pad
		r.barBg.Move(fyne.NewPos(x0, y-bs.Height-pad/2))
		r.barBg.Resize(fyne.NewSize(x1-x0, bs.Height+3+pad))
	}
	r.bar.Refresh()
	r.barBg.Refresh()
	r.barText.Refresh()
}

func (r *sliceRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.img, r.titleBg, r.title, r.barBg, r.bar, r.barText}
}

func (r *sliceRenderer) Destroy() {}

// niceLength returns the largest 1, 2 or 5 x 10^k not above x (x > 0).
func niceLength(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{5, 2, 1} {
		if m*p <= x {
			return m * p
		}
	}
	return p
}
