package zinger

import (
	"fmt"
	"math"

	"github.com/voxlab/voxlab/gpu"
)

// MedianParams describe one remove_outlier call on a block of planes.
//
// For every output voxel, m is the median of its Kernel³ neighbourhood,
// where a neighbour outside [0, Planes) x [0, Rows) x [0, Cols) takes the
// nearest valid index on that axis (scipy.ndimage's mode='nearest'); if
// |x − m| ≥ Dif the voxel becomes m, otherwise it keeps x. A pipeline that
// gives each block kernel/2 halo planes on each side (fewer only at the
// ends of the volume) therefore gets the same output as one call on the
// whole volume.
//
// float32 values are ordered by IEEE 754's totalOrder (−NaN < −Inf < … <
// −0 < +0 < … < +Inf < +NaN), so the median is defined whatever the data
// hold; a NaN voxel stays NaN (|NaN − m| ≥ Dif is false), and a voxel is
// never replaced by a NaN median for the same reason.
type MedianParams struct {
	// Float32 selects float32 elements; otherwise uint16.
	Float32 bool
	// Planes, Rows, Cols is the shape of src.
	Planes, Rows, Cols int
	// Z0 and N select the output planes: src planes [Z0, Z0+N).
	Z0, N int
	// Kernel is the side of the cube, odd, 3 to 13.
	Kernel int
	// Dif is the replacement threshold in data units, > 0.
	Dif float64
}

// Validate checks the parameters.
func (p MedianParams) Validate() error {
	switch {
	case p.Kernel < 3 || p.Kernel > 13 || p.Kernel%2 == 0:
		return fmt.Errorf("median kernel %d: must be odd, from 3 to 13", p.Kernel)
	case !(p.Dif > 0):
		return fmt.Errorf("median threshold dif %v: must be positive", p.Dif)
	case p.Planes < 1 || p.Rows < 1 || p.Cols < 1:
		return fmt.Errorf("median block shape %dx%dx%d: every dimension must be positive", p.Planes, p.Rows, p.Cols)
	case p.Z0 < 0 || p.N < 0 || p.Z0+p.N > p.Planes:
		return fmt.Errorf("median output planes [%d,%d) outside the block's %d planes", p.Z0, p.Z0+p.N, p.Planes)
	}
	return nil
}

// ElemSize is the bytes of one element: 4 for float32, 2 for uint16.
func (p MedianParams) ElemSize() int64 {
	if p.Float32 {
		return 4
	}
	return 2
}

// SrcBytes and DstBytes are the sizes src and dst must have.
func (p MedianParams) SrcBytes() int64 {
	return int64(p.Planes) * int64(p.Rows) * int64(p.Cols) * p.ElemSize()
}

// DstBytes is the size of the output: N planes.
func (p MedianParams) DstBytes() int64 {
	return int64(p.N) * int64(p.Rows) * int64(p.Cols) * p.ElemSize()
}

// FloatKey maps a float32's bits to a key whose unsigned order is IEEE
// 754's totalOrder of the floats: flip every bit of a negative value,
// only the sign bit of a positive one. It is a bijection.
func FloatKey(bits uint32) uint32 {
	return bits ^ (uint32(int32(bits)>>31) | 0x80000000)
}

// FloatUnkey is the inverse of FloatKey.
func FloatUnkey(key uint32) uint32 {
	return key ^ (uint32(int32(^key)>>31) | 0x80000000)
}

// Key is the element type the median works on: uint16 data as they are,
// float32 data as their totalOrder keys (FloatKey).
type Key interface{ ~uint16 | ~uint32 }

// WorkerScratch returns the scratch elements one worker of the median
// needs for rows of cols voxels.
func WorkerScratch(kernel, cols int) int {
	if kernel == 3 {
		return dzK3Scratch(cols)
	}
	return max(dzSlabScratch(kernel, cols), dzBoundScratch(kernel, cols))
}

// dzPlane is one output plane's view of the input: the planes of the
// neighbourhood, clamped to the block.
type dzPlane[T Key] struct {
	// in[d] is input plane z-r+d (clamped), for d in [0, kernel).
	in [13][]T
	// out is the output plane.
	out []T
	// wk is the call's cancellation and progress (nil: unbound).
	wk *gpu.Work
}

// row counts one more row of the plane as begun and reports whether the
// call was cancelled, for the band loops to return at once (leaving the
// output unfinished: a cancelled call's output is discarded). A row is
// a few milliseconds at most, so a cancel lands within one.
func (pl *dzPlane[T]) row() bool {
	pl.wk.Add(1)
	return pl.wk.Stop()
}

// Median splits the output planes and rows over workers: each unit is a
// band of rows of one plane, with bands enough for about eight units per
// worker, taken as workers finish the last (ParallelForDynamic) so that a
// core the run's loader or writer delays does not hold up the block.
//
// scratch holds per elements for each worker; wk (nil: unbound) is the
// call's cancellation and progress.
func Median[T Key](dst, src, scratch []T, p MedianParams, per, workers int, wk *gpu.Work) {
	plane := p.Rows * p.Cols
	bands := max(1, min(p.Rows, (8*workers+p.N-1)/p.N))
	units := p.N * bands
	r := p.Kernel / 2
	gpu.ForDynamic(workers, units, wk, func(w, u int) {
		ws := scratch[w*per : (w+1)*per]
		pl := dzPlane[T]{wk: wk}
		z, band := u/bands, u%bands
		y0, y1 := band*p.Rows/bands, (band+1)*p.Rows/bands
		zin := p.Z0 + z
		for d := 0; d < p.Kernel; d++ {
			zz := min(max(zin-r+d, 0), p.Planes-1)
			pl.in[d] = src[zz*plane : (zz+1)*plane]
		}
		pl.out = dst[z*plane : (z+1)*plane]
		if p.Kernel == 3 {
			dzK3Band(&pl, p, y0, y1, ws)
		} else {
			dzBoundBand(&pl, p, y0, y1, ws)
		}
	})
}

// dzReplace writes the remove_outlier decision for one row: the median
// where |x − m| ≥ dif, else x. For uint16 the test is exact in integers;
// for float32 it is float32 arithmetic as NumPy does it on float32 arrays
// (so NaN never compares ≥ and is never written).
func dzReplace[T Key](out, center, med []T, float bool, dif float64) {
	if !float {
		// |x − m| ≥ dif  ⇔  |x − m| ≥ ⌈dif⌉ for integer differences.
		thr := int32(min(math.Ceil(dif), 1<<17))
		for x, m := range med[:len(out)] {
			v := center[x]
			d := int32(v) - int32(m)
			if d < 0 {
				d = -d
			}
			if d >= thr {
				v = m
			}
			out[x] = v
		}
		return
	}
	fd := float32(dif)
	for x, mk := range med[:len(out)] {
		v := center[x]
		m := math.Float32frombits(FloatUnkey(uint32(mk)))
		d := math.Float32frombits(uint32(v)) - m
		if d < 0 {
			d = -d
		}
		if d >= fd {
			v = T(math.Float32bits(m))
		}
		out[x] = v
	}
}
