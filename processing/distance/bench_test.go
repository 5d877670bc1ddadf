package distance

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/voxlab/voxlab/gpu"
)

// noiseMaps makes n maps of box³ standard normal noise (quick to make at
// benchmark sizes; the metrics' cost does not depend on the values).
func noiseMaps(b *testing.B, n, box int, seed uint64) *MemMaps {
	rng := rand.New(rand.NewPCG(seed, 9))
	d := make([]float32, n*box*box*box)
	for i := range d {
		d[i] = float32(rng.NormFloat64())
	}
	m, err := NewMemMaps(d, n, box)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// benchRun runs the pipeline b.N times and reports pairs per second of the
// distance stage (the matrix products and metrics; in low-memory mode this
// includes streaming and preparing the ground truth) and of the whole run.
func benchRun(b *testing.B, cfg Config, ngt, nsub, box int) {
	benchRunOn(b, gpu.NewCPU(), cfg, ngt, nsub, box)
}

func benchRunOn(b *testing.B, be gpu.Backend, cfg Config, ngt, nsub, box int) {
	gt, sub := noiseMaps(b, ngt, box, 1), noiseMaps(b, nsub, box, 2)
	var compute, total float64
	b.ResetTimer()
	for b.Loop() {
		res, err := Run(context.Background(), nil, be, cfg, gt, sub)
		if err != nil {
			b.Fatal(err)
		}
		compute += res.Compute.Seconds()
		total += (res.Load + res.Compute).Seconds()
	}
	pairs := float64(ngt*nsub) * float64(b.N)
	b.ReportMetric(pairs/compute, "pairs/s")
	b.ReportMetric(pairs/total, "pairs/s-with-load")
}

// The case: box 64, 200 ground-truth x 40 submitted maps, l2 and
// corr. NumPy + OpenBLAS on the same machine: testdata/bench_numpy.py.
func BenchmarkInMemoryL2Corr(b *testing.B) {
	benchRun(b, Config{Metrics: []Metric{L2, Corr}, AutoChunk: true}, 200, 40, 64)
}

func BenchmarkInMemoryL2CorrSphere(b *testing.B) {
	mask, _ := SphereMask(64, 32)
	benchRun(b, Config{Metrics: []Metric{L2, Corr}, Mask: mask, AutoChunk: true}, 200, 40, 64)
}

func BenchmarkLowMemoryL2Corr(b *testing.B) {
	benchRun(b, Config{Metrics: []Metric{L2, Corr}, LowMemory: true, Chunk: 50}, 200, 40, 64)
}

func BenchmarkInMemoryAllMetrics(b *testing.B) {
	mask, _ := SphereMask(64, 32)
	benchRun(b, Config{Metrics: AllMetrics(), Mask: mask, VoxelSize: 2.146, AutoChunk: true}, 50, 10, 64)
}

// BenchmarkPrepare is the host-side cost per map: mask, median-zscore and
// (with FSC) the 3D FFT, one goroutine.
func BenchmarkPrepare(b *testing.B) {
	for _, spec := range []bool{false, true} {
		name := "data"
		ms := []Metric{L2}
		if spec {
			name, ms = "data+fft", []Metric{L2, FSC}
		}
		b.Run(name, func(b *testing.B) {
			box := 64
			m := noiseMaps(b, 1, box, 3)
			mask, _ := FullMask(box)
			var sh *Shells
			if spec {
				sh = NewShells(box)
			}
			lay := newLayout(ms, mask.Len(), sh)
			p := newPreparer(lay, mask, sh, MedianZScore, 1, nil)
			row := make([]float64, lay.RowLen)
			b.ResetTimer()
			for b.Loop() {
				if err := p.prepare(row, m.Data, 1, 0, "bench"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "maps/s")
		})
	}
}
