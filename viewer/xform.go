package viewer

import "math"

// xform maps a panel's logical (Fyne) coordinates to data coordinates of
// the displayed plane: data = centre + (screen - size/2) / scale. Data
// coordinates put pixel (r, c) over [c, c+1) x [r, r+1), so a point at
// integer coordinates sits at the centre of its pixel after adding 0.5.
// Every panel of a grid shares one xform, which links their navigation.
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

// zoomAt multiplies the scale by f keeping the data point under the
// panel position (sx, sy) fixed.
func (t xform) zoomAt(f, sx, sy, w, h float64) xform {
	x, y := t.toData(sx, sy, w, h)
	t.scale = clampScale(t.scale * f)
	// Solve toData(sx, sy) == (x, y) for the centre.
	t.cx = x - (sx-w/2)/t.scale
	t.cy = y - (sy-h/2)/t.rowScale()
	return t
}

// pan moves the view by a screen displacement (dx, dy): the data follows
// the pointer.
func (t xform) pan(dx, dy float64) xform {
	t.cx -= dx / t.scale
	t.cy -= dy / t.rowScale()
	return t
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
