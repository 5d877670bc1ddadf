package gpu

import (
	"fmt"
	"math"
	"slices"
	"unsafe"
)

//go:generate go run cpu_dezing_gen.go

// The CPU kernels of the dezinging pipeline: the reference the CUDA
// kernels are tested against, and fast in their own right. Work is split
// over Workers() goroutines; each worker computes in its own part of the
// scratch buffer, so nothing is allocated per voxel, row or plane.

// dzKey is the element type the median works on: uint16 data as they are,
// float32 data as their totalOrder keys (DezingKey).
type dzKey interface{ ~uint16 | ~uint32 }

// dzWorkerScratch returns the scratch elements one worker of the median
// needs for rows of cols voxels.
func dzWorkerScratch(kernel, cols int) int {
	if kernel == 3 {
		return dzK3Scratch(cols)
	}
	return max(dzSlabScratch(kernel, cols), dzBoundScratch(kernel, cols))
}

// DezingMedianScratch returns the per-worker working rows of the median
// filter: for kernel 3, the z-sorted triples of four rows and the sorted
// 9-lists of two (cpu_dezing_k3.go); for larger kernels the rows of column
// medians of the bound path (cpu_dezing_bound.go) or, sharing the same
// memory, one sorted list of kernel² values per column (cpu_dezing_slab.go).
func (c *CPUBackend) DezingMedianScratch(p DezingMedianParams) int64 {
	return int64(c.workers) * int64(dzWorkerScratch(p.Kernel, p.Cols)) * p.elemSize()
}

// DezingMedian runs remove_outlier on the host's cores.
func (c *CPUBackend) DezingMedian(dst, src, scratch *Buffer, p DezingMedianParams) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	if err := dzNeed("median input", src, p.SrcBytes()); err != nil {
		return err
	}
	if err := dzNeed("median output", dst, p.DstBytes()); err != nil {
		return err
	}
	per := dzWorkerScratch(p.Kernel, p.Cols)
	if err := dzNeed("median scratch", scratch, int64(c.workers)*int64(per)*p.elemSize()); err != nil {
		return err
	}
	if p.N == 0 {
		return nil
	}
	// Progress counts rows: a block of a few huge planes still reports.
	wk := c.Begin(int64(p.N) * int64(p.Rows))
	if p.Float32 {
		dzMedian(c.workers, p, dzU32(dst), dzU32(src), dzU32(scratch), per, wk)
	} else {
		dzMedian(c.workers, p, dzU16(dst), dzU16(src), dzU16(scratch), per, wk)
	}
	return wk.Err()
}

// dzPlane is one output plane's view of the input: the planes of the
// neighbourhood, clamped to the block.
type dzPlane[T dzKey] struct {
	// in[d] is input plane z-r+d (clamped), for d in [0, kernel).
	in [13][]T
	// out is the output plane.
	out []T
	// wk is the call's cancellation and progress (nil: unbound).
	wk *Work
}

// row counts one more row of the plane as begun and reports whether the
// call was cancelled, for the band loops to return at once (leaving the
// output unfinished: a cancelled call's output is discarded). A row is
// a few milliseconds at most, so a cancel lands within one.
func (pl *dzPlane[T]) row() bool {
	pl.wk.Add(1)
	return pl.wk.Stop()
}

