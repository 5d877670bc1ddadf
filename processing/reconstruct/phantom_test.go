package reconstruct

import "math"

// ellipse is one ellipse of a phantom: centre (x, y) and semi-axes (a, b)
// in pixels, rotation phi in radians, density rho.
type ellipse struct{ x, y, a, b, phi, rho float64 }

// sheppLogan is Shepp and Logan's head phantom (1974; the modified
// contrasts of Toft 1996, as scikit-image's shepp_logan_phantom), scaled
// to radius r pixels.
func sheppLogan(r float64) []ellipse {
	t := [][6]float64{
		{0, 0, 0.69, 0.92, 0, 1}, {0, -0.0184, 0.6624, 0.874, 0, -0.8},
		{0.22, 0, 0.11, 0.31, -18, -0.2}, {-0.22, 0, 0.16, 0.41, 18, -0.2},
		{0, 0.35, 0.21, 0.25, 0, 0.1}, {0, 0.1, 0.046, 0.046, 0, 0.1},
		{0, -0.1, 0.046, 0.046, 0, 0.1}, {-0.08, -0.605, 0.046, 0.023, 0, 0.1},
		{0, -0.605, 0.023, 0.023, 0, 0.1}, {0.06, -0.605, 0.023, 0.046, 0, 0.1},
	}
	out := make([]ellipse, len(t))
	for i, e := range t {
		out[i] = ellipse{e[0] * r, e[1] * r, e[2] * r, e[3] * r, e[4] * math.Pi / 180, e[5]}
	}
	return out
}

// projectEllipses writes the exact line integrals of the ellipses into
// sino (len(angles) × cols): at angle θ, column u integrates along the
// line x·cos θ − y·sin θ = u − centre, the geometry FBP inverts, each
// column the mean of four sub-column samples (a detector pixel's width).
func projectEllipses(sino []float64, es []ellipse, angles []float64, cols int, centre float64) {
	for a, th := range angles {
		c, s := math.Cos(th), math.Sin(th)
		for u := 0; u < cols; u++ {
			var sum float64
			for q := 0; q < 4; q++ {
				t := float64(u) - centre + (float64(q)+0.5)/4 - 0.5
				for _, e := range es {
					sum += ellipseIntegral(e, t, c, s) / 4
				}
			}
			sino[a*cols+u] = sum
		}
	}
}

// ellipseIntegral is the chord of an ellipse along the line
// x·c − y·s = t, times its density: the line's normal is (c, −s).
func ellipseIntegral(e ellipse, t, c, s float64) float64 {
	t -= e.x*c - e.y*s
	// The normal's angle relative to the ellipse's axes.
	nx, ny := c, -s
	cp, sp := math.Cos(e.phi), math.Sin(e.phi)
	u, v := nx*cp+ny*sp, -nx*sp+ny*cp
	a2 := e.a*e.a*u*u + e.b*e.b*v*v
	if t*t >= a2 {
		return 0
	}
	return 2 * e.rho * e.a * e.b * math.Sqrt(a2-t*t) / a2
}
