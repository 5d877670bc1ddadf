package svd

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/voxlab/voxlab/processing/internal/hostblas"
)

// BenchmarkGram is the Gram pass alone on maps held in memory (600 maps
// of 2 × 96² voxels, slabs of one 96² plane, as the 256 MiB run of
// BENCHMARKS.md's 600 maps of 96³ reads them): its multiply-adds a
// second (MAC/s, the upper triangle's n(n+1)/2·d) with OpenBLAS's dsyrk
// on GOMAXPROCS threads (go test -cpu 1,2), gonum's single-threaded Dsyrk
// with -tags noopenblas.
func BenchmarkGram(b *testing.B) {
	const n, plane, planes = 600, 96 * 96, 2
	x := make([]float64, n*plane*planes)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	src := &matrixSource{n, plane * planes, x}
	b.Logf("BLAS: %s", hostblas.Name)
	for b.Loop() {
		if _, err := gram(context.Background(), src, plane, runtime.GOMAXPROCS(0)); err != nil {
			b.Fatal(err)
		}
	}
	macs := float64(n) * float64(n+1) / 2 * float64(plane*planes)
	b.ReportMetric(macs*float64(b.N)/b.Elapsed().Seconds(), "MAC/s")
}
