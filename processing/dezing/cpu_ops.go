package dezing

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/zinger"
)

// The CPU kernels of the dezinging pipeline: the reference the CUDA
// kernels are tested against, and fast in their own right. They are
// functions over slices (dst first); cpuOps adapts the backend's buffers
// to them. Work is split over the backend's Workers() goroutines; each
// worker computes in its own part of the scratch buffer, so nothing is
// allocated per voxel, row or plane.

// cpuOps are the dezinging operations on a CPU backend: its buffers are
// host memory, its Workers() the goroutines, its Begin the cancellation
// and progress of the job bound to it.
type cpuOps struct{ be *gpu.CPUBackend }

// MedianScratch returns the per-worker working rows of the median
// filter: for kernel 3, the z-sorted triples of four rows and the sorted
// 9-lists of two (processing/zinger k3.go); for larger kernels the rows of column
// medians of the bound path (bound.go) or, sharing the same
// memory, one sorted list of kernel² values per column (slab.go).
func (c cpuOps) MedianScratch(p MedianParams) int64 {
	return int64(c.be.Workers()) * int64(zinger.WorkerScratch(p.Kernel, p.Cols)) * p.ElemSize()
}

// Median runs remove_outlier on the host's cores.
func (c cpuOps) Median(dst, src, scratch *gpu.Buffer, p MedianParams) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	s, err := dzNeed("median input", src, p.SrcBytes())
	if err != nil {
		return err
	}
	d, err := dzNeed("median output", dst, p.DstBytes())
	if err != nil {
		return err
	}
	workers := c.be.Workers()
	per := zinger.WorkerScratch(p.Kernel, p.Cols)
	scr, err := dzNeed("median scratch", scratch, int64(workers)*int64(per)*p.ElemSize())
	if err != nil {
		return err
	}
	if p.N == 0 {
		return nil
	}
	// Progress counts rows: a block of a few huge planes still reports.
	wk := c.be.Begin(int64(p.N) * int64(p.Rows))
	if p.Float32 {
		zinger.Median(dzU32b(d), dzU32b(s), dzU32b(scr), p, per, workers, wk)
	} else {
		zinger.Median(dzU16b(d), dzU16b(s), dzU16b(scr), p, per, workers, wk)
	}
	return wk.Err()
}

// ReduceScratch: one pixel's keys per worker for the median; none for
// the mean.
func (c cpuOps) ReduceScratch(p ReduceParams) int64 {
	return int64(c.be.Workers()) * dzReducePer(p)
}

// dzChunk is the pixels a worker reduces at a time.
const dzChunk = 2048

func dzReducePer(p ReduceParams) int64 {
	if p.Median {
		return int64(p.Frames) * 4
	}
	return 0
}

// Reduce reduces frames to their per-pixel mean or median.
func (c cpuOps) Reduce(dst, src, scratch *gpu.Buffer, p ReduceParams) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	es := int64(2)
	if p.Float32 {
		es = 4
	}
	s, err := dzNeed("reduce input", src, int64(p.Frames)*int64(p.Pixels)*es)
	if err != nil {
		return err
	}
	d, err := dzNeed("reduce output", dst, int64(p.Pixels)*4)
	if err != nil {
		return err
	}
	workers := c.be.Workers()
	scr, err := dzNeed("reduce scratch", scratch, int64(workers)*dzReducePer(p))
	if err != nil {
		return err
	}
	wk := c.be.Begin(int64((p.Pixels + dzChunk - 1) / dzChunk))
	dzReduce(dzF32b(d), s, scr, p, workers, wk)
	return wk.Err()
}

// dzReduce writes the reduction of the frames in src (uint16 or float32
// bytes) to dst in chunks of pixels over workers; scratch holds
// dzReducePer bytes for each worker.
func dzReduce(dst []float32, src, scratch []byte, p ReduceParams, workers int, wk *gpu.Work) {
	per := dzReducePer(p)
	chunks := (p.Pixels + dzChunk - 1) / dzChunk
	gpu.ParallelForWorker(workers, chunks, func(w, lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			if wk.Stop() {
				return
			}
			wk.Add(1)
			x0, x1 := ch*dzChunk, min((ch+1)*dzChunk, p.Pixels)
			switch {
			case p.Median:
				ws := scratch[int64(w)*per : int64(w+1)*per]
				dzReduceMedian(dst, src, dzU32b(ws), p, x0, x1)
			case p.Float32:
				dzReduceMean(dst, dzF32b(src), p, x0, x1)
			default:
				dzReduceMean(dst, dzU16b(src), p, x0, x1)
			}
		}
	})
}

// dzReduceMean sums each pixel over the frames in frame order in float64
// (the CUDA kernel's order, so the same bits). Reading a pixel down the
// frames touches one cache line per frame, and the next pixels reuse them.
func dzReduceMean[T uint16 | float32](out []float32, src []T, p ReduceParams, x0, x1 int) {
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
		return math.Float32frombits(canonicalNaN)
	}
	return v
}

