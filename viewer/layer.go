package viewer

import (
	"fmt"
	"fyne.io/fyne/v2"
	"math"
	"sync"
	"sync/atomic"

	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/resources"
	"github.com/voxlab/voxlab/viewer/model"
)

// Layer is one entry of the layer list: an *ImageLayer, *PointsLayer or
// *HeatmapLayer. Its setters must be called on the UI goroutine (inside
// fyne.Do from elsewhere); the live-update methods say when they are safe
// from any goroutine.
type Layer interface {
	Name() string
	Visible() bool
	SetVisible(bool)
	Opacity() float64
	SetOpacity(float64)
	// extent is the layer's size along z, y, x (one map's for a
	// stack): the range it gives the dims sliders.
	extent() [3]int
	// draw draws the layer's plane on show into a panel's frame
	// (paint.go).
	draw(f *frame, c drawCtx)
	// controls are the layer's controls in v's side panel while it is
	// selected (image_controls.go, points_controls.go).
	controls(v *Viewer) []fyne.CanvasObject
	// icon, image and spacing3D are the list icon, the image data (nil
	// for points) and the voxel size in the 3D frame (kinds.go).
	icon() fyne.Resource
	image() *ImageLayer
	// asImage, asPoints and asHeatmap are the layer as the one kind
	// they name, nil for the others: the kind table's answer to "which
	// kind", for the code that acts on one kind only (kinds.go).
	asImage() *ImageLayer
	asPoints() *PointsLayer
	asHeatmap() *HeatmapLayer
	spacing3D(layers []Layer) ([3]float64, bool)
	base() *layerBase
}

// layerBase is what every layer has.
type layerBase struct {
	name string
	// look is the layer's visibility, opacity and blending (an image's
	// model.Image holds it): the layer list and the painters read it.
	look *model.Base
	// quiet is set while Focus shows and hides layers in one go, so
	// that each does not relist and redraw.
	quiet bool
	v     *Viewer
	// shownBy is v's redraws for the goroutines that feed a layer (a
	// job's detections, a distance chunk): v is the UI goroutine's,
	// which RemoveLayer clears while they may still be appending.
	shownBy atomic.Pointer[redraws]
	// spec is the file spec the layer was opened from ("" for layers
	// made in memory): the processing panel offers it as an input.
	spec string
	// over is the layer this one was computed from (PlaceAbove): grid
	// mode draws it in that layer's panel.
	over Layer
}

// setViewer records the viewer showing the layer (nil: removed). Call on
// the UI goroutine.
func (b *layerBase) setViewer(v *Viewer) {
	b.v = v
	if v == nil {
		b.shownBy.Store(nil)
		return
	}
	b.shownBy.Store(&v.redraws)
}

// redrawAnywhere asks the viewer showing the layer, if any, to redraw:
// safe from any goroutine.
func (b *layerBase) redrawAnywhere() {
	if r := b.shownBy.Load(); r != nil {
		r.request(true)
	}
}

func (b *layerBase) base() *layerBase { return b }

// Name returns the layer's name as shown in the layer list.
func (b *layerBase) Name() string { return b.name }

// Visible reports whether the layer is drawn.
func (b *layerBase) Visible() bool { return b.look.Visible() }

// SetVisible shows or hides the layer.
func (b *layerBase) SetVisible(on bool) { b.look.SetVisible(on) }

// Opacity returns the layer's opacity in [0, 1].
func (b *layerBase) Opacity() float64 { return b.look.Opacity() }

// SetOpacity sets the opacity, clamped to [0, 1].
func (b *layerBase) SetOpacity(a float64) { b.look.SetOpacity(a) }

// Blending returns how the layer combines with those below.
func (b *layerBase) Blending() Blending { return b.look.Blending() }

// SetBlending sets how the layer combines with those below.
func (b *layerBase) SetBlending(m Blending) { b.look.SetBlending(m) }

// watchBase makes every change of the layer's base settings an edit of
// the layer stack (relist, redraw, tell the panel).
func (b *layerBase) watchBase() {
	for _, e := range []*model.Event{&b.look.VisibleChanged, &b.look.OpacityChanged, &b.look.BlendingChanged} {
		e.Connect(b.changed)
	}
}

func (b *layerBase) changed() {
	if b.v != nil && !b.quiet {
		b.v.stack.Edited()
	}
}

