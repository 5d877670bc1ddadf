package classify

import "golang.org/x/sys/cpu"

// hasFMA says the AVX2 + FMA kernel runs here.
var hasFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// sgemm6x16 is the AVX2 + FMA kernel (cpu_gemm_amd64.s): c (6 rows of
// 16 at stride ldc floats) = (c if load, else 0) + a (6 rows at stride
// lda floats, k columns at stride step) · b (k x 16, contiguous), one FMA
// chain over k per element.
//
//go:noescape
func sgemm6x16(k int, a *float32, lda, step int, b *float32, c *float32, ldc int, load int)

// kernel6x16 runs the kernel on the slices (checked by length); k > 0.
func kernel6x16(k int, a []float32, lda, step int, b []float32, c []float32, ldc int, load bool) {
	_ = a[5*lda+(k-1)*step]
	_ = b[k*gemmNR-1]
	_ = c[5*ldc+gemmNR-1]
	if !hasFMA {
		kernel6x16Go(k, a, lda, step, b, c, ldc, load)
		return
	}
	l := 0
	if load {
		l = 1
	}
	sgemm6x16(k, &a[0], lda, step, &b[0], &c[0], ldc, l)
}
