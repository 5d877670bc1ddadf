package render3d

import "math"

// Vec is a vector in world coordinates: (x, y, z), physical units.
type Vec [3]float64

func (a Vec) add(b Vec) Vec       { return Vec{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a Vec) scale(s float64) Vec { return Vec{a[0] * s, a[1] * s, a[2] * s} }
func (a Vec) dot(b Vec) float64   { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func (a Vec) cross(b Vec) Vec {
	return Vec{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func (a Vec) norm() float64 { return math.Sqrt(a.dot(a)) }

// Mat is a 3x3 rotation. Row 0 is the screen's right, row 1 its down
// and row 2 the viewing direction (into the screen), in world
// coordinates: it maps world vectors to view coordinates.
type Mat [3]Vec

func (m Mat) mul(n Mat) Mat {
	var r Mat
	for i := range 3 {
		for j := range 3 {
			r[i][j] = m[i][0]*n[0][j] + m[i][1]*n[1][j] + m[i][2]*n[2][j]
		}
	}
	return r
}

// Camera is an orthographic camera looking at the centre of the volume.
type Camera struct {
	// Rot is the view rotation; the identity looks down z with x to
	// the right and y down, as the 2D view of z slices shows them.
	Rot Mat
	// Zoom scales the fit (1: the diagonal of the volume's largest
	// face fills the frame's shorter side, but for a margin).
	Zoom float64
}

// Identity is the view down z.
var Identity = Mat{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}

// DefaultCamera looks down z, fitted.
func DefaultCamera() Camera { return Camera{Rot: Identity, Zoom: 1} }

// rotation returns the rotation by angle radians about a unit axis
// (Rodrigues' formula).
func rotation(axis Vec, angle float64) Mat {
	c, s := math.Cos(angle), math.Sin(angle)
	x, y, z := axis[0], axis[1], axis[2]
	t := 1 - c
	return Mat{
		{t*x*x + c, t*x*y - s*z, t*x*z + s*y},
		{t*x*y + s*z, t*y*y + c, t*y*z - s*x},
		{t*x*z - s*y, t*y*z + s*x, t*z*z + c},
	}
}

// Angles returns the camera turned by azimuth az about the screen's
// vertical (a turntable) and then tilted by elevation el about its
// horizontal, both in degrees, from the view down z.
func Angles(az, el float64) Camera {
	ry := rotation(Vec{0, 1, 0}, az*math.Pi/180)
	rx := rotation(Vec{1, 0, 0}, el*math.Pi/180)
	return Camera{Rot: rx.mul(ry).mul(Identity), Zoom: 1}
}

// sphere maps a point of a w x h frame onto Shoemake's arcball: the
// unit sphere over the circle inscribed in the frame, and outside it
// the circle's edge.
func sphere(x, y, w, h float64) Vec {
	r := math.Min(w, h) / 2
	p := Vec{(x - w/2) / r, (y - h/2) / r, 0}
	if d := p[0]*p[0] + p[1]*p[1]; d < 1 {
		p[2] = -math.Sqrt(1 - d) // towards the viewer: -view direction
	} else {
		p = p.scale(1 / math.Sqrt(d))
	}
	return p
}

// Drag turns the camera as the arcball under a drag from (x0, y0) to
// (x1, y1) in a w x h frame turns (K. Shoemake, "ARCBALL: a user
// interface for specifying three-dimensional orientation using a
// mouse", Graphics Interface 1992): the volume follows the pointer, by
// the angle between the two points on the sphere about their normal.
func (c *Camera) Drag(x0, y0, x1, y1, w, h float64) {
	a, b := sphere(x0, y0, w, h), sphere(x1, y1, w, h)
	axis := a.cross(b)
	n := axis.norm()
	if n < 1e-12 {
		return
	}
	angle := math.Atan2(n, a.dot(b))
	// The object turns by q in view space, so the world-to-view map
	// becomes q·Rot.
	c.Rot = orthonormal(rotation(axis.scale(1/n), angle).mul(c.Rot))
}

// orthonormal re-orthogonalises m (Gram-Schmidt on its rows), so that
// thousands of drags do not let rounding shear the view.
func orthonormal(m Mat) Mat {
	r := m[0].scale(1 / m[0].norm())
	d := m[1].add(r.scale(-r.dot(m[1])))
	d = d.scale(1 / d.norm())
	return Mat{r, d, r.cross(d)}
}