// ImageOptions configures an image or heat-map layer. Zero values take
// the defaults.
type ImageOptions struct {
	// Colormap is one of resources.ColormapNames (default "gray").
	Colormap string
	// Contrast sets the limits; when both are zero they come from the
	// 0.1 and 99.9 percentiles of the first slice shown.
	Contrast [2]float64
	// AutoContrast recomputes the limits from every slice shown.
	AutoContrast bool
	// Gamma (default 1) bends the ramp: t^gamma.
	Gamma float64
	// Opacity (default 1; 0 also means 1) and Blending.
	Opacity  float64
	Blending Blending
	// Hidden adds the layer switched off.
	Hidden bool
	// Unit is the unit of the voxel size, for the scale bar (default µm).
	Unit string
}

// ImageLayer shows slices of a volume through contrast limits, gamma and a
// colormap. Only the slices shown (and a few neighbours) are read.
type ImageLayer struct {
	layerBase
	// Image is the layer's settings (viewer/model), each with its own
	// change event; the layer adds the volume, its loader and tables.
	*model.Image
	vol *volume.Volume
	ld  *loader
	// maps is the number of maps of a stack layer, whose planes lie one
	// map after the other along z of vol (1 for a plain volume); depth
	// is the planes of one map.
	maps, depth int

	cmap *resources.ColormapTable

	lut      lut
	lutDirty bool

	// shown is the last plane drawn, kept on screen while its successor
	// loads; shownKey names it.
	shown    *plane
	shownKey sliceKey
	// last is the last plane drawn along each axis, with its key: an
	// ortho panel keeps its plane while the next one loads.
	last    [3]*plane
	lastKey [3]sliceKey
	// preview is the coarse copy side slices are drawn from while they
	// load (preview.go); nil until one is needed.
	preview *preview

	// fixed returns the one plane of a 2D layer (heat maps), else nil.
	fixed func() *plane

	// pyr (nil: none) is the volume's pyramid; level the level the last
	// paint chose (see pyramid.go).
	pyr   *pyramid
	level int
}

func newImageLayer(name string, opts ImageOptions) (*ImageLayer, error) {
	if opts.Colormap == "" {
		opts.Colormap = resources.Gray
	}
	cmap, ok := resources.Colormap(opts.Colormap)
	if !ok {
		return nil, colormapError(opts.Colormap)
	}
	img := model.NewImage(model.ImageSettings{
		Base:     model.NewBase(!opts.Hidden, opts.Opacity, opts.Blending),
		Colormap: opts.Colormap, Contrast: opts.Contrast, AutoContrast: opts.AutoContrast,
		Gamma: opts.Gamma, Unit: opts.Unit,
	})
	l := &ImageLayer{layerBase: layerBase{name: name, look: &img.Base}, Image: img, cmap: cmap, lutDirty: true}
	l.watchBase()
	for _, e := range []*model.Event{&img.ContrastChanged, &img.GammaChanged, &img.ColormapChanged} {
		e.Connect(func() { l.lutDirty = true })
	}
	img.ColormapChanged.Connect(func() { l.cmap, _ = resources.Colormap(img.Colormap()) })
	img.VoxelSizeChanged.Connect(l.voxelSizeChanged)
	for _, e := range []*model.Event{&img.ContrastChanged, &img.RangeChanged, &img.AutoChanged, &img.GammaChanged, &img.ColormapChanged, &img.VoxelSizeChanged} {
		e.Connect(l.changed)
	}
	return l, nil
}

func colormapError(name string) error {
	return fmt.Errorf("colormap %q: use one of %v", name, resources.ColormapNames())
}

// Volume returns the layer's volume (nil for heat maps): for a stack,
// its maps one after the other along z.
func (l *ImageLayer) Volume() *volume.Volume { return l.vol }

// Maps returns the number of maps of a stack layer, 1 for a plain volume.
func (l *ImageLayer) Maps() int { return max(l.maps, 1) }

// Extent returns the layer's size along z, y, x as the dims slider sees
// it: one map's for a stack, 0 along z for a heat map.
func (l *ImageLayer) Extent() [3]int { return l.extent() }

// SetVoxelSize sets the layer's voxel size (z, y, x, in its unit; all
// positive, others are refused): y and x slices keep the physical shape
// it gives, the scale bar and the orthogonal views follow it. A heat map
// has none.
func (l *ImageLayer) SetVoxelSize(vs [3]float64) {
	if l.vol != nil {
		_ = l.Image.SetVoxelSize(vs)
	}
}

