package reconstruct

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
)

// Ops are reconstruction's device operations, one implementation per
// backend (cpuOps here, and cuda_ops.go in the cuda build). Only FBP's
// back-projection, the stage whose work grows with angles × pixels, is a
// device operation: the filtering of the projections (an FFT per
// projection, angles × columns·log columns) stays on the CPU (FBP's
// filterAll) on every backend, as does gridrec, and every stage before
// the reconstruction (flat-field, stripes, Paganin, the centre).
//
// The CPU run does not go through these ops: it calls FBP directly, whose
// back-projection is the same code (backProjectBlock) that cpuOps runs.
// cpuOps are the reference the CUDA kernel is checked against, by the
// self-check (selfcheck.go) and the cuda-tagged parity test.
type Ops interface {
	// BackProject writes s.Slices slices of s.Size × s.Size float32 into
	// dst, each the sum over the angles of its filtered projections in
	// filtered (s.Slices × s.Angles rows of s.Width()+2 float32s: a
	// zero, the filtered padded projection, a zero — FBP's layout), read
	// by linear interpolation at the column u of FBP's doc, scaled by
	// π/(2·Angles) and zero outside the mask. trig holds the angles'
	// cosines then their sines (2·Angles float64s).
	BackProject(dst, filtered, trig *gpu.Buffer, s BackProjectShape) error
}

// BackProjectShape is the shape of a BackProject call: FBP's geometry
// without the filter, and how many slices.
type BackProjectShape struct {
	Slices, Angles, Columns, Pad, Size int
	// Center is the axis as a detector column (before padding).
	Center     float64
	MaskRadius float64
}

// Width is the padded detector's width.
func (s BackProjectShape) Width() int { return s.Columns + 2*s.Pad }

// FilteredLen, SliceLen and TrigLen are the float counts of the
// buffers.
func (s BackProjectShape) FilteredLen() int { return s.Slices * s.Angles * (s.Width() + 2) }
func (s BackProjectShape) SliceLen() int    { return s.Slices * s.Size * s.Size }
func (s BackProjectShape) TrigLen() int     { return 2 * s.Angles }

// maskR2 is the mask's squared radius in pixels, +Inf for none (as
// backProjectBlock computes it).
func (s BackProjectShape) maskR2() float64 {
	if s.MaskRadius <= 0 {
		return math.Inf(1)
	}
	r := s.MaskRadius * float64(s.Size/2)
	return r * r
}

// Check reports a shape the kernels cannot run.
func (s BackProjectShape) Check() error {
	switch {
	case s.Slices < 0 || s.Angles < 1 || s.Columns < 2 || s.Pad < 0 || s.Size < 1:
		return fmt.Errorf("back-projection: bad shape %+v", s)
	case math.IsNaN(s.Center) || math.IsInf(s.Center, 0) || math.IsNaN(s.MaskRadius) || s.MaskRadius < 0:
		return fmt.Errorf("back-projection: bad centre %g or mask radius %g", s.Center, s.MaskRadius)
	case int64(s.Size)*int64(s.Size) > math.MaxInt32 || int64(s.Angles)*int64(s.Width()+2) > math.MaxInt32:
		return fmt.Errorf("back-projection: a slice of %d² or %d angles of %d columns is beyond the kernels' 32-bit indices", s.Size, s.Angles, s.Width())
	}
	return nil
}

// checkBuffers checks dst, filtered and trig against s with alive, the
// backend's check of a buffer holding n bytes.
func (s BackProjectShape) checkBuffers(alive func(what string, b *gpu.Buffer, n int64) error, dst, filtered, trig *gpu.Buffer) error {
	if err := s.Check(); err != nil {
		return err
	}
	for _, c := range []struct {
		what string
		b    *gpu.Buffer
		n    int64
	}{{"back-projection slices", dst, int64(s.SliceLen()) * 4}, {"filtered projections", filtered, int64(s.FilteredLen()) * 4},
		{"angles' cos and sin", trig, int64(s.TrigLen()) * 8}} {
		if err := alive(c.what, c.b, c.n); err != nil {
			return err
		}
	}
	return nil
}

// reconTX, reconTY are the block shape of the CUDA back-projection
// (RECON_TX, RECON_TY of reconstruct.cu; here so that the default
// build's test of the .cu sees them).
const reconTX, reconTY = 16, 16

// cudaOpsFor is set by the cuda build (cuda_ops.go): it returns the CUDA
// operations when be is a CUDA backend (ok false when it is not).
var cudaOpsFor func(be gpu.Backend) (ops Ops, ok bool, err error)

// opsFor returns the operations for backend be.
func opsFor(be gpu.Backend) (Ops, error) {
	return gpu.PickOps("reconstruct", be, func(c *gpu.CPUBackend) Ops { return cpuOps{c} }, cudaOpsFor)
}

// cpuOps are the operations on the CPU backend: FBP's own
// back-projection over the buffers' host memory.
type cpuOps struct{ c *gpu.CPUBackend }

func (o cpuOps) BackProject(dst, filtered, trig *gpu.Buffer, s BackProjectShape) error {
	alive := func(what string, b *gpu.Buffer, n int64) error {
		if _, err := gpu.CheckedHost(b, n); err != nil {
			return fmt.Errorf("back-projection: %s: %w", what, err)
		}
		return nil
	}
	if err := s.checkBuffers(alive, dst, filtered, trig); err != nil {
		return err
	}
	tr := volume.Float64s(trig.HostBytes())[:s.TrigLen()]
	all := volume.Float32s(filtered.HostBytes())[:s.FilteredLen()]
	out := volume.Float32s(dst.HostBytes())[:s.SliceLen()]
	per, plane := s.Angles*(s.Width()+2), s.Size*s.Size
	for z := 0; z < s.Slices; z++ {
		f := backProjector(s, all[z*per:(z+1)*per], tr[:s.Angles], tr[s.Angles:], o.c.Workers())
		f.backProjectAll(context.Background(), out[z*plane:(z+1)*plane])
	}
	return nil
}

// backProjector is an FBP that only back-projects: the filtered
// projections, cosines and sines given, workers accumulators.
func backProjector(s BackProjectShape, filtered []float32, cos, sin []float64, workers int) *FBP {
	f := &FBP{g: Geometry{Angles: make([]float64, s.Angles), Columns: s.Columns, Center: s.Center,
		Size: s.Size, Pad: s.Pad, MaskRadius: s.MaskRadius},
		n: s.Size, width: s.Width(), cos: cos, sin: sin, filtered: filtered}
	for range max(1, min(workers, runtime.GOMAXPROCS(0))) {
		f.workers = append(f.workers, &fbpWorker{acc: make([]float64, fbpRowBlock*f.n)})
	}
	return f
}
