package viewer

import (
	"fmt"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Orthogonal views: three panels slicing the same layers along z (the
// xy plane), y (xz) and x (zy) through one point, the viewer's slice
// index along each axis. They are laid out in an L sharing axes (xz
// under xy shares x columns; zy beside xz shares z rows) at one
// physical scale, so voxel sizes keep their proportions across panels.
// A click or drag in one panel moves the point's two coordinates shown
// there, and so the other two panels' planes; the dims slider follows
// the axis it shows. Each panel reads only its plane, through the
// layer's loader (a y or x plane of a big file is read in pieces with
// progress, as in the single view).

// orthoAxes are the axes of the three panels, in panel order.
var orthoAxes = [3]Axis{Z, Y, X}

// SetOrtho shows the orthogonal views (on) or the single or grid view.
// The point starts at the middle of the data along the axes not sliced
// until now.
func (v *Viewer) SetOrtho(on bool) {
	if v.ortho == on {
		return
	}
	v.ortho = on
	if v.orthoCheck != nil {
		v.orthoCheck.SetChecked(on)
	}
	if on {
		v.panelBox.Layout = orthoLayout{v}
		e := v.dimsExtent()
		pt := v.index
		for a := range 3 {
			if Axis(a) != v.axis && !v.axisSeen[a] && pt[a] == 0 {
				pt[a] = e[a] / 2
			}
			v.axisSeen[a] = true
		}
		v.index, v.want = pt, pt
	} else {
		v.panelBox.Layout = gridLayout{v}
	}
	v.panels = nil // rebuilt for the mode
	v.setPanels()
	v.ResetView()
}

// Point returns the point the orthogonal views go through: the slice
// index along z, y and x.
func (v *Viewer) Point() [3]int { return v.index }

// SetPoint moves the point of the orthogonal views (and the slice along
// every axis) to (z, y, x), clamped to the data.
func (v *Viewer) SetPoint(zyx [3]int) {
	e := v.dimsExtent()
	for a := range 3 {
		i := min(max(zyx[a], 0), max(e[a]-1, 0))
		v.index[a], v.want[a] = i, i
		v.axisSeen[a] = true
	}
	v.updateDims()
	v.redraw()
}

// orthoPanels builds the three panels of the orthogonal views, zy,
// xz, xy: panels ask for their planes in this order when drawn, and
// the loader reads the newest request first, so the xy plane (one z
// plane, the cheapest read, and the one auto-contrast should see
// first) comes first. orthoObjects lays them out in axis order.
func (v *Viewer) orthoPanels() []*sliceView {
	ps := make([]*sliceView, 3)
	for i := range orthoAxes {
		p := newSliceView(v, nil)
		p.ortho = &orthoAxes[i]
		ps[2-i] = p
	}
	return ps
}

// orthoObjects returns the panels in axis order (z, y, x), as
// orthoLayout places them.
func (v *Viewer) orthoObjects() []fyne.CanvasObject {
	objs := make([]fyne.CanvasObject, 3)
	for _, p := range v.panels {
		objs[*p.ortho] = p
	}
	return objs
}

// shownAxes returns the axes whose slices are on screen.
func (v *Viewer) shownAxes() []Axis {
	if v.ortho {
		return orthoAxes[:]
	}
	return []Axis{v.axis}
}

// orthoTitle names the plane a panel shows.
func orthoTitle(a Axis) string {
	return [...]string{"xy", "xz", "zy"}[a]
}

// orthoPanelTitle is orthoTitle with z's stretch in the side panels.
func (v *Viewer) orthoPanelTitle(a Axis) string {
	if a != Z && v.orthoZ > 1.05 {
		return fmt.Sprintf("%s (z ×%.3g)", orthoTitle(a), v.orthoZ)
	}
	return orthoTitle(a)
}

// orthoPick moves the point to the voxel under pos in panel p: the two
// coordinates p shows (its own slice stays).
func (v *Viewer) orthoPick(p *sliceView, pos fyne.Position) {
	row, col := p.cellAt(pos)
	ra, ca := p.axis().displayAxes()
	pt := v.index
	pt[ra], pt[ca] = row, col
	v.SetPoint(pt)
	v.hover(p, pos)
}

// valueIn returns layer l's value at (row, col) of panel p's plane, if
// it is loaded.
func (v *Viewer) valueIn(p *sliceView, l Layer, row, col int) (float64, bool) {
	if p == nil || p.ortho == nil {
		return v.ValueAt(l, row, col)
	}
	il := imageOf(l)
	if il == nil || il.fixed != nil {
		return 0, false
	}
	ax := p.axis()
	pl, exact := il.planeFor(ax, v.index[ax], v.mapIdx)
	if pl == nil || !exact || row < 0 || col < 0 || row >= pl.rows || col >= pl.cols || pl.offAt(row) {
		return 0, false
	}
	return pl.value(row, col), true
}

// drawCrosshair draws the lines through the point in panel p: the
// planes of the two other panels.
func (v *Viewer) drawCrosshair(p *sliceView, ps float64) {
	sz := p.Size()
	ra, ca := p.axis().displayAxes()
	x, y := p.xf().toScreen(float64(v.index[ca])+0.5, float64(v.index[ra])+0.5, float64(sz.Width), float64(sz.Height))
	r, g, b, _ := theme.Color(theme.ColorNameWarning).RGBA()
	c := uint32(r>>8) | uint32(g>>8)<<8 | uint32(b>>8)<<16 | 0xff000000
	f := &p.f
	xi, yi := int(math.Floor(x*ps)), int(math.Floor(y*ps))
	// Dashed (4 on, 4 off), so the data under the line still shows.
	if xi >= 0 && xi < f.w {
		for j := 0; j < f.h; j++ {
			if j&4 == 0 {
				f.px[j*f.w+xi] = c
			}
		}
	}
	if yi >= 0 && yi < f.h {
		for i := 0; i < f.w; i++ {
			if i&4 == 0 {
				f.px[yi*f.w+i] = c
			}
		}
	}
}

// orthoLayout places the three panels: xy at the top left, xz under it
// and zy beside xz, at the largest common scale (physical units to
// pixels) that fits.
type orthoLayout struct{ v *Viewer }

// physical returns the physical size along z, y, x of what is shown:
// the extent times the voxel size of the lowest visible image layer
// that has one.
func (l orthoLayout) physical() [3]float64 {
	e := l.v.dimsExtent()
	vs := [3]float64{1, 1, 1}
	for _, ly := range l.v.stack.layers {
		if il, ok := ly.(*ImageLayer); ok && ly.Visible() {
			if s := il.vol.VoxelSize; s[0] > 0 && s[1] > 0 && s[2] > 0 {
				vs = s
			}
			break
		}
	}
	var p [3]float64
	for a := range 3 {
		p[a] = math.Max(float64(e[a]), 1) * vs[a]
	}
	return p
}

// minStrip is the least height the xz and zy panels get, as a share of
// the xy panel's: a thin stack (10 planes of 5 µm under 4 mm of xy)
// would otherwise get strips a few pixels tall. z is stretched in them
// to fill it, and their titles say by how much.
const minStrip = 0.25

// zStretch returns how much the side panels stretch z for physical
// sizes p (1: not at all).
func zStretch(p [3]float64) float64 {
	return math.Max(1, minStrip*p[1]/p[0])
}

// Layout sizes the panels to their planes at one scale (z stretched in
// the side panels of a thin stack, zStretch).
func (l orthoLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if len(objs) != 3 {
		gridLayout(l).Layout(objs, size)
		return
	}
	p := l.physical()
	ez := zStretch(p)
	l.v.orthoZ = ez
	p[0] *= ez
	pad := float64(theme.Padding())
	w, h := float64(size.Width)-pad, float64(size.Height)-pad
	s := math.Max(math.Min(w/(p[2]+p[1]), h/(p[1]+p[0])), 0)
	x0 := (w - s*(p[2]+p[1])) / 2
	y0 := (h - s*(p[1]+p[0])) / 2
	place := func(o fyne.CanvasObject, x, y, pw, ph float64) {
		o.Move(fyne.NewPos(float32(x), float32(y)))
		o.Resize(fyne.NewSize(float32(pw), float32(ph)))
	}
	place(objs[0], x0, y0, s*p[2], s*p[1])                       // xy
	place(objs[1], x0, y0+s*p[1]+pad, s*p[2], s*p[0])            // xz
	place(objs[2], x0+s*p[2]+pad, y0+s*p[1]+pad, s*p[1], s*p[0]) // zy
}

// MinSize is three panels' minimum.
func (l orthoLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return gridLayout(l).MinSize(objs)
}
