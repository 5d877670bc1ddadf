package blas

import (
	"fmt"
	"testing"
)

// BenchmarkSgemm1 times one-thread products of the shapes a ResNet-50's
// convolutions give on a batch of 50x50x20 cubes (rows: output
// positions; k: kernel volume x input channels; n: output channels).
func BenchmarkSgemm1(b *testing.B) {
	for _, s := range []struct{ m, n, k int }{
		{7500, 64, 294}, {864, 64, 1728}, {864, 256, 64}, {256, 64, 1728}, {256, 512, 13824}, {1152, 128, 3456},
	} {
		b.Run(fmt.Sprintf("%dx%dx%d", s.m, s.n, s.k), func(b *testing.B) {
			a := make([]float32, s.m*s.k)
			w := make([]float32, s.k*s.n)
			c := make([]float32, s.m*s.n)
			for i := range a {
				a[i] = float32(i%7) - 3
			}
			for i := range w {
				w[i] = float32(i%5) - 2
			}
			b.SetBytes(0)
			for b.Loop() {
				Sgemm1(s.m, s.n, s.k, a, s.k, w, s.n, 0, c, s.n)
			}
			b.ReportMetric(float64(2*s.m*s.n*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
