package viewer

import (
	"slices"

	"fyne.io/fyne/v2"

	"github.com/voxlab/voxlab/viewer/model"
)

// Navigation: the axis, slice and map on show, the grid, and the view's
// pan and zoom.

// Dims is where the view stands, as the application and the dims bar
// move it: the slicing axis, the slice along it, the map of stack
// layers and the point the orthogonal views go through (napari's
// viewer.dims). It reads and sets the model's Dims (model.Dims) and
// brings the dims bar and the panels up to date; the ranges are those
// of the visible layers. Use it on the UI goroutine.
type Dims struct{ v *Viewer }

// Dims returns the viewer's dims.
func (v *Viewer) Dims() Dims { return Dims{v} }

// Axis returns the slicing axis.
func (d Dims) Axis() Axis { return d.v.at.Axis() }

// SetAxis chooses which axis the view slices along, keeping each axis's
// own position; an axis not sliced along before starts at its middle
// (napari's dims start there too), not at an edge plane.
func (d Dims) SetAxis(a Axis) {
	if !d.v.at.SetAxis(a, d.Extent()) {
		return
	}
	d.v.dims.update()
	d.v.Panels().ResetView()
}

// Slice returns the current slice index along the slicing axis.
func (d Dims) Slice() int { return d.v.at.Slice() }

// Map returns the map shown of stack layers.
func (d Dims) Map() int { return d.v.at.Map() }

// Maps returns the range of the map slider: the most maps of a visible
// stack layer (of any stack layer when none is visible); 0 without
// stacks.
func (d Dims) Maps() int { return mapsOf(d.v.stack.All()) }

// mapsOf is Maps over layers.
func mapsOf(layers []Layer) int {
	visible := slices.ContainsFunc(layers, Layer.Visible)
	n := 0
	for _, l := range layers {
		if il, ok := imageLayer(l); ok && il.maps > 1 && (l.Visible() || !visible) {
			n = max(n, il.maps)
		}
	}
	return n
}

// SetMap shows map i of the stack layers (clamped to Maps); other image
// layers do not change (napari broadcasts them along the map axis).
func (d Dims) SetMap(i int) {
	if !d.v.at.SetMap(i, d.Maps()) {
		return
	}
	d.v.dims.update()
	d.v.redraw()
}

// SetSlice moves to slice i along the slicing axis (clamped).
func (d Dims) SetSlice(i int) {
	if !d.v.at.SetSlice(i, d.Extent()[d.v.at.Axis()]) {
		return
	}
	d.v.dims.update()
	d.v.redraw()
}

// Step moves n slices, wrapping round at the ends when wrap is set.
func (d Dims) Step(n int, wrap bool) {
	if i := d.v.at.StepTarget(n, d.Extent()[d.v.at.Axis()], wrap); i >= 0 {
		d.SetSlice(i)
	}
}

// Extent returns the range of the dims slider along z, y and x: the
// extent of the visible layers (of every layer when none is visible),
// one map's for a stack. napari's slider spans every layer, hidden or
// not; voxlab's spans what is on show, so that hiding the demo's 90
// projections gives the slider back to the 60 planes of the brain.
func (d Dims) Extent() [3]int { return extentOf(d.v.stack.All(), nil) }

// Point returns the point the orthogonal views go through: the slice
// index along z, y and x.
func (d Dims) Point() [3]int { return d.v.at.Point() }

// SetPoint moves the point of the orthogonal views (and the slice along
// every axis) to (z, y, x), clamped to the data.
func (d Dims) SetPoint(zyx [3]int) {
	d.v.at.SetPoint(zyx, d.Extent())
	d.v.dims.update()
	d.v.redraw()
}

// extentOf returns the size along z, y, x of the union of the layers of
// a panel's group, or for nil of the visible layers (of every layer when
// none is visible).
func extentOf(layers, group []Layer) [3]int {
	visible := slices.ContainsFunc(layers, Layer.Visible)
	var e [3]int
	for _, l := range layers {
		if group == nil && visible && !l.Visible() || group != nil && !slices.Contains(group, l) {
			continue
		}
		le := l.extent()
		for i := range e {
			e[i] = max(e[i], le[i])
		}
	}
	return e
}

// Panels is the arrangement of the slice panels — one, a grid of them
// (one per visible image), or the orthogonal views — and the pan and
// zoom they share (napari's grid and camera). Use it on the UI
// goroutine.
type Panels struct{ v *Viewer }

// Panels returns the arrangement of the viewer's slice panels.
func (v *Viewer) Panels() Panels { return Panels{v} }

// Grid reports whether grid mode is on.
func (ps Panels) Grid() bool { return ps.v.grid }

// SetGrid turns grid mode on (each visible layer in its own panel, side
// by side, with linked pan, zoom and slice) or off.
func (ps Panels) SetGrid(on bool) {
	v := ps.v
	if v.grid == on {
		return
	}
	v.grid = on
	v.grdCheck.SetChecked(on)
	ps.rebuild()
	ps.ResetView()
}

