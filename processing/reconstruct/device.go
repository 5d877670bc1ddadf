package reconstruct

import (
	"context"
	"fmt"
	"math"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
)

// deviceFBP is FBP with its back-projection on a device backend (CUDA):
// each slice's projections are filtered on the CPU (FBP.filterAll, every
// core), uploaded, back-projected by the backend's Ops and the slice
// downloaded. Its slices equal the CPU FBP's within the tolerance of
// BackProjectTolerance. On CUDA this path is compile-checked, not yet
// run on a GPU.
type deviceFBP struct {
	f                   *FBP
	be                  gpu.Backend
	ops                 Ops
	s                   BackProjectShape
	dst, filtered, trig *gpu.Buffer
}

// newDeviceFBP prepares FBP of geometry g with the back-projection on be
// (its device buffers: one slice, the filtered projections, the angles'
// cos and sin; deviceFBPBytes).
func newDeviceFBP(g Geometry, be gpu.Backend) (*deviceFBP, error) {
	ops, err := opsFor(be)
	if err != nil {
		return nil, err
	}
	f, err := NewFBP(g)
	if err != nil {
		return nil, err
	}
	d := &deviceFBP{f: f, be: be, ops: ops, s: f.shape()}
	if err := d.s.Check(); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			d.Close()
		}
	}()
	if d.dst, err = be.Alloc("fbp slice", int64(d.s.SliceLen())*4); err != nil {
		return nil, err
	}
	if d.filtered, err = be.Alloc("fbp filtered projections", int64(d.s.FilteredLen())*4); err != nil {
		return nil, err
	}
	if d.trig, err = be.Alloc("fbp angles' cos and sin", int64(d.s.TrigLen())*8); err != nil {
		return nil, err
	}
	if err := be.Upload(d.trig, 0, volume.Bytes(f.trig())); err != nil {
		return nil, err
	}
	ok = true
	return d, nil
}

// deviceFBPBytes is what a deviceFBP holds on the device.
func deviceFBPBytes(s BackProjectShape) int64 {
	return int64(s.SliceLen())*4 + int64(s.FilteredLen())*4 + int64(s.TrigLen())*8
}

// SliceContext reconstructs one slice as FBP.SliceContext does, the
// back-projection on the device.
func (d *deviceFBP) SliceContext(ctx context.Context, dst, sino []float32) error {
	f := d.f
	if len(sino) != len(f.g.Angles)*f.g.Columns || len(dst) != f.n*f.n {
		panic(fmt.Sprintf("reconstruct: FBP.Slice: sinogram of %d values for %d×%d, slice of %d for %d²",
			len(sino), len(f.g.Angles), f.g.Columns, len(dst), f.n))
	}
	f.filterAll(ctx, sino)
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := d.be.Upload(d.filtered, 0, volume.Bytes(f.filtered)); err != nil {
		return fmt.Errorf("fbp on %s: %w", d.be.Name(), err)
	}
	if err := d.ops.BackProject(d.dst, d.filtered, d.trig, d.s); err != nil {
		return fmt.Errorf("fbp on %s: %w", d.be.Name(), err)
	}
	if err := d.be.Download(volume.Bytes(dst), d.dst, 0); err != nil {
		return fmt.Errorf("fbp on %s: %w", d.be.Name(), err)
	}
	return ctx.Err()
}

// Close frees the device buffers.
func (d *deviceFBP) Close() {
	for _, b := range []*gpu.Buffer{d.dst, d.filtered, d.trig} {
		if b != nil {
			d.be.Free(b)
		}
	}
	d.dst, d.filtered, d.trig = nil, nil, nil
}

// BackProjectTolerance is the largest difference the CUDA back-projection
// may have from the CPU's on a slice of shape s whose filtered
// projections are at most maxAbs in magnitude, where no pixel's position
// falls within a float32 rounding of the padded detector's ends (which
// the mask, or padding wider than the slice's half-diagonal, ensures).
// The CPU computes each position in float64 and sums in float64; the
// kernel works in float32. With W the padded width (every intermediate
// of a position is below 2W, so each rounding is within 2⁻²³·W):
//   - a position is off by at most 7·2⁻²⁴·W columns (the centre, the
//     two fused multiply-adds, and the cosine and sine rounded to
//     float), so an interpolated value by at most 14·2⁻²⁴·W·maxAbs, and
//     the interpolation's own roundings add 3·2⁻²⁴·maxAbs;
//   - the sum over the angles in order is within (Angles−1)·2⁻²⁴ of the
//     sum of the terms' magnitudes, at most Angles·maxAbs;
//   - the scaling by π/(2·Angles), and the CPU's own rounding of its
//     float64 result to float32, add 2⁻²⁴ of the result each.
//
// After the scaling that is (14·W + Angles + 5)·2⁻²⁴·maxAbs·π/2; the
// tolerance is twice it. For 2560 columns padded to the diagonal (3620)
// and 1800 angles that is 9.8e-3·maxAbs at worst; the errors' signs vary,
// so typical differences are far smaller. This is a bound derived from
// the kernel, compile-checked, not yet measured on a GPU.
func BackProjectTolerance(s BackProjectShape, maxAbs float64) float64 {
	const ulp = 1.0 / (1 << 24)
	return 2 * float64(14*s.Width()+s.Angles+5) * ulp * maxAbs * math.Pi / 2
}
