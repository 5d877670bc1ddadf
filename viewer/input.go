package viewer

import (
	"fmt"
	"math"
	"slices"

	"fyne.io/fyne/v2"

	"github.com/voxlab/voxlab/viewer/model"
)

// Input on the panels: keys, the pointer's voxel and the values under
// it, taps on heat maps.

// typedKey steps through slices: Right and Left by one, Page Down and
// Page Up by ten; with a stack on show the up and down arrows step
// through its maps. While a dialog is on show the keys are its.
func (v *Viewer) typedKey(e *fyne.KeyEvent) {
	if v.dlg.key(e) || v.edit.key(e) {
		return
	}
	stacks := v.Dims().Maps() > 1
	switch e.Name {
	case fyne.KeyUp:
		if stacks {
			v.Dims().SetMap(v.at.Map() + 1)
		} else {
			v.Dims().Step(1, false)
		}
	case fyne.KeyDown:
		if stacks {
			v.Dims().SetMap(v.at.Map() - 1)
		} else {
			v.Dims().Step(-1, false)
		}
	case fyne.KeyRight:
		v.Dims().Step(1, false)
	case fyne.KeyLeft:
		v.Dims().Step(-1, false)
	// Page Down goes on through the stack, as Right does (and as it
	// goes down a document); Page Up goes back.
	case fyne.KeyPageDown:
		v.Dims().Step(10, false)
	case fyne.KeyPageUp:
		v.Dims().Step(-10, false)
	case fyne.KeyHome:
		v.Dims().SetSlice(0)
	case fyne.KeyEnd:
		v.Dims().SetSlice(v.Dims().Extent()[v.at.Axis()] - 1)
	}
}

// pointer is where the mouse is: the panel it is over (nil: none) and
// its position there.
type pointer struct {
	panel *sliceView
	pos   fyne.Position
}

// hover reports the position and the values under the pointer, at pos
// in s.
func (s *sliceView) hover(pos fyne.Position) {
	s.v.ptr = pointer{panel: s, pos: pos}
	s.v.bar.update(s.v)
}

// voxel returns the (z, y, x) voxel under the pointer, in the data of
// the panel it is over, at the planes of at.
func (p pointer) voxel(at *model.Dims) (zyx [3]int, row, col int, ok bool) {
	if p.panel == nil {
		return zyx, 0, 0, false
	}
	row, col = p.panel.cellAt(p.pos)
	ax := p.panel.axis()
	ra, ca := p.panel.dispAxes()
	zyx[ax] = at.Index(ax)
	zyx[ra], zyx[ca] = row, col
	return zyx, row, col, true
}

// ValueAt returns the value of layer l at display (row, col) of the
// current slice, and whether there is one (the slice is loaded and the
// position inside it).
func (v *Viewer) ValueAt(l Layer, row, col int) (float64, bool) {
	il := imageOf(l)
	if il == nil {
		return 0, false
	}
	p := il.current()
	if p != nil {
		row, col = p.at(row, col)
	}
	if p == nil || row < 0 || col < 0 || row >= p.rows || col >= p.cols || p.offAt(row) {
		return 0, false
	}
	return p.value(row, col), true
}

// heatmapUnder returns the topmost visible heat map of layers in panel
// p with a cell at (row, col), or nil.
func heatmapUnder(layers []Layer, p *sliceView, row, col int) *HeatmapLayer {
	for i := len(layers) - 1; i >= 0; i-- {
		h, ok := heatmapLayer(layers[i])
		if !ok || !h.Visible() || p.group != nil && !slices.Contains(p.group, layers[i]) {
			continue
		}
		if row >= 0 && col >= 0 && row < h.rows && col < h.cols {
			return h
		}
	}
	return nil
}

// stackOf returns the stack layer of layers whose maps are the rows of
// heat map h (a distance matrix's ground-truth maps): the topmost with
// as many maps as h has rows, or nil.
func stackOf(layers []Layer, h *HeatmapLayer) *ImageLayer {
	for i := len(layers) - 1; i >= 0; i-- {
		if il, ok := imageLayer(layers[i]); ok && il.maps > 1 && il.maps == h.rows {
			return il
		}
	}
	return nil
}

// tapHeatmap shows, for a tap on a cell of a distance heat map, the map of
// its row in the stack those rows index at its middle plane (the slider
// may have been past the end of a map, or at an empty border plane),
// showing the stack if hidden.
func (s *sliceView) tapHeatmap(pos fyne.Position) {
	v := s.v
	row, col := s.cellAt(pos)
	layers := v.stack.All()
	h := heatmapUnder(layers, s, row, col)
	if h == nil {
		return
	}
	st := stackOf(layers, h)
	if st == nil {
		return
	}
	v.Batch(func() {
		if !st.Visible() {
			st.SetVisible(true)
		}
		v.Dims().SetMap(row)
		v.Dims().SetSlice(st.extent()[v.at.Axis()] / 2)
	})
}

func formatValue(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e9 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.4g", x)
}
