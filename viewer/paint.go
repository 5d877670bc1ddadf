package viewer

import (
	"fmt"
	"math"
	"slices"

	"github.com/voxlab/voxlab/viewer/model"
)

// Painting the panels: the layers' planes composed, the scale bar and
// the panels' titles. Each kind of layer draws itself (its draw method),
// so that a new kind brings its own painting.

// drawCtx is what a panel draws its layers with: the view's dims (at:
// the plane along axis, the map), the slicing axis of the panel, the
// transposing cache of the zy panel (nil for the others), the
// transform t and the logical size sw x sh at ps device pixels per
// logical pixel.
type drawCtx struct {
	at         *model.Dims
	axis       Axis
	flip       *flipCache
	t          xform
	sw, sh, ps float64
}

// shownIn returns the visible layers of group (of every layer for nil),
// bottom first.
func shownIn(layers, group []Layer) []Layer {
	var shown []Layer
	for _, l := range layers {
		if l.Visible() && (group == nil || slices.Contains(group, l)) {
			shown = append(shown, l)
		}
	}
	return shown
}

// paint draws the layers shown into f, which must be sized. The
// background is painted first, except under a bottom layer of opaque
// integer data, which is drawn straight into the frame with the
// background painted around it.
func (c drawCtx) paint(f *frame, shown []Layer) {
	pickLevels(shown, c.at.Axis(), c.t, c.ps)
	c.flip.begin()
	defer c.flip.end()
	start := 0
	if len(shown) > 0 {
		if il := imageOf(shown[0]); il != nil && il.Opacity() >= 1 && il.Blending() == Translucent {
			if p, _ := il.planeFor(c.axis, c.at.Index(c.axis), c.at.Map()); p != nil && lutDirect(p.dtype) && p.off == nil {
				p = c.flip.of(p)
				f.fillAround(drawPlane(f, p, il.lookup(p.dtype), c.t, c.sw, c.sh, c.ps, 1, Translucent))
				start = 1
			}
		}
	}
	if start == 0 {
		f.fill(0, 0, f.w, f.h)
	}
	for _, l := range shown[start:] {
		l.draw(f, c)
	}
}

// draw blends the layer's plane on show into f (a heat map draws as
// the image it holds).
func (l *ImageLayer) draw(f *frame, c drawCtx) {
	p, _ := l.planeFor(c.axis, c.at.Index(c.axis), c.at.Map())
	if p == nil {
		return
	}
	p = c.flip.of(p)
	drawPlane(f, p, l.lookup(p.dtype), c.t, c.sw, c.sh, c.ps, l.Opacity(), l.Blending())
}

// draw marks the layer's points of the plane on show (and those near
// it) in f, and counts those in view.
func (l *PointsLayer) draw(f *frame, c drawCtx) {
	l.inView = drawPoints(f, l.PointSet, c.axis, c.flip != nil, c.at.Index(c.axis), l.outOfSlice, &l.style, l.size, l.Opacity(), c.t, c.sw, c.sh, c.ps)
}

// scaleBar returns the scale bar's length in logical pixels and its
// label for the panel, from the voxel size of its lowest visible image
// layer; 0 when that layer has no voxel size.
func (s *sliceView) scaleBar() (float64, string) {
	for _, l := range s.v.stack.All() {
		il, ok := imageLayer(l)
		if !ok || !l.Visible() || s.group != nil && !slices.Contains(s.group, l) {
			continue
		}
		_, ca := s.dispAxes()
		vs := il.vol.VoxelSize[ca]
		if vs <= 0 {
			return 0, ""
		}
		// Aim for about a fifth of the panel, at most 150 pixels.
		scale := s.xf().Scale
		target := math.Min(float64(s.Size().Width)/5, 150) / scale * vs
		if target <= 0 {
			return 0, ""
		}
		phys := niceLength(target)
		return phys / vs * scale, fmt.Sprintf("%g %s", phys, il.Unit())
	}
	return 0, ""
}

// panelTitle names what a grid panel shows at the planes of at: its
// image layer, with the map on show for a stack, and why it is empty
// when the sliders are past the layer's end (the slice is shared by
// layers of different depths).
func panelTitle(group []Layer, at *model.Dims) string {
	if len(group) == 0 {
		return ""
	}
	il, ok := imageLayer(group[0])
	if !ok {
		return group[0].Name()
	}
	title := il.Name()
	if il.maps > 1 {
		if at.Map() >= il.maps {
			return fmt.Sprintf("%s: no map %d", title, at.Map())
		}
		title = fmt.Sprintf("%s: map %d", title, at.Map())
	}
	if n := il.extent()[at.Axis()]; at.Slice() >= n {
		title += fmt.Sprintf(" (ends at %s %d)", at.Axis(), n-1)
	}
	return title
}
