package classify

import "math"

// The CPU network's matrix products: voxlab's own float32 GEMM rather than
// OpenBLAS's sgemm, because OpenBLAS's result for a row depends on where
// the row sits in the call (its kernels for the edges and the inside of a
// matrix round differently: checked on this project's machine, thousands
// of elements of a 64-row block differ when the block shifts by 16 rows),
// so a cube's probabilities would change with its batch and the batch
// size. Here every element of C is one chain of fused multiply-adds over
// k in order (C = fma(a_k, b_k, C)), in one lane of one kernel whatever
// the row's position, the call's size or the cache blocking (a block of
// k continues the chain from the stored value, which float32 storage
// keeps exactly): the product of a row is the same bits in any batch.
//
// The layout follows Goto and van de Geijn ("Anatomy of high-performance
// matrix multiplication", ACM TOMS 34(3), 2008): the weights are packed
// once (Prepare) into strips of 16 columns (k x 16, contiguous), the
// im2col rows are read in place, 6 at a time, and a 6 x 16 block of C
// lives in 12 AVX2 registers through a block of k (gemmKC); the strips
// of a block of columns (gemmNC) stay in L2 while the rows sweep them.

const (
	gemmMR = 6   // rows of the kernel
	gemmNR = 16  // columns of the kernel (two AVX2 vectors)
	gemmKC = 256 // k per block
	gemmNC = 256 // columns per block
)

// packStrips returns w (k x n, row-major; n a multiple of 16) as n/16
// strips of k x 16.
func packStrips(w []float32, k, n int) []float32 {
	out := make([]float32, k*n)
	packStripsInto(out, w, k, n)
	return out
}

// packStripsInto is packStrips into dst (k*n).
func packStripsInto(dst, w []float32, k, n int) {
	for s := 0; s < n/gemmNR; s++ {
		strip := dst[s*k*gemmNR : (s+1)*k*gemmNR]
		for i := range k {
			copy(strip[i*gemmNR:(i+1)*gemmNR], w[i*n+s*gemmNR:i*n+(s+1)*gemmNR])
		}
	}
}

// packStripsOf packs strips [s0, s1) of b (k x n, or n x k read as its
// transpose when tb) into dst as packStrips does, the columns past n
// zero: the padding and the transpose are made while packing.
func packStripsOf(dst, b []float32, k, n int, tb bool, s0, s1 int) {
	for s := s0; s < s1; s++ {
		strip := dst[s*k*gemmNR : (s+1)*k*gemmNR]
		j0 := s * gemmNR
		w := min(gemmNR, n-j0)
		if !tb && w == gemmNR {
			// A whole strip: 16 values a row as one array assignment,
			// which the compiler inlines (copy calls memmove per row).
			for i := range k {
				*(*[gemmNR]float32)(strip[i*gemmNR:]) = *(*[gemmNR]float32)(b[i*n+j0:])
			}
			continue
		}
		if !tb {
			for i := range k {
				copy(strip[i*gemmNR:i*gemmNR+w], b[i*n+j0:i*n+j0+w])
				clear(strip[i*gemmNR+w : (i+1)*gemmNR])
			}
			continue
		}
		for j := range gemmNR {
			if j >= w {
				for i := range k {
					strip[i*gemmNR+j] = 0
				}
				continue
			}
			col := b[(j0+j)*k : (j0+j+1)*k]
			for i, v := range col {
				strip[i*gemmNR+j] = v
			}
		}
	}
}

// gemmScratch is a worker's room for the kernel's partial row panels.
type gemmScratch struct {
	a []float32 // gemmMR x gemmKC
	c []float32 // gemmMR x gemmNR
}

func newGemmScratch() *gemmScratch {
	return &gemmScratch{a: make([]float32, gemmMR*gemmKC), c: make([]float32, gemmMR*gemmNR)}
}

// gemmScratchBytes is the size of a gemmScratch.
const gemmScratchBytes = 4 * (gemmMR*gemmKC + gemmMR*gemmNR)

// gemm sets c (m x n, row stride ldc) = a (m x k, row stride lda) · b,
// b packed by packStrips (n a multiple of 16).
func gemm(m, n, k int, a []float32, lda int, b []float32, c []float32, ldc int, sc *gemmScratch) {
	gemmStrided(m, n, k, a, lda, 1, b, c, ldc, sc)
}

// gemmStrided is gemm with a's element (i, p) at a[i*lda + p*step]: step
// lda and lda 1 read a k x m matrix as its transpose in place, which the
// kernel broadcasts as cheaply (its six values of a p are adjacent).
func gemmStrided(m, n, k int, a []float32, lda, step int, b []float32, c []float32, ldc int, sc *gemmScratch) {
	if m == 0 {
		return
	}
	if k == 0 {
		for r := range m {
			clear(c[r*ldc : r*ldc+n])
		}
		return
	}
	for k0 := 0; k0 < k; k0 += gemmKC {
		kb := min(gemmKC, k-k0)
		load := k0 > 0
		for n0 := 0; n0 < n; n0 += gemmNC {
			nb := min(gemmNC, n-n0)
			for r := 0; r < m; r += gemmMR {
				rows := min(gemmMR, m-r)
				for s := n0; s < n0+nb; s += gemmNR {
					strip := b[s*k+k0*gemmNR:]
					if rows == gemmMR {
						kernel6x16(kb, a[r*lda+k0*step:], lda, step, strip, c[r*ldc+s:], ldc, load)
						continue
					}
					// A partial panel: through a padded copy.
					clear(sc.a)
					clear(sc.c)
					for i := range rows {
						copyStrided(sc.a[i*gemmKC:i*gemmKC+kb], a[(r+i)*lda+k0*step:], step)
						if load {
							copy(sc.c[i*gemmNR:(i+1)*gemmNR], c[(r+i)*ldc+s:(r+i)*ldc+s+gemmNR])
						}
					}
					kernel6x16(kb, sc.a, gemmKC, 1, strip, sc.c, gemmNR, load)
					for i := range rows {
						copy(c[(r+i)*ldc+s:(r+i)*ldc+s+gemmNR], sc.c[i*gemmNR:(i+1)*gemmNR])
					}
				}
			}
		}
	}
}

// copyStrided sets dst[p] = src[p*step].
func copyStrided(dst, src []float32, step int) {
	if step == 1 {
		copy(dst, src)
		return
	}
	for p := range dst {
		dst[p] = src[p*step]
	}
}

// kernel6x16Go is the kernel in Go, for machines without AVX2 and FMA:
// the same chains of fused multiply-adds (math.FMA in float64, rounded to
// float32: the exact product of two float32s fits a float64, so only the
// sum rounds twice — results may differ from the AVX2 kernel's in the
// last bit, but not with the row's position).
func kernel6x16Go(k int, a []float32, lda, step int, b []float32, c []float32, ldc int, load bool) {
	var acc [gemmMR][gemmNR]float32
	if load {
		for i := range gemmMR {
			copy(acc[i][:], c[i*ldc:i*ldc+gemmNR])
		}
	}
	for p := range k {
		bp := b[p*gemmNR : (p+1)*gemmNR]
		for i := range gemmMR {
			ai := float64(a[i*lda+p*step])
			row := &acc[i]
			for j, bv := range bp {
				row[j] = float32(math.FMA(ai, float64(bv), float64(row[j])))
			}
		}
	}
	for i := range gemmMR {
		copy(c[i*ldc:i*ldc+gemmNR], acc[i][:])
	}
}