// voxelSizeChanged gives the volume the model's voxel size, which the
// painters and the orthogonal views read.
func (l *ImageLayer) voxelSizeChanged() {
	if l.vol == nil {
		return
	}
	l.vol.VoxelSize = l.Image.VoxelSize()
	if l.v != nil && l.v.ortho.on {
		l.v.panelBox.Refresh() // the panels' proportions follow
	}
}

// AutoContrast sets the limits once from the 0.1 and 99.9 percentiles of
// the slice on screen. It reports false when no slice is loaded yet.
func (l *ImageLayer) AutoContrast() bool {
	p := l.current()
	if p == nil || !p.stats.finite {
		return false
	}
	l.AutoLimits(p.stats.lo, math.Max(p.stats.hi, p.stats.lo+1))
	return true
}

// SetContinuousAutoContrast makes the limits follow the percentiles of
// every slice shown, or stop following them.
func (l *ImageLayer) SetContinuousAutoContrast(on bool) {
	l.Image.SetContinuousAutoContrast(on)
	if on {
		l.AutoContrast()
	}
}

// SetColormap sets the colormap by name (see resources.ColormapNames).
func (l *ImageLayer) SetColormap(name string) error {
	if _, ok := resources.Colormap(name); !ok {
		return colormapError(name)
	}
	l.Image.SetColormap(name)
	return nil
}

// current returns the plane on screen if it is the one asked for.
func (l *ImageLayer) current() *plane {
	if l.fixed != nil {
		return l.fixed()
	}
	if l.v == nil {
		return nil
	}
	p, exact := l.planeFor(l.v.at.Axis(), l.v.at.Slice(), l.v.at.Map())
	if !exact {
		return nil
	}
	return p
}

// extent returns the layer's size along z, y, x (0 for the slice axis of
// a 2D layer).
func (l *ImageLayer) extent() [3]int {
	if l.fixed != nil {
		p := l.fixed()
		return [3]int{0, p.rows, p.cols}
	}
	e := l.vol.Shape
	e[0] = l.depth
	return e
}

// keyFor names the slice of the layer at slice idx along axis and map m
// of the map slider, and reports false when the layer has none there
// (past its extent, or past its maps; a plain volume shows the same
// slice for every map).
func (l *ImageLayer) keyFor(axis Axis, idx, m int) (sliceKey, bool) {
	if l.maps <= 1 {
		m = 0
	}
	if idx < 0 || idx >= l.extent()[axis] || m < 0 || m >= max(l.maps, 1) {
		return sliceKey{}, false
	}
	return sliceKey{axis: axis, idx: idx, m: m, level: l.levelOn(axis)}, true
}

// planeFor returns the plane to draw for slice idx along axis of map m:
// the exact one if cached (exact true), else the previous plane of the
// same axis while the new one loads, or nil.
func (l *ImageLayer) planeFor(axis Axis, idx, m int) (p *plane, exact bool) {
	if l.fixed != nil {
		p = l.fixed()
	} else {
		k, ok := l.keyFor(axis, idx, m)
		if !ok {
			return nil, true
		}
		if p = l.ld.get(k); p == nil {
			// A slice that cannot be read shows nothing rather than
			// its predecessor, which would pass for it.
			if l.ld.err(k) != nil {
				return nil, true
			}
			// Meanwhile: the slice from the layer's coarse copy (a
			// side view of a big volume), else the last slice shown
			// along this axis (each ortho panel keeps its own).
			if pv := l.previewPlane(axis, idx, m); pv != nil {
				return pv, false
			}
			if last := l.last[axis]; last != nil {
				return last, false
			}
			return nil, false
		}
		l.shownKey = k
		l.last[axis], l.lastKey[axis] = p, k
	}
	if p != l.shown {
		l.shown = p
		// A plane with no value (a running job's plane not computed
		// yet) says nothing about the range.
		// The limits follow the slice of the dims' axis only: with the
		// orthogonal views on, the side views' slices load and draw in
		// no fixed order, and whichever came first would set them.
		st := p.stats
		main := l.v == nil || axis == l.v.at.Axis()
		if l.SliceShown(model.SliceStats{Min: st.min, Max: st.max, Lo: st.lo, Hi: st.hi, Finite: st.finite && main, Counts: st.finite || p.off == nil}) {
			l.lutDirty = true
		}
	}
	return p, true
}

// lookup returns the layer's table, rebuilt if a setting changed.
func (l *ImageLayer) lookup(dt volume.DType) *lut {
	if l.lutDirty {
		lo, hi := l.ContrastLimits()
		l.lut.build(dt, lo, hi, l.Gamma(), l.cmap)
		l.lutDirty = false
	}
	return &l.lut
}

