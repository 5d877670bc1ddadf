package dezing

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/voxlab/voxlab/gpu"
)

// benchPhantom is the benchmark's data, like processing/dezing/testdata/
// baseline.py's: a smooth background, Gaussian noise (σ = 200) and 0.1%
// zingers at 60000.
func benchPhantom(z, y, x int, float bool) []byte {
	rng := rand.New(rand.NewPCG(1, 1))
	n := z * y * x
	u := make([]uint16, n)
	f := make([]float32, n)
	for k := 0; k < z; k++ {
		for j := 0; j < y; j++ {
			for i := 0; i < x; i++ {
				v := 20000 + 8000*math.Sin(float64(i)/40)*math.Cos(float64(j)/55) + 50*float64(k)/float64(z) + 200*rng.NormFloat64()
				if rng.Float64() < 0.001 {
					v = 60000
				}
				v = min(max(v, 0), 65535)
				o := (k*y+j)*x + i
				u[o], f[o] = uint16(v), float32(math.Round(v))
			}
		}
	}
	if float {
		return bytesOf(unsafeU32(f))
	}
	return bytesOf(u)
}

func unsafeU32(f []float32) []uint32 {
	u := make([]uint32, len(f))
	for i, v := range f {
		u[i] = math.Float32bits(v)
	}
	return u
}

// BenchmarkDezingMedian measures remove_outlier on 64 x 512 x 512 (smaller
// in x and y for the larger kernels, to keep runs short); the reported
// Mvox/s is output voxels per second.
func BenchmarkDezingMedian(b *testing.B) {
	for _, kernel := range []int{3, 5, 7, 13} {
		for _, float := range []bool{false, true} {
			for _, workers := range []int{1, 2} {
				z, y, x := 64, 512, 512
				if kernel >= 7 {
					z, y, x = 16, 256, 256
				}
				typ := "uint16"
				if float {
					typ = "float32"
				}
				b.Run(fmt.Sprintf("k%d/%s/workers%d", kernel, typ, workers), func(b *testing.B) {
					be := gpu.NewCPUWorkers(workers)
					ops := cpuOps{be}
					p := MedianParams{Float32: float, Planes: z, Rows: y, Cols: x, N: z, Kernel: kernel, Dif: 1000}
					in, _ := be.Alloc("in", p.SrcBytes())
					copy(in.HostBytes(), benchPhantom(z, y, x, float))
					out, _ := be.Alloc("out", p.DstBytes())
					scr, _ := be.Alloc("scratch", ops.MedianScratch(p))
					b.SetBytes(p.SrcBytes())
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if err := ops.Median(out, in, scr, p); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(z*y*x)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mvox/s")
				})
			}
		}
	}
}

// BenchmarkDezingMedianDense is kernel 3 where the bounds settle nothing
// (dif 1: every voxel's median is computed by the shared full path), the
// worst case of the kernel-3 filter.
func BenchmarkDezingMedianDense(b *testing.B) {
	for _, float := range []bool{false, true} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("float32=%v/workers%d", float, workers), func(b *testing.B) {
				z, y, x := 64, 512, 512
				be := gpu.NewCPUWorkers(workers)
				ops := cpuOps{be}
				p := MedianParams{Float32: float, Planes: z, Rows: y, Cols: x, N: z, Kernel: 3, Dif: 1}
				in, _ := be.Alloc("in", p.SrcBytes())
				copy(in.HostBytes(), benchPhantom(z, y, x, float))
				out, _ := be.Alloc("out", p.DstBytes())
				scr, _ := be.Alloc("scratch", ops.MedianScratch(p))
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := ops.Median(out, in, scr, p); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(z*y*x)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mvox/s")
			})
		}
	}
}
