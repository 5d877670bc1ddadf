package dezing

import (
	"fmt"
	"math"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/zinger"
)

// Ops are the device operations of the dezinging pipeline: the 3D
// median outlier filter (remove_outlier), the reduction of a stack of
// darks or flats to one frame, and flat-field correction, provided for
// each backend (cpu_ops.go, and cuda_ops.go in the cuda build). Each
// takes a scratch buffer of the size its *Scratch method returns for the
// same parameters (possibly 0 bytes, then nil is fine), so that every
// byte a kernel uses is allocated through gpu.Backend.Alloc and counted
// by the planner.
type Ops interface {
	// MedianScratch returns the scratch bytes Median needs.
	MedianScratch(p MedianParams) int64
	// Median writes remove_outlier of planes [Z0, Z0+N) of src into dst
	// (N planes, same element type). dst must not overlap src.
	Median(dst, src, scratch *gpu.Buffer, p MedianParams) error

	// ReduceScratch returns the scratch bytes Reduce needs.
	ReduceScratch(p ReduceParams) int64
	// Reduce reduces Frames frames of Pixels elements (frame-major in
	// src) to one float32 frame of Pixels values in dst: the mean, or the
	// median, over the frames at each pixel.
	Reduce(dst, src, scratch *gpu.Buffer, p ReduceParams) error

	// FlatFieldScratch returns the scratch bytes FlatField needs.
	FlatFieldScratch(p FlatFieldParams) int64
	// FlatField writes the flat-field correction of Frames frames of src
	// to dst as float32, using float32 dark and flat frames of Pixels
	// values, and returns how many values it clipped. dst may be src when
	// src is float32.
	FlatField(dst, src, dark, flat, scratch *gpu.Buffer, p FlatFieldParams) (clipped int64, err error)
}

// cudaOpsFor is set by the cuda build (cuda_ops.go): it returns the CUDA
// ops of a *gpu.CUDABackend (ok false for any other backend).
var cudaOpsFor func(be gpu.Backend) (ops Ops, ok bool, err error)

// OpsFor returns the dezinging operations of be: the CPU kernels for a
// *gpu.CPUBackend, the CUDA kernels for a *gpu.CUDABackend (cuda build),
// and for the dry run's backend its checking ops (dry.go).
func OpsFor(be gpu.Backend) (Ops, error) {
	if b, ok := be.(dryBackend); ok {
		ops, err := OpsFor(b.Backend)
		if err != nil {
			return nil, err
		}
		return dryOps{ops}, nil
	}
	return gpu.PickOps("dezing", be, func(c *gpu.CPUBackend) Ops { return cpuOps{c} }, cudaOpsFor)
}

// ReduceParams describe the reduction of a stack of frames (or of a
// band of rows of every frame) to one float32 frame.
//
// Mean: the sum over frames in float64, in frame order, divided by Frames,
// rounded once to float32 (exact for uint16 data, whatever the order).
// Median: the middle value at each pixel, or for an even count the mean of
// the two middle values computed in float64 and rounded once (NumPy's
// median), with float32 ordered by totalOrder as in Median.
type ReduceParams struct {
	Float32        bool
	Frames, Pixels int
	Median         bool
}

// Validate checks the parameters.
func (p ReduceParams) Validate() error {
	if p.Frames < 1 || p.Pixels < 1 {
		return fmt.Errorf("reduce %d frames of %d pixels: both must be positive", p.Frames, p.Pixels)
	}
	return nil
}

// FlatFieldParams describe flat-field correction of Frames frames of
// Pixels values:
//
//	out = clamp((I − D) / max(F − D, 1e-7), Low, High)   (float32)
//	out = −log(out)                                       (if MinusLog)
//
// as httomolibgpu's normalisation and tomopy's minus_log define them. The
// arithmetic is float32 with each operation rounded (no fused
// multiply-add), and −log is computed in float64 by portableLog and rounded
// to float32, so the CPU and CUDA results are bit-identical. A value is
// clipped when it lies outside [Low, High]; NaN is not clipped.
type FlatFieldParams struct {
	Float32        bool
	Frames, Pixels int
	Low, High      float32
	MinusLog       bool
}

// Validate checks the parameters.
func (p FlatFieldParams) Validate() error {
	switch {
	case p.Frames < 1 || p.Pixels < 1:
		return fmt.Errorf("flat-field %d frames of %d pixels: both must be positive", p.Frames, p.Pixels)
	case !(p.Low < p.High):
		return fmt.Errorf("flat-field clipping bounds [%v, %v]: the low bound must be below the high one", p.Low, p.High)
	}
	return nil
}

// flatFieldEps is the smallest denominator of the flat-field
// correction.
const flatFieldEps = float32(1e-7)

// canonicalNaN is the bit pattern of every NaN the reduction and
// flat-field kernels write (NumPy's nan), whatever the input NaN's payload.
const canonicalNaN = 0x7fc00000

// portableLog is the natural logarithm of a float64, computed with exactly
// the operations of dezing.cu's dezing_log, each rounded to
// float64 (no fused multiply-add), so that the CPU and CUDA backends give
// the same bits. It is the FreeBSD/fdlibm algorithm of e_log.c (the one
// Go's math.Log uses in pure Go): reduce x = 2^k·(1+f) with √2/2 ≤ 1+f <
// √2, then log(1+f) = f − s·(f − R) with s = f/(2+f) and R a minimax
// polynomial in s².
func portableLog(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01 // 3fe62e42 fee00000
		ln2Lo = 1.90821492927058770002e-10 // 3dea39ef 35793c76
		l1    = 6.666666666666735130e-01   // 3FE55555 55555593
		l2    = 3.999999999940941908e-01   // 3FD99999 9997FA04
		l3    = 2.857142874366239149e-01   // 3FD24924 94229359
		l4    = 2.222219843214978396e-01   // 3FCC71C5 1D8E78AF
		l5    = 1.818357216161805012e-01   // 3FC74664 96CB03DE
		l6    = 1.531383769920937332e-01   // 3FC39A09 D078C69F
		l7    = 1.479819860511658591e-01   // 3FC2F112 DF3E5244
	)
	switch {
	case x != x || x > math.MaxFloat64:
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	f1, ki := math.Frexp(x)
	if f1 < math.Sqrt2/2 {
		f1 *= 2
		ki--
	}
	f := f1 - 1
	k := float64(ki)
	// Explicit conversions round every product, which stops the compiler
	// from fusing it with an addition (Go spec, "Floating-point operators").
	s := f / (2 + f)
	s2 := float64(s * s)
	s4 := float64(s2 * s2)
	t1 := float64(s2 * (l1 + float64(s4*(l3+float64(s4*(l5+float64(s4*l7)))))))
	t2 := float64(s4 * (l2 + float64(s4*(l4+float64(s4*l6)))))
	r := t1 + t2
	hfsq := float64(float64(0.5*f) * f)
	return float64(k*ln2Hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(k*ln2Lo))) - f)
}

// MedianParams describe one remove_outlier call on a block of planes
// (processing/zinger's, whose CPU kernel cpuOps runs).
type MedianParams = zinger.MedianParams

// floatKey and floatUnkey are zinger's totalOrder keys of float32 bits,
// which the reduction's median uses too.
func floatKey(bits uint32) uint32  { return zinger.FloatKey(bits) }
func floatUnkey(key uint32) uint32 { return zinger.FloatUnkey(key) }
