package reconstruct

import (
	"math"
	"testing"
)

// TestFindCenterVo: Vo's method finds a known off-centre axis within
// half a pixel, on exact projections of the Shepp-Logan phantom (120
// angles over 180°, 256 columns: a field wide beside the default search
// of ±50 columns), for axes left and right of the detector's middle,
// with httomolibgpu's step (0.5) and with a fractional one (0.25, which
// shifts by the cubic spline).
func TestFindCenterVo(t *testing.T) {
	const nang, cols = 120, 256
	angles := make([]float64, nang)
	for i := range angles {
		angles[i] = math.Pi * float64(i) / nang
	}
	for _, c := range []struct{ axis, step float64 }{{141.3, 0.5}, {110.8, 0.25}, {127.5, 0.5}} {
		sino := make([]float64, nang*cols)
		projectEllipses(sino, sheppLogan(90), angles, cols, c.axis)
		p := DefaultCenterVo
		p.Step = c.step
		got := p.Find(f32(sino), nang, cols)
		if math.Abs(got-c.axis) > 0.5 {
			t.Errorf("axis %g, step %g: found %g", c.axis, c.step, got)
		} else {
			t.Logf("axis %g, step %g: found %g", c.axis, c.step, got)
		}
	}
}

// TestFindCenterVoWide: on a detector wider than 2000 columns the coarse
// search runs on the sinogram averaged down 4x across the detector
// (httomolibgpu's dsp_detX) and the fine one at full width; it still
// finds the axis within half a pixel.
func TestFindCenterVoWide(t *testing.T) {
	const nang, cols = 60, 2100
	angles := make([]float64, nang)
	for i := range angles {
		angles[i] = math.Pi * float64(i) / nang
	}
	const axis = 1071.6
	sino := make([]float64, nang*cols)
	projectEllipses(sino, sheppLogan(700), angles, cols, axis)
	got := DefaultCenterVo.Find(f32(sino), nang, cols)
	if math.Abs(got-axis) > 0.5 {
		t.Errorf("axis %g: found %g", axis, got)
	}
	t.Logf("axis %g: found %g", axis, got)
}

// TestSplineShift: the cubic spline interpolates (a whole shift gives the
// samples back), and half a pixel's shift of a smooth signal reads it
// between the samples to 1e-4.
func TestSplineShift(t *testing.T) {
	n := 64
	x, out, coef := make([]float64, n), make([]float64, n), make([]float64, n)
	f := func(v float64) float64 { return math.Sin(2*math.Pi*v/20) + 0.3*math.Cos(2*math.Pi*v/13) }
	for i := range x {
		x[i] = f(float64(i))
	}
	splineShift(out, coef, x, 3)
	for j := 3; j < n; j++ {
		if math.Abs(out[j]-x[j-3]) > 1e-12 {
			t.Fatalf("whole shift: out[%d] = %g, want %g", j, out[j], x[j-3])
		}
	}
	if out[0] != 0 || out[2] != 0 {
		t.Errorf("shifted-in samples are %g, %g, want 0", out[0], out[2])
	}
	splineShift(out, coef, x, 0.5)
	for j := 4; j < n-4; j++ {
		if d := math.Abs(out[j] - f(float64(j)-0.5)); d > 1e-3 {
			t.Errorf("half shift at %d: off by %g", j, d)
		}
	}
}
