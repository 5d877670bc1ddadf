package viewer

import "math"

// xform maps a panel's logical (Fyne) coordinates to data coordinates of
// the displayed plane: data = centre + (screen - size/2) / scale. Data
// coordinates put pixel (r, c) over [c, c+1) x [r, r+1), so a point at
// integer coordinates sits at the centre of its pixel after adding 0.5.
// Each panel has its own: its fit under the shared nav.
//
// aspect stretches rows: a row is scale*aspect pixels tall, so voxels
// that are longer along the row axis (z planes 5 µm apart under 2 µm
// pixels) keep their physical shape. Zero means 1.
type xform struct {
	cx, cy float64 // data (x=col, y=row) at the panel centre
	scale  float64 // logical pixels per data column
	aspect float64
}

// rowScale returns logical pixels per data row.
func (t xform) rowScale() float64 {
	if t.aspect > 0 {
		return t.scale * t.aspect
	}
	return t.scale
}

// Zoom limits: 1/64 (a 100k-pixel plane in a small window) to 256x.
const (
	minScale = 1.0 / 64
	maxScale = 256
)

// toData maps a panel position to data coordinates.
func (t xform) toData(sx, sy, w, h float64) (x, y float64) {
	return t.cx + (sx-w/2)/t.scale, t.cy + (sy-h/2)/t.rowScale()
}

// toScreen maps data coordinates to a panel position.
func (t xform) toScreen(x, y, w, h float64) (sx, sy float64) {
	return (x-t.cx)*t.scale + w/2, (y-t.cy)*t.rowScale() + h/2
}

// fit returns the xform that shows a rows x cols plane whole and centred
// in a w x h panel, rows stretched by aspect (0 or 1: square pixels).
func fit(rows, cols int, aspect, w, h float64) xform {
	if aspect <= 0 {
		aspect = 1
	}
	if rows <= 0 || cols <= 0 || w <= 0 || h <= 0 {
		return xform{scale: 1, aspect: aspect}
	}
	s := math.Min(w/float64(cols), h/(float64(rows)*aspect))
	return xform{cx: float64(cols) / 2, cy: float64(rows) / 2, scale: clampScale(s), aspect: aspect}
}

// nav is the navigation the panels share: a zoom and a pan applied on
// screen after each panel's own fit. A panel maps a data point p to
//
//	c + zoom·(fit(p) − c) + (tx, ty)
//
// with c its centre, so panels of data of different sizes each fill
// their panel at the reset view, and a drag or scroll in one moves every
// panel alike (napari's grid shares one camera instead, which leaves a
// small map a speck beside a large scan). Panels with the same fit (raw
// and dezinged of one scan, in panels of one size) get the same xform
// and stay pixel-aligned.
type nav struct {
	zoom   float64 // relative to the fit; 0 means 1
	tx, ty float64 // pan in logical pixels
}

func (n nav) zoomOr1() float64 {
	if n.zoom > 0 {
		return n.zoom
	}
	return 1
}

// apply returns the xform of a panel whose fit is f. The scale is
// clamped only where zoomRange could not keep every panel in range.
func (n nav) apply(f xform) xform {
	t := xform{scale: clampScale(f.scale * n.zoomOr1()), aspect: f.aspect}
	t.cx = f.cx - n.tx/t.scale
	t.cy = f.cy - n.ty/t.rowScale()
	return t
}

// pan moves the view by a screen displacement (dx, dy): the data follows
// the pointer.
func (n nav) pan(dx, dy float64) nav {
	n.tx += dx
	n.ty += dy
	return n
}

// zoomAt multiplies the zoom by f, clamped to [lo, hi], keeping what is
// under the position (sx, sy) of a w x h panel where it is.
func (n nav) zoomAt(f, sx, sy, w, h, lo, hi float64) nav {
	z0 := n.zoomOr1()
	z1 := math.Min(math.Max(z0*f, lo), hi)
	r := z1 / z0
	// Solve for the pan that maps the point under (sx, sy) there again.
	qx, qy := sx-w/2, sy-h/2
	n.tx = qx - r*(qx-n.tx)
	n.ty = qy - r*(qy-n.ty)
	n.zoom = z1
	return n
}

// zoomRange returns the zooms that keep every fit's scale within
// [minScale, maxScale]. Fits more than maxScale/minScale apart leave no
// such zoom; the range then spans both limits and apply clamps.
func zoomRange(fits []xform) (lo, hi float64) {
	if len(fits) == 0 {
		return minScale, maxScale
	}
	lo, hi = 0, math.Inf(1)
	for _, f := range fits {
		lo = math.Max(lo, minScale/f.scale)
		hi = math.Min(hi, maxScale/f.scale)
	}
	return math.Min(lo, hi), math.Max(lo, hi)
}

func clampScale(s float64) float64 { return math.Min(math.Max(s, minScale), maxScale) }

// sampleIndex fills dst[i] with the data index under device pixel i of a
// panel axis n device pixels long (pxScale device pixels per logical one),
// or -1 outside [0, limit). It returns the first and one past the last
// valid pixel; valid pixels are contiguous because the map is monotonic.
func sampleIndex(dst []int32, centre, scale float64, size float64, pxScale float64, limit int) (lo, hi int) {
	lo, hi = len(dst), 0
	for i := range dst {
		s := (float64(i) + 0.5) / pxScale
		d := math.Floor(centre + (s-size/2)/scale)
		if d < 0 || d >= float64(limit) {
			dst[i] = -1
			continue
		}
		dst[i] = int32(d)
		lo = min(lo, i)
		hi = i + 1
	}
	if hi < lo {
		return 0, 0
	}
	return lo, hi
}
