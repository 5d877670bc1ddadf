package dezing

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
)

// benchScan is testdata/baseline.py's phantom: a smooth background,
// Gaussian noise (σ = 200) and 0.1% zingers at 60000.
func benchScan(z, y, x int, dt volume.DType) *volume.Memory {
	rng := rand.New(rand.NewPCG(1, 1))
	info := volume.Info{Shape: [3]int{z, y, x}, DType: dt}
	data := make([]byte, info.Bytes())
	u, f := volume.Uint16s(data), volume.Float32s(data)
	for k := 0; k < z; k++ {
		for j := 0; j < y; j++ {
			for i := 0; i < x; i++ {
				v := 20000 + 8000*math.Sin(float64(i)/40)*math.Cos(float64(j)/55) + 50*float64(k)/float64(z) + 200*rng.NormFloat64()
				if rng.Float64() < 0.001 {
					v = 60000
				}
				v = math.Round(min(max(v, 0), 65535))
				o := (k*y+j)*x + i
				if dt == volume.Uint16 {
					u[o] = uint16(v)
				} else {
					f[o] = float32(v)
				}
			}
		}
	}
	m, _ := volume.NewMemory(info, data)
	return m
}

// BenchmarkPipelineCPU is the whole pipeline on the CPU backend, from an
// in-memory scan of 64 x 512 x 512 to an output that discards, in planned
// blocks: the figure to compare with testdata/baseline.py's scipy
// remove_outlier on the same shape.
func BenchmarkPipelineCPU(b *testing.B) {
	for _, dt := range []volume.DType{volume.Uint16, volume.Float32} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers%d", dt, workers), func(b *testing.B) {
				in := Input{Projections: benchScan(64, 512, 512, dt)}
				be := gpu.NewCPUWorkers(workers)
				cfg := DefaultConfig()
				cfg.Block = 16
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := Run(context.Background(), nil, be, cfg, in, discard{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(in.Projections.Info().Len())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mvox/s")
			})
		}
	}
}
