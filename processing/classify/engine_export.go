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
// none) keeps the packed and padded copies from call to call.
func MatMul(m, n, k int, a []float32, lda int, b, c []float32, workers int, buf *MatMulBuffers) {
	if m == 0 || n == 0 {
		return
	}
	if buf == nil {
		buf = &MatMulBuffers{}
	}
	np := (n + gemmNR - 1) / gemmNR * gemmNR
	src := b
	if np != n {
		src = Reuse(&buf.padded, k*np)
		for i := range k {
			copy(src[i*np:i*np+n], b[i*n:(i+1)*n])
			clear(src[i*np+n : (i+1)*np])
		}
	}
	packed := Reuse(&buf.packed, k*np)
	packStripsInto(packed, src, k, np)
	dst := c
	if np != n {
		dst = Reuse(&buf.out, m*np)
	}
	workers = max(1, min(workers, (m+gemmMR-1)/gemmMR))
	rows := (m + workers - 1) / workers
	rows = (rows + gemmMR - 1) / gemmMR * gemmMR
	var wg sync.WaitGroup
	for r0 := 0; r0 < m; r0 += rows {
		wg.Add(1)
		go func(r0 int) {
			defer wg.Done()
			mb := min(rows, m-r0)
			gemm(mb, np, k, a[r0*lda:], lda, packed, dst[r0*np:], np, newGemmScratch())
		}(r0)
	}
	wg.Wait()
	if np != n {
		for i := range m {
			copy(c[i*n:(i+1)*n], dst[i*np:i*np+n])
		}
	}
}

// Converter returns the float32 value of element i of raw data of dtype
// dt as cellfinder's get_data_converter(dt, float32) makes it (training
// reads its cubes through it, as cellfinder's CachedTiffImage does).
func Converter(dt volume.DType) (func(raw []byte, i int) float32, error) { return converter(dt) }

// MatMulStrip is the width of MatMul's packed strips: its copies of b
// (k x n) hold k x n rounded up to whole strips, and a product whose n is
// not whole strips is computed into a padded m x (n rounded up) buffer.
const MatMulStrip = gemmNR

// MatMulBuffers are MatMul's copies of b (packed, and padded to whole
// strips) and its padded product, kept by a caller that multiplies
// matrices of the same sizes again and again.
type MatMulBuffers struct{ packed, padded, out []float32 }

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
