package viewer

import (
	"fmt"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer/model"
)

// Orthogonal views: three panels slicing the same layers along z (the
// xy plane), y (xz) and x (zy) through one point, the viewer's slice
// index along each axis. They are laid out as ImageJ's Orthogonal Views
// and napari's orthogonal view plugins lay them: xz under xy, sharing
// its x columns, and zy beside xy, sharing its y rows (z across, the
// zy panel shows its planes transposed), all at one physical scale
// (the voxel size of orthoVoxel), so that voxels keep their proportions
// and the lines through the point meet its voxel in every panel.
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
func (ps Panels) SetOrtho(on bool) {
	v := ps.v
	if v.ortho.on == on {
		return
	}
	v.ortho.on = on
	if v.ortho.check != nil {
		v.ortho.check.SetChecked(on)
	}
	if on && v.v3.on() {
		v.Scene().SetOn(false) // one or the other: both would hide the panels
	}
	if on {
		v.panelBox.Layout = orthoLayout{v}
		v.at.ShowAll(v.Dims().Extent())
	} else {
		v.panelBox.Layout = gridLayout{v}
	}
	v.panels = nil // rebuilt for the mode
	ps.rebuild()
	ps.ResetView()
}

// orthoView is the state of the orthogonal views: whether they are on
// show, their toolbar check, and how much their side panels stretch z;
// the point they go through is the model's (at).
type orthoView struct {
	on    bool
	check *widget.Check
	// z is how much the side panels stretch z (zStretch; 1: not at
	// all), set by their layout.
	z  float64
	at *model.Dims
}

// newPanels builds the three panels of the orthogonal views, zy, xz,
// xy, with newPanel: panels ask for their planes in this order when
// drawn, and the loader reads the newest request first, so the xy plane
// (one z plane, the cheapest read, and the one auto-contrast should see
// first) comes first. orthoObjects lays them out in axis order.
func (o *orthoView) newPanels(newPanel func() *sliceView) []*sliceView {
	ps := make([]*sliceView, 3)
	for i := range orthoAxes {
		p := newPanel()
		p.ortho = &orthoAxes[i]
		ps[2-i] = p
	}
	return ps
}

// orthoObjects returns the ortho panels in axis order (z, y, x), as
// orthoLayout places them.
func orthoObjects(panels []*sliceView) []fyne.CanvasObject {
	objs := make([]fyne.CanvasObject, 3)
	for _, p := range panels {
		objs[*p.ortho] = p
	}
	return objs
}

// shownAxes returns the axes whose slices are on screen.
func (o *orthoView) shownAxes() []Axis {
	if o.on {
		return orthoAxes[:]
	}
	return []Axis{o.at.Axis()}
}

// orthoTitle names the plane a panel shows.
func orthoTitle(a Axis) string {
	return [...]string{"xy", "xz", "zy"}[a]
}

// panelTitle is orthoTitle with z's stretch in the side panels.
func (o *orthoView) panelTitle(a Axis) string {
	if a != Z && o.z > 1.05 {
		return fmt.Sprintf("%s (z ×%.3g)", orthoTitle(a), o.z)
	}
	return orthoTitle(a)
}

// pick returns the point moved to the voxel under pos in panel p: the
// two coordinates p shows (its own slice stays).
func (o *orthoView) pick(p *sliceView, pos fyne.Position) [3]int {
	row, col := p.cellAt(pos)
	ra, ca := p.dispAxes()
	pt := o.at.Point()
	pt[ra], pt[ca] = row, col
	return pt
}

// valueIn returns layer l's value at (row, col) of ortho panel p's
// plane, if it is loaded.
func (o *orthoView) valueIn(p *sliceView, l Layer, row, col int) (float64, bool) {
	il := imageOf(l)
	if il == nil || il.fixed != nil {
		return 0, false
	}
	ax := p.axis()
	if p.flipped() {
		row, col = col, row // the plane's own rows are z
	}
	pl, exact := il.planeFor(ax, o.at.Index(ax), o.at.Map())
	if pl == nil || !exact || row < 0 || col < 0 || row >= pl.rows || col >= pl.cols || pl.offAt(row) {
		return 0, false
	}
	return pl.value(row, col), true
}

