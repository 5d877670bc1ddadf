package model

import "math"

// Xform maps a panel's logical (Fyne) coordinates to data coordinates of
// the displayed plane: data = centre + (screen - size/2) / Scale. Data
// coordinates put pixel (r, c) over [c, c+1) x [r, r+1), so a point at
// integer coordinates sits at the centre of its pixel after adding 0.5.
// Each panel has its own: its Fit under the shared Camera.
//
// Aspect stretches rows: a row is Scale*Aspect pixels tall, so voxels
// that are longer along the row axis (z planes 5 µm apart under 2 µm
// pixels) keep their physical shape. Zero means 1.
type Xform struct {
	CX, CY float64 // data (x=col, y=row) at the panel centre
	Scale  float64 // logical pixels per data column
	Aspect float64
}

// RowScale returns logical pixels per data row.
func (t Xform) RowScale() float64 {
	if t.Aspect > 0 {
		return t.Scale * t.Aspect
	}
	return t.Scale
}

// Zoom limits: 1/64 (a 100k-pixel plane in a small window) to 256x.
const (
	MinScale = 1.0 / 64
	MaxScale = 256
)

// ToData maps a panel position to data coordinates.
func (t Xform) ToData(sx, sy, w, h float64) (x, y float64) {
	return t.CX + (sx-w/2)/t.Scale, t.CY + (sy-h/2)/t.RowScale()
}

// ToScreen maps data coordinates to a panel position.
func (t Xform) ToScreen(x, y, w, h float64) (sx, sy float64) {
	return (x-t.CX)*t.Scale + w/2, (y-t.CY)*t.RowScale() + h/2
}

// Fit returns the Xform that shows a rows x cols plane whole and centred
// in a w x h panel, rows stretched by Aspect (0 or 1: square pixels).
func Fit(rows, cols int, aspect, w, h float64) Xform {
	if aspect <= 0 {
		aspect = 1
	}
	if rows <= 0 || cols <= 0 || w <= 0 || h <= 0 {
		return Xform{Scale: 1, Aspect: aspect}
	}
	s := math.Min(w/float64(cols), h/(float64(rows)*aspect))
	return Xform{CX: float64(cols) / 2, CY: float64(rows) / 2, Scale: ClampScale(s), Aspect: aspect}
}

// Camera is the navigation the panels share: a Zoom and a Pan applied on
// screen after each panel's own Fit. A panel maps a data point p to
//
//	c + Zoom·(Fit(p) − c) + (TX, TY)
//
// with c its centre, so panels of data of different sizes each fill
// their panel at the reset view, and a drag or scroll in one moves every
// panel alike (napari's grid shares one camera instead, which leaves a
// small map a speck beside a large scan). Panels with the same Fit (raw
// and dezinged of one scan, in panels of one size) get the same Xform
// and stay pixel-aligned.
type Camera struct {
	Zoom   float64 // relative to the Fit; 0 means 1
	TX, TY float64 // Pan in logical pixels
}

// ZoomOr1 returns the zoom, 1 for the zero Camera.
func (n Camera) ZoomOr1() float64 {
	if n.Zoom > 0 {
		return n.Zoom
	}
	return 1
}

// Apply returns the Xform of a panel whose Fit is f. The Scale is
// clamped only where ZoomRange could not keep every panel in range.
func (n Camera) Apply(f Xform) Xform {
	t := Xform{Scale: ClampScale(f.Scale * n.ZoomOr1()), Aspect: f.Aspect}
	t.CX = f.CX - n.TX/t.Scale
	t.CY = f.CY - n.TY/t.RowScale()
	return t
}

// Pan moves the view by a screen displacement (dx, dy): the data follows
// the pointer.
func (n Camera) Pan(dx, dy float64) Camera {
	n.TX += dx
	n.TY += dy
	return n
}

// ZoomAt multiplies the Zoom by f, clamped to [lo, hi], keeping what is
// under the position (sx, sy) of a w x h panel where it is.
func (n Camera) ZoomAt(f, sx, sy, w, h, lo, hi float64) Camera {
	z0 := n.ZoomOr1()
	z1 := math.Min(math.Max(z0*f, lo), hi)
	r := z1 / z0
	// Solve for the Pan that maps the point under (sx, sy) there again.
	qx, qy := sx-w/2, sy-h/2
	n.TX = qx - r*(qx-n.TX)
	n.TY = qy - r*(qy-n.TY)
	n.Zoom = z1
	return n
}

// ZoomRange returns the zooms that keep every Fit's Scale within
// [MinScale, MaxScale]. Fits more than MaxScale/MinScale apart leave no
// such Zoom; the range then spans both limits and Apply clamps.
func ZoomRange(fits []Xform) (lo, hi float64) {
	if len(fits) == 0 {
		return MinScale, MaxScale
	}
	lo, hi = 0, math.Inf(1)
	for _, f := range fits {
		lo = math.Max(lo, MinScale/f.Scale)
		hi = math.Min(hi, MaxScale/f.Scale)
	}
	return math.Min(lo, hi), math.Max(lo, hi)
}

// ClampScale clamps a scale to [MinScale, MaxScale].
func ClampScale(s float64) float64 { return math.Min(math.Max(s, MinScale), MaxScale) }