// Focus shows the given layers and hides every other one, so a result is
// seen beside (or over) the data it came from; grid turns grid mode on
// or off. It rearranges the user's view, so it runs only when the user
// asks (Compare); a result arriving only offers it (Offer.Compare).
func (ps Panels) Focus(grid bool, show ...Layer) {
	v := ps.v
	v.Batch(func() {
		for _, l := range v.stack.All() {
			on := false
			for _, s := range show {
				on = on || s == l
			}
			if l.Visible() != on {
				b := l.base()
				b.quiet = true
				l.SetVisible(on)
				b.quiet = false
			}
		}
		if v.grid {
			ps.rebuild()
		}
		ps.SetGrid(grid)
		v.list.Refresh()
		ps.ResetView()
	})
}

// rebuild rebuilds the panels for the current mode. In grid mode each
// visible image or heat-map layer gets a panel, shared with the points
// layers stacked above it (detections over the data they came from).
func (ps Panels) rebuild() {
	v := ps.v
	if v.ortho.on {
		if len(v.panels) != 3 {
			v.panels = v.ortho.newPanels(func() *sliceView { return newSliceView(v, nil) })
			v.panelBox.Objects = orthoObjects(v.panels)
			v.panelBox.Refresh()
		}
		return
	}
	var groups [][]Layer
	if v.grid {
		groups = gridGroups(v.stack.All())
	}
	if len(groups) == 0 {
		groups = [][]Layer{nil}
	}
	same := len(groups) == len(v.panels) && (len(v.panels) == 0 || v.panels[0].ortho == nil)
	for i := 0; same && i < len(groups); i++ {
		same = slices.Equal(v.panels[i].group, groups[i])
	}
	if same {
		return
	}
	v.panels = v.panels[:0]
	objs := make([]fyne.CanvasObject, len(groups))
	for i, g := range groups {
		p := newSliceView(v, g)
		v.panels = append(v.panels, p)
		objs[i] = p
	}
	v.panelBox.Objects = objs
	v.panelBox.Refresh()
}

// ResetView fits each panel to what it shows (the visible layers, or in
// grid mode its own layers), undoing pans and zooms.
func (ps Panels) ResetView() {
	v := ps.v
	v.nav = nav{}
	v.navigated = false
	for _, p := range v.panels {
		p.fitted = false
	}
	v.redraw()
}

// aspectAlong returns the height/width of a displayed voxel of slices
// along axis from the voxel size of the lowest visible image layer of
// group (of all layers for nil) that has one; 1 without.
func aspectAlong(layers, group []Layer, axis Axis) float64 {
	ra, ca := axis.DisplayAxes()
	for _, l := range layers {
		if il, ok := imageLayer(l); ok && l.Visible() && (group == nil || slices.Contains(group, l)) {
			if vs := il.vol.VoxelSize; vs[ra] > 0 && vs[ca] > 0 {
				return vs[ra] / vs[ca]
			}
		}
	}
	return 1
}

// zoomRange returns the zooms (relative to the fits) that keep every
// panel's scale within [minScale, maxScale].
func zoomRange(panels []*sliceView) (lo, hi float64) {
	fits := make([]xform, len(panels))
	for i, p := range panels {
		fits[i] = p.fitNow()
	}
	return model.ZoomRange(fits)
}

// setNav sets the shared pan and zoom and redraws.
func (ps Panels) setNav(n nav) {
	v := ps.v
	v.nav = n
	v.navigated = true
	v.redraw()
}

// gridGroups returns the panels of grid mode, bottom to top: each
// visible image or heat map with the visible points layers computed
// from it (PlaceAbove) or, for the others, the points layers just above
// it; layers in a group keep the stack's order. A points layer is also
// drawn over every other image of its image's extent (the other
// channels of one acquisition): cells detected on the signal are
// checked against the background side by side.
func gridGroups(layers []Layer) [][]Layer {
	groups := gridHeads(layers)
	for g, grp := range groups {
		head, ok := imageLayer(grp[0])
		if !ok {
			continue
		}
		for _, l := range grp[1:] {
			for h := range groups {
				if other, ok := imageLayer(groups[h][0]); ok && h != g && other.extent() == head.extent() && !slices.Contains(groups[h], l) {
					groups[h] = append(groups[h], l)
				}
			}
		}
	}
	return groups
}

// gridHeads groups each points layer with one image: the one it was
// computed from, else the one below it.
func gridHeads(layers []Layer) [][]Layer {
	var groups [][]Layer
	head := map[Layer]int{} // an image's group
	for _, l := range layers {
		if !l.Visible() {
			continue
		}
		if _, pts := pointsLayer(l); pts && len(groups) > 0 {
			g := len(groups) - 1
			if i, ok := head[l.base().over]; ok {
				g = i
			}
			groups[g] = append(groups[g], l)
			continue
		}
		head[l] = len(groups)
		groups = append(groups, []Layer{l})
	}
	return groups
}
