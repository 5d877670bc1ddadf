package model

import (
	"math"
	"testing"
)

// TestXformMaths checks the view transform against its definition: the
// inverse pair, zoom about a fixed point and pans, with square and
// stretched (anisotropic voxel) rows; and the shared navigation: a zoom
// and pan applied to panels with different fits keeps the points that
// shared a screen position together.
func TestXformMaths(t *testing.T) {
	const w, h = 640.0, 480.0
	for _, aspect := range []float64{0, 1, 2.5} {
		t0 := Fit(60, 256, aspect, w, h)
		rs := t0.RowScale()
		if a := math.Max(aspect, 1); math.Abs(rs-t0.Scale*a) > 1e-12 {
			t.Fatalf("aspect %v: row scale %v, column scale %v", aspect, rs, t0.Scale)
		}
		// The whole plane fits and touches two sides.
		x0, y0 := t0.ToScreen(0, 0, w, h)
		x1, y1 := t0.ToScreen(256, 60, w, h)
		if x0 < -1e-9 || y0 < -1e-9 || x1 > w+1e-9 || y1 > h+1e-9 || (math.Abs(x1-x0-w) > 1e-9 && math.Abs(y1-y0-h) > 1e-9) {
			t.Errorf("aspect %v: fit spans (%v,%v)-(%v,%v)", aspect, x0, y0, x1, y1)
		}
		if got := (Camera{}).Apply(t0); got != t0 {
			t.Errorf("aspect %v: the reset navigation changed the fit: %+v vs %+v", aspect, got, t0)
		}
		for _, p := range [][2]float64{{0, 0}, {100, 37}, {w, h}} {
			x, y := t0.ToData(p[0], p[1], w, h)
			sx, sy := t0.ToScreen(x, y, w, h)
			if math.Abs(sx-p[0]) > 1e-9 || math.Abs(sy-p[1]) > 1e-9 {
				t.Errorf("aspect %v: toScreen(toData(%v)) = %v %v", aspect, p, sx, sy)
			}
			// Zoom twice about the point, with a pan between: it stays.
			n := Camera{}.Pan(13, -7)
			x, y = n.Apply(t0).ToData(p[0], p[1], w, h)
			n = n.ZoomAt(1.7, p[0], p[1], w, h, 0, 100).ZoomAt(1.3, p[0], p[1], w, h, 0, 100)
			z := n.Apply(t0)
			zx, zy := z.ToData(p[0], p[1], w, h)
			if math.Abs(zx-x) > 1e-9 || math.Abs(zy-y) > 1e-9 || math.Abs(z.Scale-t0.Scale*1.7*1.3) > 1e-12 {
				t.Errorf("aspect %v: zoom at %v moved the point: %v %v -> %v %v", aspect, p, x, y, zx, zy)
			}
		}
		pn := Camera{}.Pan(30, -12).Apply(t0)
		ax, ay := t0.ToScreen(10, 10, w, h)
		bx, by := pn.ToScreen(10, 10, w, h)
		if math.Abs(bx-ax-30) > 1e-9 || math.Abs(by-ay+12) > 1e-9 {
			t.Errorf("aspect %v: pan moved a point by %v %v", aspect, bx-ax, by-ay)
		}
	}
	// Panels of different data: what shared a screen position at the fit
	// shares it after any navigation (zoom clamped to the range).
	f1, f2 := Fit(60, 256, 2.5, w, h), Fit(32, 32, 1, w, h)
	n := Camera{}.ZoomAt(3, 500, 100, w, h, 0, 1000).Pan(-40, 25).ZoomAt(0.5, 20, 400, w, h, 0, 1000)
	for _, q := range [][2]float64{{0, 0}, {320, 240}, {600, 50}} {
		x1, y1 := f1.ToData(q[0], q[1], w, h)
		x2, y2 := f2.ToData(q[0], q[1], w, h)
		ax, ay := n.Apply(f1).ToScreen(x1, y1, w, h)
		bx, by := n.Apply(f2).ToScreen(x2, y2, w, h)
		if math.Abs(ax-bx) > 1e-9 || math.Abs(ay-by) > 1e-9 {
			t.Errorf("screen %v: panels parted after navigating: (%v,%v) vs (%v,%v)", q, ax, ay, bx, by)
		}
	}
	if z := (Camera{}).ZoomAt(1e6, 0, 0, w, h, 0.5, 8); z.Zoom != 8 {
		t.Errorf("zoom not clamped to the range: %v", z.Zoom)
	}
	lo, hi := ZoomRange([]Xform{f1, f2})
	if math.Abs(lo-math.Max(MinScale/f1.Scale, MinScale/f2.Scale)) > 1e-12 || math.Abs(hi-math.Min(MaxScale/f1.Scale, MaxScale/f2.Scale)) > 1e-12 {
		t.Errorf("zoom range %v %v for scales %v %v", lo, hi, f1.Scale, f2.Scale)
	}
	if s := Fit(10, 10, 1, 1e6, 1e6).Scale; s != MaxScale {
		t.Errorf("zoom not capped: %v", s)
	}
}
