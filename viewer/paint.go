package viewer

import (
	"fmt"
	"math"
	"slices"
)

// Painting the panels: the layers' planes composed, the scale bar and
// the panels' titles.

// paint draws the panel's layers (all visible ones, or a group) into f,
// which must be sized, through the panel's transform t. The background
// is painted first, except under a bottom layer of opaque integer data,
// which is drawn straight into the frame with the background painted
// around it.
func (v *Viewer) paint(f *frame, group []Layer, t xform, sw, sh, ps float64) {
	v.paintAlong(f, group, v.at.Axis(), nil, t, sw, sh, ps)
}

// paintAlong is paint for a slice along axis (a panel of the
// orthogonal views), transposed through flip when it is not nil (the
// zy panel).
func (v *Viewer) paintAlong(f *frame, group []Layer, axis Axis, flip *flipCache, t xform, sw, sh, ps float64) {
	idx := v.at.Index(axis)
	var shown []Layer
	for _, l := range v.stack.All() {
		if l.Visible() && (group == nil || slices.Contains(group, l)) {
			shown = append(shown, l)
		}
	}
	v.pickLevels(shown, t, ps)
	flip.begin()
	defer flip.end()
	start := 0
	if len(shown) > 0 {
		if il := imageOf(shown[0]); il != nil && il.Opacity() >= 1 && il.Blending() == Translucent {
			if p, _ := il.planeFor(axis, idx, v.at.Map()); p != nil && lutDirect(p.dtype) && p.off == nil {
				p = flip.of(p)
				f.fillAround(drawPlane(f, p, il.lookup(p.dtype), t, sw, sh, ps, 1, Translucent))
				start = 1
			}
		}
	}
	if start == 0 {
		f.fill(0, 0, f.w, f.h)
	}
	for _, l := range shown[start:] {
		switch l := l.(type) {
		case *PointsLayer:
			l.inView = drawPoints(f, l.PointSet, axis, flip != nil, idx, l.outOfSlice, &l.style, l.size, l.Opacity(), t, sw, sh, ps)
		default:
			il := imageOf(l)
			p, _ := il.planeFor(axis, idx, v.at.Map())
			if p == nil {
				continue
			}
			p = flip.of(p)
			drawPlane(f, p, il.lookup(p.dtype), t, sw, sh, ps, il.Opacity(), il.Blending())
		}
	}
}

// scaleBar returns the scale bar's length in logical pixels and its
// label for panel p, from the voxel size of its lowest visible image
// layer; 0 when that layer has no voxel size.
func (v *Viewer) scaleBar(p *sliceView) (float64, string) {
	for _, l := range v.stack.All() {
		il, ok := l.(*ImageLayer)
		if !ok || !l.Visible() || p.group != nil && !slices.Contains(p.group, l) {
			continue
		}
		_, ca := p.dispAxes()
		vs := il.vol.VoxelSize[ca]
		if vs <= 0 {
			return 0, ""
		}
		// Aim for about a fifth of the panel, at most 150 pixels.
		scale := p.xf().Scale
		target := math.Min(float64(p.Size().Width)/5, 150) / scale * vs
		if target <= 0 {
			return 0, ""
		}
		phys := niceLength(target)
		return phys / vs * scale, fmt.Sprintf("%g %s", phys, il.Unit())
	}
	return 0, ""
}

// panelTitle names what a grid panel shows: its image layer, with the
// map on show for a stack, and why it is empty when the sliders are past
// the layer's end (the slice is shared by layers of different depths).
func (v *Viewer) panelTitle(group []Layer) string {
	if len(group) == 0 {
		return ""
	}
	il, ok := group[0].(*ImageLayer)
	if !ok {
		return group[0].Name()
	}
	title := il.Name()
	if il.maps > 1 {
		if v.at.Map() >= il.maps {
			return fmt.Sprintf("%s: no map %d", title, v.at.Map())
		}
		title = fmt.Sprintf("%s: map %d", title, v.at.Map())
	}
	if n := il.extent()[v.at.Axis()]; v.at.Slice() >= n {
		title += fmt.Sprintf(" (ends at %s %d)", v.at.Axis(), n-1)
	}
	return title
}