// HeatmapLayer is a 2D matrix of float64 (a distance matrix) shown with
// the image controls. Cells not yet computed are NaN and transparent.
type HeatmapLayer struct {
	*ImageLayer
	mu    sync.Mutex
	rows  int
	cols  int
	cur   *plane
	dirty bool
}

func newHeatmap(name string, rows, cols int, data []float64, opts ImageOptions) (*HeatmapLayer, error) {
	if rows <= 0 || cols <= 0 {
		return nil, fmt.Errorf("heat map %s: shape %dx%d must be positive", name, rows, cols)
	}
	if data != nil && len(data) != rows*cols {
		return nil, fmt.Errorf("heat map %s: %d values for %dx%d", name, len(data), rows, cols)
	}
	if opts.Colormap == "" {
		opts.Colormap = resources.Viridis
	}
	il, err := newImageLayer(name, opts)
	if err != nil {
		return nil, err
	}
	h := &HeatmapLayer{ImageLayer: il, rows: rows, cols: cols}
	vals := make([]float64, rows*cols)
	if data != nil {
		copy(vals, data)
	} else {
		for i := range vals {
			vals[i] = math.NaN()
		}
	}
	h.cur = &plane{dtype: volume.Float64, rows: rows, cols: cols, data: volume.Bytes(vals)}
	h.cur.stats = computeStats(h.cur)
	il.fixed = h.plane
	return h, nil
}

// Shape returns the matrix's rows and columns.
func (h *HeatmapLayer) Shape() (rows, cols int) { return h.rows, h.cols }

func (h *HeatmapLayer) plane() *plane {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dirty {
		// Statistics are computed on the UI goroutine, once per batch of
		// updates rather than once per chunk.
		h.cur.stats = computeStats(h.cur)
		h.dirty = false
	}
	return h.cur
}

// PointsLayer draws points: those of the slice in full, those within ±n
// planes smaller and fainter. Its points can be edited (its model.PointSet):
// added, selected, moved, deleted and given a class, each edit undoable,
// and saved as CSV or cellfinder XML.
type PointsLayer struct {
	layerBase
	// PointSet is the layer's model: its points, selection, edits and
	// the curation walk (viewer/model); the layer adds how it is drawn.
	*model.PointSet
	style      PointsStyle
	size       float64
	outOfSlice int
	inView     [points.NumClasses]int
	// path is the file Save writes to ("" until saved or opened).
	path string
	// xmlAccepted is the XML file the user chose to save this layer's
	// unknown points to as non-cells, not to be asked again.
	xmlAccepted string
}

func newPointsLayer(name string, pts []Point, opts PointsOptions, n int) *PointsLayer {
	look := model.NewBase(true, opts.Opacity, model.Translucent)
	l := &PointsLayer{layerBase: layerBase{name: name, look: &look}, PointSet: model.NewPointSet(pts)}
	l.watchBase()
	l.Watch(l.changed)
	l.style = defaultStyle(n)
	if opts.Style != nil {
		l.style = *opts.Style
	}
	l.size = 8
	if opts.Size > 0 {
		l.size = opts.Size
	}
	l.outOfSlice = 3
	if opts.OutOfSlice != 0 {
		l.outOfSlice = max(opts.OutOfSlice, 0)
	}
	return l
}

// InView returns how many points of the current slice were inside the
// view when it was last drawn.
func (l *PointsLayer) InView() int {
	n := 0
	for _, c := range l.inView {
		n += c
	}
	return n
}

// extent is the bounding box of the points (PointSet.Extent).
func (l *PointsLayer) extent() [3]int { return l.Extent() }

// Size returns the marker diameter in voxels.
func (l *PointsLayer) Size() float64 { return l.size }

// SetSize sets the marker diameter in voxels.
func (l *PointsLayer) SetSize(s float64) { l.size = math.Max(s, 0.5); l.changed() }

// OutOfSlice returns n: points within ±n planes are drawn.
func (l *PointsLayer) OutOfSlice() int { return l.outOfSlice }

// SetOutOfSlice sets n (0 shows only the slice's own points).
func (l *PointsLayer) SetOutOfSlice(n int) { l.outOfSlice = max(n, 0); l.changed() }

// Style returns the layer's colours and symbols.
func (l *PointsLayer) Style() PointsStyle { return l.style }

// SetStyle sets the layer's colours and symbols.
func (l *PointsLayer) SetStyle(st PointsStyle) { l.style = st; l.changed() }
