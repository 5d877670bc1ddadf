package viewer

import (
	"math"

	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/viewer/model"
)

// Point is one point of a points layer: its position in voxels (z, y, x;
// fractional positions allowed) and a type name, whose class (cell,
// non-cell, unknown) chooses its symbol.
type Point = points.Point

// drawPoints draws the live points within ±n planes of slice idx in
// layer style st and returns how many points of each class of the slice
// itself fall inside the panel. Selected points get a box around them.
func drawPoints(f *frame, s *model.PointSet, a Axis, flip bool, idx, n int, st *PointsStyle, size, opacity float64, t xform, sw, sh, pxScale float64) (inView [points.NumClasses]int) {
	n = max(n, 0)
	for d := -n; d <= n; d++ {
		k := idx + d
		// Out-of-slice points shrink and fade linearly with distance.
		fall := 1 - math.Abs(float64(d))/float64(n+1)
		alpha := opacity
		if d != 0 {
			alpha *= 0.6 * fall
		}
		diam := max(size*math.Sqrt(t.Scale*t.RowScale())*fall, 3) * pxScale
		// One stencil lookup per class and plane, not per marker.
		var sts [points.NumClasses]*stencilSet
		for c := range sts {
			sts[c] = stencil(st.Symbols[c], diam)
		}
		s.VisitPlane(a, k, func(_ int32, p *Point, cls points.Class, sel bool) {
			_, r, c := model.Coords(p, a)
			if flip {
				r, c = c, r
			}
			x, y := t.ToScreen(c+0.5, r+0.5, sw, sh)
			if x < 0 || y < 0 || x >= sw || y >= sh {
				return
			}
			if d == 0 {
				inView[cls]++
			}
			drawStencil(f, x*pxScale, y*pxScale, sts[cls], st.Face, st.Edge, alpha)
			if sel {
				drawBox(f, x*pxScale, y*pxScale, diam*0.75+3*pxScale, math.Max(1, math.Round(1.5*pxScale)))
			}
		})
	}
	return inView
}