// crosshair draws the lines through the point in panel p: the planes
// of the two other panels.
func (o *orthoView) crosshair(p *sliceView, ps float64) {
	sz := p.Size()
	ra, ca := p.dispAxes()
	pt := o.at.Point()
	x, y := p.xf().ToScreen(float64(pt[ca])+0.5, float64(pt[ra])+0.5, float64(sz.Width), float64(sz.Height))
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

// orthoDisplayAxes returns the volume axes the ortho panel slicing
// along a shows as rows and columns: xy (y, x), xz (z, x) and zy (y,
// z), the shared axes aligned with the xy panel's.
func orthoDisplayAxes(a Axis) (row, col int) {
	if a == X {
		return 1, 0
	}
	return a.DisplayAxes()
}

// orthoVoxel returns the voxel size (z, y, x) the orthogonal views are
// drawn at: the lowest visible image layer's that has one, else 1, 1,
// 1. The layout and every panel's fit take it from here, so that the
// three panels share one scale whichever layer the size was typed on.
func orthoVoxel(layers []Layer) [3]float64 {
	for _, l := range layers {
		if il, ok := imageLayer(l); ok && l.Visible() {
			if s := il.vol.VoxelSize; s[0] > 0 && s[1] > 0 && s[2] > 0 {
				return s
			}
		}
	}
	return [3]float64{1, 1, 1}
}

// orthoLayout places the three panels: xy at the top left, xz under it
// and zy beside it, at the largest common scale (physical units to
// pixels) that fits.
type orthoLayout struct{ v *Viewer }

// physical returns the physical size along z, y, x of what is shown:
// the extent times orthoVoxel.
func (l orthoLayout) physical() [3]float64 {
	e := l.v.Dims().Extent()
	vs := orthoVoxel(l.v.stack.All())
	var p [3]float64
	for a := range 3 {
		p[a] = math.Max(float64(e[a]), 1) * vs[a]
	}
	return p
}

// minStrip is the least height the xz panel (and width the zy panel)
// gets, as a share of the xy panel's: a thin stack (10 planes of 5 µm
// under 4 mm of xy) would otherwise get strips a few pixels wide. z is
// stretched in them to fill it, and their titles say by how much. It is
// small, so that an ordinary stack is shown at one physical scale in all
// three panels (cellfinder's crop, 150 µm of z under 1 mm of y, is 0.15):
// only a stack thinner than this is stretched.
const minStrip = 0.1

// zStretch returns how much the side panels stretch z for physical
// sizes p (1: not at all).
func zStretch(p [3]float64) float64 {
	return math.Max(1, minStrip*math.Min(p[1], p[2])/p[0])
}

// orthoRects returns where the xy, xz and zy panels go in a w x h box
// (pad between them) for physical sizes p (z stretched): xy at the top
// left, xz under it as wide, zy beside it as tall, at one scale.
func orthoRects(p [3]float64, w, h, pad float64) [3][4]float64 {
	s := math.Max(math.Min((w-pad)/(p[2]+p[0]), (h-pad)/(p[1]+p[0])), 0)
	x0 := (w - pad - s*(p[2]+p[0])) / 2
	y0 := (h - pad - s*(p[1]+p[0])) / 2
	return [3][4]float64{
		{x0, y0, s * p[2], s * p[1]},                // xy
		{x0, y0 + s*p[1] + pad, s * p[2], s * p[0]}, // xz
		{x0 + s*p[2] + pad, y0, s * p[0], s * p[1]}, // zy
	}
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
	l.v.ortho.z = ez
	p[0] *= ez
	for i, r := range orthoRects(p, float64(size.Width), float64(size.Height), float64(theme.Padding())) {
		objs[i].Move(fyne.NewPos(float32(r[0]), float32(r[1])))
		objs[i].Resize(fyne.NewSize(float32(r[2]), float32(r[3])))
	}
}

// MinSize is three panels' minimum.
func (l orthoLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return gridLayout(l).MinSize(objs)
}

// flipCache transposes the planes the zy panel shows (rows z to rows
// y), keeping those of the last draw: a plane is transposed once, not on
// every redraw. A nil flipCache leaves planes as they are.
type flipCache struct {
	last, now map[*plane]*plane
}

// begin starts a draw.
func (c *flipCache) begin() {
	if c != nil {
		c.now = map[*plane]*plane{}
	}
}

// end keeps the planes of the draw just made.
func (c *flipCache) end() {
	if c != nil {
		c.last, c.now = c.now, nil
	}
}

// of returns p transposed (p itself for a nil cache).
func (c *flipCache) of(p *plane) *plane {
	if c == nil || p == nil {
		return p
	}
	t, ok := c.now[p]
	if !ok {
		if t, ok = c.last[p]; !ok {
			t = transpose(p)
		}
		c.now[p] = t
	}
	return t
}

// transpose returns p with its rows and columns swapped; its rows
// without data (off: a running job's planes) become columns without
// (offCols), drawn see-through as they were.
func transpose(p *plane) *plane {
	t := &plane{dtype: p.dtype, rows: p.cols, cols: p.rows, stats: p.stats, fy: p.fx, fx: p.fy, offCols: p.off}
	t.data = make([]byte, len(p.data))
	switch p.dtype.Size() {
	case 1:
		transposeInto(t.data, p.data, p.rows, p.cols)
	case 2:
		transposeInto(volume.Uint16s(t.data), volume.Uint16s(p.data), p.rows, p.cols)
	case 4:
		transposeInto(volume.Uint32s(t.data), volume.Uint32s(p.data), p.rows, p.cols)
	default:
		transposeInto(volume.Float64s(t.data), volume.Float64s(p.data), p.rows, p.cols)
	}
	return t
}

// transposeInto writes the rows x cols matrix src, transposed, to dst.
func transposeInto[T any](dst, src []T, rows, cols int) {
	for r := range rows {
		for c, x := range src[r*cols : (r+1)*cols] {
			dst[c*rows+r] = x
		}
	}
}