// dzMedian splits the output planes and rows over workers: each unit is a
// band of rows of one plane, with bands enough for about eight units per
// worker, taken as workers finish the last (ParallelForDynamic) so that a
// core the run's loader or writer delays does not hold up the block.
func dzMedian[T dzKey](workers int, p DezingMedianParams, dst, src, scratch []T, per int, wk *Work) {
	plane := p.Rows * p.Cols
	bands := max(1, min(p.Rows, (8*workers+p.N-1)/p.N))
	units := p.N * bands
	r := p.Kernel / 2
	ForDynamic(workers, units, wk, func(w, u int) {
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
func dzReplace[T dzKey](out, center, med []T, float bool, dif float64) {
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
		m := math.Float32frombits(DezingUnkey(uint32(mk)))
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

// DezingReduceScratch: one pixel's keys per worker for the median; none
// for the mean.
func (c *CPUBackend) DezingReduceScratch(p DezingReduceParams) int64 {
	return int64(c.workers) * dzReducePer(p)
}

// dzChunk is the pixels a worker reduces at a time.
const dzChunk = 2048

func dzReducePer(p DezingReduceParams) int64 {
	if p.Median {
		return int64(p.Frames) * 4
	}
	return 0
}

// DezingReduce reduces frames to their per-pixel mean or median.
func (c *CPUBackend) DezingReduce(dst, src, scratch *Buffer, p DezingReduceParams) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	es := int64(2)
	if p.Float32 {
		es = 4
	}
	if err := dzNeed("reduce input", src, int64(p.Frames)*int64(p.Pixels)*es); err != nil {
		return err
	}
	if err := dzNeed("reduce output", dst, int64(p.Pixels)*4); err != nil {
		return err
	}
	per := dzReducePer(p)
	if err := dzNeed("reduce scratch", scratch, int64(c.workers)*per); err != nil {
		return err
	}
	out := dzF32(dst)
	chunks := (p.Pixels + dzChunk - 1) / dzChunk
	wk := c.Begin(int64(chunks))
	ParallelForWorker(c.workers, chunks, func(w, lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			if wk.Stop() {
				return
			}
			wk.Add(1)
			x0, x1 := ch*dzChunk, min((ch+1)*dzChunk, p.Pixels)
			switch {
			case p.Median:
				ws := scratch.host[int64(w)*per : int64(w+1)*per]
				dzReduceMedian(out, src.host, dzU32b(ws), p, x0, x1)
			case p.Float32:
				dzReduceMean(out, dzF32(src), p, x0, x1)
			default:
				dzReduceMean(out, dzU16(src), p, x0, x1)
			}
		}
	})
	return wk.Err()
}

// dzReduceMean sums each pixel over the frames in frame order in float64
// (the CUDA kernel's order, so the same bits). Reading a pixel down the
// frames touches one cache line per frame, and the next pixels reuse them.
func dzReduceMean[T uint16 | float32](out []float32, src []T, p DezingReduceParams, x0, x1 int) {
	n := float64(p.Frames)
	for x := x0; x < x1; x++ {
		s := 0.0
		for f := 0; f < p.Frames; f++ {
			s += float64(src[f*p.Pixels+x])
		}
		out[x] = dzCanonNaN(float32(s / n))
	}
}

// dzCanonNaN returns NaNs as the one quiet NaN 0x7fc00000 (NumPy's nan).
// NaN payloads are not portable: x86 keeps an operand's payload through
// arithmetic and conversions while CUDA produces 0x7fffffff, so outputs
// that can be NaN are canonicalised on both backends to stay bit-identical.
func dzCanonNaN(v float32) float32 {
	if v != v {
		return math.Float32frombits(DezingCanonicalNaN)
	}
	return v
}

// dzReduceMedian sorts each pixel's keys (uint16 values, or float32
// totalOrder keys) and takes the middle one, or the mean of the middle two.
func dzReduceMedian(out []float32, src []byte, keys []uint32, p DezingReduceParams, x0, x1 int) {
	keys = keys[:p.Frames]
	var s16 []uint16
	var s32 []uint32
	if p.Float32 {
		s32 = dzU32b(src)
	} else {
		s16 = dzU16b(src)
	}
	val := func(k uint32) float64 {
		if p.Float32 {
			return float64(math.Float32frombits(DezingUnkey(k)))
		}
		return float64(k)
	}
	h := p.Frames / 2
	for x := x0; x < x1; x++ {
		for f := range keys {
			if p.Float32 {
				keys[f] = DezingKey(s32[f*p.Pixels+x])
			} else {
				keys[f] = uint32(s16[f*p.Pixels+x])
			}
		}
		slices.Sort(keys)
		if p.Frames%2 == 1 {
			out[x] = float32(val(keys[h]))
		} else {
			out[x] = float32((val(keys[h-1]) + val(keys[h])) / 2)
		}
	}
}

// DezingFlatFieldScratch: none on the CPU (each worker counts its clipped
// values in a variable).
func (c *CPUBackend) DezingFlatFieldScratch(p DezingFlatFieldParams) int64 { return 0 }

// DezingFlatField applies the flat-field correction.
func (c *CPUBackend) DezingFlatField(dst, src, dark, flat, scratch *Buffer, p DezingFlatFieldParams) (int64, error) {
	if err := p.Validate(); err != nil {
		return 0, fmt.Errorf("cpu: %w", err)
	}
	es := int64(2)
	if p.Float32 {
		es = 4
	}
	n := int64(p.Frames) * int64(p.Pixels)
	for _, b := range []struct {
		what string
		buf  *Buffer
		n    int64
	}{{"flat-field input", src, n * es}, {"flat-field output", dst, n * 4}, {"dark frame", dark, int64(p.Pixels) * 4}, {"flat frame", flat, int64(p.Pixels) * 4}} {
		if err := dzNeed(b.what, b.buf, b.n); err != nil {
			return 0, err
		}
	}
	out, d, f := dzF32(dst), dzF32(dark), dzF32(flat)
	var clipped [64]int64
	workers := min(c.workers, len(clipped))
	rows := p.Frames
	wk := c.Begin(int64(rows))
	ParallelForWorker(workers, rows, func(w, lo, hi int) {
		var cnt int64
		for fr := lo; fr < hi && !wk.Stop(); fr++ {
			wk.Add(1)
			o := out[fr*p.Pixels : (fr+1)*p.Pixels]
			if p.Float32 {
				cnt += dzFlatRow(o, dzF32(src)[fr*p.Pixels:(fr+1)*p.Pixels], d, f, p)
			} else {
				cnt += dzFlatRow(o, dzU16(src)[fr*p.Pixels:(fr+1)*p.Pixels], d, f, p)
			}
		}
		clipped[w] = cnt
	})
	var total int64
	for _, v := range clipped {
		total += v
	}
	return total, wk.Err()
}

// dzFlatRow corrects one frame. out may be the same memory as in (float32).
func dzFlatRow[T uint16 | float32](out []float32, in []T, dark, flat []float32, p DezingFlatFieldParams) int64 {
	var clipped int64
	dark, flat = dark[:len(out)], flat[:len(out)]
	for i := range out {
		// max(F − D, 1e-7), written so that a NaN stays NaN (as
		// NumPy's maximum does and CUDA's fmaxf would not).
		den := flat[i] - dark[i]
		if den < DezingFlatFieldEps {
			den = DezingFlatFieldEps
		}
		v := (float32(in[i]) - dark[i]) / den
		switch {
		case v < p.Low:
			v, clipped = p.Low, clipped+1
		case v > p.High:
			v, clipped = p.High, clipped+1
		}
		if p.MinusLog {
			v = float32(-DezingLog(float64(v)))
		}
		out[i] = dzCanonNaN(v)
	}
	return clipped
}

func dzNeed(what string, b *Buffer, n int64) error {
	if n == 0 && b == nil {
		return nil
	}
	if b == nil || b.freed {
		return fmt.Errorf("cpu: %s: no buffer", what)
	}
	if b.size < n {
		return fmt.Errorf("cpu: %s %q holds %d bytes, needs %d", what, b.label, b.size, n)
	}
	if n > 0 && b.host == nil {
		return fmt.Errorf("cpu: %s %q is not host memory", what, b.label)
	}
	return nil
}

// Views of CPU buffers (little-endian host memory, 4-byte aligned since
// Go allocates byte slices of that size aligned).

func dzU16(b *Buffer) []uint16 { return dzU16b(b.host) }
func dzU32(b *Buffer) []uint32 { return dzU32b(b.host) }

func dzU16b(b []byte) []uint16 {
	if len(b) < 2 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(b)/2)
}

func dzU32b(b []byte) []uint32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
}

func dzF32(b *Buffer) []float32 {
	if b == nil || len(b.host) < 4 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b.host[0])), len(b.host)/4)
}
