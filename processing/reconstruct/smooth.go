package reconstruct

import (
	"math"

	"github.com/voxlab/voxlab/processing/ndimage"
)

// reflect is scipy.ndimage's mode 'reflect' (ndimage.Reflect).
func reflect(i, n int) int { return ndimage.Reflect(i, n) }

// gaussianWeights are scipy.ndimage.gaussian_filter1d's weights for
// sigma (truncate 4), all 2r+1 of them from −r to r
// (ndimage.GaussianWeights, which holds one side).
func gaussianWeights(sigma float64) []float64 {
	r := ndimage.GaussianRadius(sigma)
	half := ndimage.GaussianWeights(sigma, r)
	w := make([]float64, 2*r+1)
	for k := -r; k <= r; k++ {
		w[k+r] = half[abs(k)]
	}
	return w
}

func abs(k int) int {
	if k < 0 {
		return -k
	}
	return k
}

// gaussian2D writes into dst (rows × cols, float64) src smoothed by
// scipy.ndimage.gaussian_filter(src, (sy, sx), mode='reflect'): one 1D
// Gaussian along the rows' axis, then one along the columns', using tmp
// (rows × cols) as scratch.
func gaussian2D(dst, tmp []float64, src []float32, rows, cols int, sy, sx float64) {
	wy, wx := gaussianWeights(sy), gaussianWeights(sx)
	ry, rx := len(wy)/2, len(wx)/2
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			var s float64
			for k, w := range wy {
				s += w * float64(src[reflect(i+k-ry, rows)*cols+j])
			}
			tmp[i*cols+j] = s
		}
	}
	for i := 0; i < rows; i++ {
		row := tmp[i*cols : (i+1)*cols]
		for j := 0; j < cols; j++ {
			var s float64
			for k, w := range wx {
				s += w * row[reflect(j+k-rx, cols)]
			}
			dst[i*cols+j] = s
		}
	}
}

// splineShift writes into dst src shifted by s (dst[j] = src(j − s)) by
// cubic B-spline interpolation, as scipy.ndimage.shift(order=3,
// prefilter=True, mode='constant') does along one axis: the spline's
// coefficients with mirror boundaries (Unser, "Splines: a perfect fit
// for signal and image processing", 1999), zero where j − s falls
// outside 0…n−1. coef is scratch of len(src).
func splineShift(dst, coef, src []float64, s float64) {
	n := len(src)
	splineCoefficients(coef, src)
	for j := range dst {
		x := float64(j) - s
		if x < -1e-9 || x > float64(n-1)+1e-9 {
			dst[j] = 0
			continue
		}
		k := int(math.Floor(x))
		t := x - float64(k)
		w0 := (1 - t) * (1 - t) * (1 - t) / 6
		w1 := (4 - 6*t*t + 3*t*t*t) / 6
		w2 := (1 + 3*t + 3*t*t - 3*t*t*t) / 6
		w3 := t * t * t / 6
		m := func(i int) float64 { return coef[mirror(i, n)] }
		dst[j] = w0*m(k-1) + w1*m(k) + w2*m(k+1) + w3*m(k+2)
	}
}

// mirror maps i into 0…n−1 by whole-sample symmetry (d c b | a b c d |
// c b a), the boundary of scipy's spline prefilter.
func mirror(i, n int) int {
	if n == 1 {
		return 0
	}
	p := 2*n - 2
	i %= p
	if i < 0 {
		i += p
	}
	if i >= n {
		i = p - i
	}
	return i
}

// splineCoefficients writes into c the cubic B-spline coefficients of x
// under mirror boundaries: a causal and an anti-causal recursion with the
// pole √3 − 2 and gain 6.
func splineCoefficients(c, x []float64) {
	n := len(x)
	z := math.Sqrt(3) - 2
	for i, v := range x {
		c[i] = 6 * v
	}
	if n == 1 {
		c[0] = x[0]
		return
	}
	// Causal start: the sum of the mirrored signal weighted by z^k, to
	// double precision (|z|^k < 1e-18 past k = 32).
	var s float64
	zk := 1.0
	for k := 0; k < 32; k++ {
		s += zk * c[mirror(k, n)]
		zk *= z
	}
	c[0] = s
	for i := 1; i < n; i++ {
		c[i] += z * c[i-1]
	}
	c[n-1] = z / (z*z - 1) * (c[n-1] + z*c[n-2])
	for i := n - 2; i >= 0; i-- {
		c[i] = z * (c[i+1] - c[i])
	}
}
