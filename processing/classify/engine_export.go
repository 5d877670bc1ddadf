package classify

import (
	"sync"

	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/volume"
)

// The inference engine's kernels, exported for training
// (processing/classify/train): its backward convolutions are products on
// the same GEMM, and its patches the same im2col.

// Im2col fills dst (rows x c.K()) with the input patches of the output
// rows [r0, r0+rows) of convolution c over the batch in, as inference
// lays them out (see im2colRows).
func Im2col(dst, in []float32, c *resnet.Conv, r0, rows int) { im2colRows(dst, in, c, r0, rows) }

// MatMul sets c (m x n, row-major, row stride n) = a (m x k, row stride
// lda) · b (k x n, row-major) with the inference engine's GEMM: b is
// packed into 16-column strips (zero columns past n) and blocks of rows
// are shared among workers goroutines. Each element is one chain of
// fused multiply-adds over k in order, whatever the split. buf (nil:
// none) keeps the packed copy and the padded product from call to call.
func MatMul(m, n, k int, a []float32, lda int, b, c []float32, workers int, buf *MatMulBuffers) {
	MatMulT(m, n, k, a, lda, false, b, false, c, workers, buf)
}

// MatMulT is MatMul with either operand read in place as the transpose
// of what it holds: a holds k x m (row stride lda) when ta, b holds
// n x k when tb. The products are the same bits as MatMul's of the
// transposed copies (the same values in the same chains), without
// writing those copies: training's backward products are patchesᵀ · dz
// and dz · kernelᵀ.
func MatMulT(m, n, k int, a []float32, lda int, ta bool, b []float32, tb bool, c []float32, workers int, buf *MatMulBuffers) {
	if m == 0 || n == 0 {
		return
	}
	if buf == nil {
		buf = &MatMulBuffers{}
	}
	np := (n + gemmNR - 1) / gemmNR * gemmNR
	packed := Reuse(&buf.packed, k*np)
	SplitRange(np/gemmNR, workers, func(s0, s1 int) { packStripsOf(packed, b, k, n, tb, s0, s1) })
	dst := c
	if np != n {
		dst = Reuse(&buf.out, m*np)
	}
	rs, step := lda, 1
	if ta {
		rs, step = 1, lda
	}
	rows := (m + max(1, workers) - 1) / max(1, workers)
	rows = (rows + gemmMR - 1) / gemmMR * gemmMR
	SplitRange((m+rows-1)/rows, workers, func(p0, p1 int) {
		r0, r1 := p0*rows, min(p1*rows, m)
		gemmStrided(r1-r0, np, k, a[r0*rs:], rs, step, packed, dst[r0*np:], np, newGemmScratch())
	})
	if np != n {
		for i := range m {
			copy(c[i*n:(i+1)*n], dst[i*np:i*np+n])
		}
	}
}

// SplitRange runs f(lo, hi) over [0, n) in up to workers contiguous
// chunks at once, each in its own goroutine (training's loops share it).
func SplitRange(n, workers int, f func(lo, hi int)) {
	workers = max(1, min(workers, n))
	if workers == 1 {
		f(0, n)
		return
	}
	step := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += step {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			f(lo, hi)
		}(lo, min(lo+step, n))
	}
	wg.Wait()
}

// Converter returns the float32 value of element i of raw data of dtype
// dt as cellfinder's get_data_converter(dt, float32) makes it (training
// reads its cubes through it, as cellfinder's CachedTiffImage does).
func Converter(dt volume.DType) (func(raw []byte, i int) float32, error) { return converter(dt) }

// MatMulStrip is the width of MatMul's packed strips: its copy of b
// (k x n) holds k x n rounded up to whole strips, and a product whose n is
// not whole strips is computed into a padded m x (n rounded up) buffer.
const MatMulStrip = gemmNR

// MatMulBuffers are MatMul's packed copy of b (whole strips) and its
// padded product, kept by a caller that multiplies matrices of the same
// sizes again and again.
type MatMulBuffers struct{ packed, out []float32 }

// Reuse returns *b resized to n values, reallocating only when it is
// too small: buffers of a computation that repeats with the same sizes
// are allocated once.
func Reuse(b *[]float32, n int) []float32 {
	if cap(*b) < n {
		*b = make([]float32, n)
	}
	*b = (*b)[:n]
	return *b
}
