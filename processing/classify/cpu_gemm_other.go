//go:build !amd64

package classify

// kernel6x16 is the Go kernel on machines other than amd64.
func kernel6x16(k int, a []float32, lda, step int, b []float32, c []float32, ldc int, load bool) {
	kernel6x16Go(k, a, lda, step, b, c, ldc, load)
}