// dzReduceMedian sorts each pixel's keys (uint16 values, or float32
// totalOrder keys) and takes the middle one, or the mean of the middle two.
func dzReduceMedian(out []float32, src []byte, keys []uint32, p ReduceParams, x0, x1 int) {
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
			return float64(math.Float32frombits(floatUnkey(k)))
		}
		return float64(k)
	}
	h := p.Frames / 2
	for x := x0; x < x1; x++ {
		for f := range keys {
			if p.Float32 {
				keys[f] = floatKey(s32[f*p.Pixels+x])
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

// FlatFieldScratch: none on the CPU (each worker counts its clipped
// values in a variable).
func (c cpuOps) FlatFieldScratch(p FlatFieldParams) int64 { return 0 }

// FlatField applies the flat-field correction.
func (c cpuOps) FlatField(dst, src, dark, flat, scratch *gpu.Buffer, p FlatFieldParams) (int64, error) {
	if err := p.Validate(); err != nil {
		return 0, fmt.Errorf("cpu: %w", err)
	}
	es := int64(2)
	if p.Float32 {
		es = 4
	}
	n := int64(p.Frames) * int64(p.Pixels)
	var mem [4][]byte
	for i, b := range []struct {
		what string
		buf  *gpu.Buffer
		n    int64
	}{{"flat-field input", src, n * es}, {"flat-field output", dst, n * 4}, {"dark frame", dark, int64(p.Pixels) * 4}, {"flat frame", flat, int64(p.Pixels) * 4}} {
		var err error
		if mem[i], err = dzNeed(b.what, b.buf, b.n); err != nil {
			return 0, err
		}
	}
	wk := c.be.Begin(int64(p.Frames))
	clipped := dzFlatField(dzF32b(mem[1]), mem[0], dzF32b(mem[2]), dzF32b(mem[3]), p, c.be.Workers(), wk)
	return clipped, wk.Err()
}

// dzFlatField corrects the frames of src (uint16 or float32 bytes) into
// dst, frames split over workers, and returns how many values it clipped.
// dst may be the same memory as src (float32).
func dzFlatField(dst []float32, src []byte, dark, flat []float32, p FlatFieldParams, workers int, wk *gpu.Work) int64 {
	var clipped [64]int64
	workers = min(workers, len(clipped))
	rows := p.Frames
	gpu.ParallelForWorker(workers, rows, func(w, lo, hi int) {
		var cnt int64
		for fr := lo; fr < hi && !wk.Stop(); fr++ {
			wk.Add(1)
			o := dst[fr*p.Pixels : (fr+1)*p.Pixels]
			if p.Float32 {
				cnt += dzFlatRow(o, dzF32b(src)[fr*p.Pixels:(fr+1)*p.Pixels], dark, flat, p)
			} else {
				cnt += dzFlatRow(o, dzU16b(src)[fr*p.Pixels:(fr+1)*p.Pixels], dark, flat, p)
			}
		}
		clipped[w] = cnt
	})
	var total int64
	for _, v := range clipped {
		total += v
	}
	return total
}

// dzFlatRow corrects one frame. out may be the same memory as in (float32).
func dzFlatRow[T uint16 | float32](out []float32, in []T, dark, flat []float32, p FlatFieldParams) int64 {
	var clipped int64
	dark, flat = dark[:len(out)], flat[:len(out)]
	for i := range out {
		// max(F − D, 1e-7), written so that a NaN stays NaN (as
		// NumPy's maximum does and CUDA's fmaxf would not).
		den := flat[i] - dark[i]
		if den < flatFieldEps {
			den = flatFieldEps
		}
		v := (float32(in[i]) - dark[i]) / den
		switch {
		case v < p.Low:
			v, clipped = p.Low, clipped+1
		case v > p.High:
			v, clipped = p.High, clipped+1
		}
		if p.MinusLog {
			v = float32(-portableLog(float64(v)))
		}
		out[i] = dzCanonNaN(v)
	}
	return clipped
}

// dzNeed returns the host memory of a buffer that a kernel touches n
// bytes of, or an error naming it (what) when it is missing, too small or
// not a CPU buffer. A nil buffer is fine where n is 0.
func dzNeed(what string, b *gpu.Buffer, n int64) (mem []byte, err error) {
	if n == 0 && b == nil {
		return nil, nil
	}
	mem, err = gpu.CheckedHost(b, n)
	if err != nil {
		return nil, fmt.Errorf("cpu: %s: %w", what, err)
	}
	return mem, nil
}

// Views of CPU buffers' memory (little-endian host memory, 4-byte aligned
// since Go allocates byte slices of that size aligned).

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

func dzF32b(b []byte) []float32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}
