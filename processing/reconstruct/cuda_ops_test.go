//go:build cuda

package reconstruct

import (
	"math"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
)

// The CUDA back-projection must give the CPU's slices within
// BackProjectTolerance (the kernel positions and sums in float32, the
// CPU in float64). Compile-checked, not yet run on a GPU.

// openCUDA opens CUDA device 0, skipping the test without one.
func openCUDA(t *testing.T) *gpu.CUDABackend {
	t.Helper()
	c, err := gpu.OpenCUDA(0)
	if err != nil {
		t.Skipf("CUDA device 0 does not open (the CUDA back-projection needs a GPU to compare with the CPU's): %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return c
}

// phantomSinogram is the Shepp-Logan phantom of radius r projected over
// n angles evenly in [0, π) onto cols columns about axis centre.
func phantomSinogram(n, cols int, r, centre float64) ([]float64, []float32) {
	angles := evenAngles(n)
	sino := make([]float64, n*cols)
	projectEllipses(sino, sheppLogan(r), angles, cols, centre)
	return angles, f32(sino)
}

// maxAbs32 is the largest magnitude in x.
func maxAbs32(x []float32) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(float64(v)))
	}
	return m
}

// TestCUDAReconBackProject: FBP with its back-projection on CUDA
// (deviceFBP, as a run makes it) reconstructs the Shepp-Logan phantom as
// the CPU's FBP does, within BackProjectTolerance, for an off-centre
// axis with the circular mask and zero padding to the diagonal, and a
// centred axis with edge padding and no mask, every filter; and
// BackProject of three slices in one call gives each slice's CPU
// back-projection.
func TestCUDAReconBackProject(t *testing.T) {
	c := openCUDA(t)
	const cols = 128
	for _, tc := range []struct {
		name   string
		n      int
		centre float64
		pad    int
		zeros  bool
		mask   float64
	}{
		{"off-centre axis, diagonal zero padding, mask", 180, 69.3, DiagonalPad(cols), true, 1},
		{"centred axis, edge padding, no mask", 181, 63.5, AutoPad(cols), false, 0},
	} {
		angles, sino := phantomSinogram(tc.n, cols, 45, tc.centre)
		for _, filter := range []Filter{Ramp, SheppLogan, Cosine, Hamming, Hann} {
			g := Geometry{Angles: angles, Columns: cols, Center: tc.centre, Pad: tc.pad, PadZeros: tc.zeros, MaskRadius: tc.mask, Filter: filter}
			f, err := NewFBP(g)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float32, cols*cols)
			f.Slice(want, sino)
			d, err := newDeviceFBP(g, c)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float32, cols*cols)
			if err := d.SliceContext(t.Context(), got, sino); err != nil {
				t.Fatal(err)
			}
			tol := BackProjectTolerance(d.s, maxAbs32(d.f.filtered))
			d.Close()
			if err := gpu.CompareFloats("slice", got, want, tol); err != nil {
				t.Errorf("%s, filter %s: %v", tc.name, filter, err)
			}
			var worst float64
			for i := range got {
				worst = math.Max(worst, math.Abs(float64(got[i]-want[i])))
			}
			t.Logf("%s, filter %s: largest difference %.3g (tolerance %.3g, slice peak %.3g)", tc.name, filter, worst, tol, maxAbs32(want))
		}
	}

	// Three slices in one BackProject call: each the CPU ops' slice.
	s := BackProjectShape{Slices: 3, Angles: 90, Columns: cols, Pad: DiagonalPad(cols), Size: cols, Center: 61.8, MaskRadius: 0.95}
	per := s.Angles * (s.Width() + 2)
	filtered := make([]float32, s.FilteredLen())
	for z := 0; z < s.Slices; z++ {
		angles, sino := phantomSinogram(s.Angles, cols, 30+5*float64(z), s.Center)
		f, err := NewFBP(Geometry{Angles: angles, Columns: cols, Center: s.Center, Pad: s.Pad, PadZeros: true, MaskRadius: s.MaskRadius})
		if err != nil {
			t.Fatal(err)
		}
		f.filterAll(t.Context(), sino)
		copy(filtered[z*per:(z+1)*per], f.filtered)
	}
	trig := checkTrig(s)
	ops, err := opsFor(c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := runBackProject(c, ops, s, filtered, trig)
	if err != nil {
		t.Fatal(err)
	}
	cpu := gpu.NewCPU()
	want, err := runBackProject(cpu, cpuOps{cpu}, s, filtered, trig)
	if err != nil {
		t.Fatal(err)
	}
	if err := gpu.CompareFloats("three slices", got, want, BackProjectTolerance(s, maxAbs32(filtered))); err != nil {
		t.Error(err)
	}
	if n := c.Stats().Current; n != 0 {
		t.Errorf("%d device bytes left allocated", n)
	}
}

// TestCUDAReconBadBuffers: BackProject refuses buffers smaller than the
// shape needs, naming them, before it launches.
func TestCUDAReconBadBuffers(t *testing.T) {
	c := openCUDA(t)
	ops, err := opsFor(c)
	if err != nil {
		t.Fatal(err)
	}
	s := BackProjectShape{Slices: 1, Angles: 4, Columns: 8, Size: 8, Center: 3.5}
	small, err := c.Alloc("small", 16)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(small)
	trig, err := c.Alloc("trig", int64(s.TrigLen())*8)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(trig)
	if err := c.Upload(trig, 0, volume.Bytes(checkTrig(s))); err != nil {
		t.Fatal(err)
	}
	if err := ops.BackProject(small, small, trig, s); err == nil {
		t.Fatal("BackProject into a 16-byte slice buffer: no error")
	}
}
