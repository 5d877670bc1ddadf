//go:build cuda

package dezing

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

func openCUDA(t testing.TB) *gpu.CUDABackend {
	t.Helper()
	c, err := gpu.OpenCUDA(0)
	if err != nil {
		t.Skipf("CUDA device 0 does not open: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestCUDAPipelineParity: the whole pipeline on CUDA gives the CPU
// backend's bits, whatever the block sizes, and its peak is the plan's.
func TestCUDAPipelineParity(t *testing.T) {
	c := openCUDA(t)
	for _, dt := range []volume.DType{volume.Uint16, volume.Float32} {
		for _, kernel := range []int{3, 7} {
			in := testScan(uint64(kernel)+10, dt, 23, 5, 7, 45, 70)
			cfg := DefaultConfig()
			cfg.Kernel, cfg.FlatField, cfg.MinusLog, cfg.Reduce = kernel, true, true, Median
			ref, _ := runAll(t, gpu.NewCPU(), cfg, in)
			for _, block := range []int{0, 1, 4} {
				cfg.Block, cfg.FrameBlock, cfg.ReduceRows = block, block, block
				c.ResetPeak()
				got, res := runAll(t, c, cfg, in)
				name := fmt.Sprintf("%s kernel %d block %d", dt, kernel, block)
				if !bytes.Equal(got.data, ref.data) {
					t.Errorf("%s: projections differ from the CPU backend", name)
				}
				if _, ok := sameFloats(got.dark, ref.dark); !ok {
					t.Errorf("%s: dark differs", name)
				}
				if p := res.PeakDevice; p > res.Plan.PeakDevice || float64(p) < 0.8*float64(res.Plan.PeakDevice) {
					t.Errorf("%s: peak %d, predicted %d", name, p, res.Plan.PeakDevice)
				}
			}
		}
	}
}

// BenchmarkCUDAPipeline is end to end from host memory to host memory:
// uploads, kernels, downloads, with pin_memory off and on; it reports
// voxels/s and GB/s of projections through the pipeline.
func BenchmarkCUDAPipeline(b *testing.B) {
	c := openCUDA(b)
	in := Input{Projections: benchScan(256, 512, 512, volume.Uint16)}
	for _, pin := range []bool{false, true} {
		for _, ff := range []bool{false, true} {
			b.Run(fmt.Sprintf("pin=%v/flatfield=%v", pin, ff), func(b *testing.B) {
				cfg := DefaultConfig()
				cfg.Pin = pin
				cfg.Budget = plan.Budget{Device: 4 << 30}
				run := in
				if ff {
					run.Darks = benchScan(10, 512, 512, volume.Uint16)
					run.Flats = benchScan(10, 512, 512, volume.Uint16)
					cfg.FlatField = true
				}
				start := time.Now()
				for i := 0; i < b.N; i++ {
					if _, err := Run(context.Background(), nil, c, cfg, run, discard{}); err != nil {
						b.Fatal(err)
					}
				}
				s := time.Since(start).Seconds()
				info := in.Projections.Info()
				b.ReportMetric(float64(info.Len())*float64(b.N)/s/1e6, "Mvox/s")
				b.ReportMetric(float64(info.Bytes())*float64(b.N)/s/1e9, "GB/s")
			})
		}
	}
}
