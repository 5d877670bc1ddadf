//go:build cuda

package detect

import (
	"context"
	"slices"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/demo/lightsheet"
	"github.com/voxlab/voxlab/processing/plan"
)

func openCUDA(t testing.TB) gpu.Backend {
	t.Helper()
	be, _, err := gpu.Open(gpu.CUDA)
	if err != nil {
		t.Skipf("no CUDA device: %v", err)
	}
	return be
}

// TestCUDAPipelineParity: the CUDA backend finds exactly the CPU's
// candidates on the demo brain, for several batch sizes, pinned or not,
// and its device peak is 80–100% of the plan.
func TestCUDAPipelineParity(t *testing.T) {
	be := openCUDA(t)
	defer be.Close()
	v := lightsheet.New(lightsheet.SmallShape, 1).Volume()
	ref := detectAll(t, gpu.NewCPU(), DefaultConfig(), v).Candidates
	if len(ref) < 100 {
		t.Fatalf("CPU found %d candidates", len(ref))
	}
	for _, tc := range []struct {
		batch int
		pin   bool
	}{{1, false}, {4, true}, {16, false}, {0, true}} {
		cfg := DefaultConfig()
		cfg.BatchSize, cfg.PinMemory = tc.batch, tc.pin
		be.ResetPeak()
		base := be.Stats().Current
		res, err := Run(context.Background(), nil, be, cfg, v, plan.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Candidates, ref) {
			t.Errorf("batch %d pin %v: %d candidates, CPU %d", tc.batch, tc.pin, len(res.Candidates), len(ref))
		}
		if r := float64(be.Stats().Peak-base) / float64(res.Plan.PeakDevice); r < 0.8 || r > 1 {
			t.Errorf("batch %d: device peak %.0f%% of the plan", res.Batch, 100*r)
		}
		t.Logf("batch %d pin %v (pinned %v): %d candidates", res.Batch, tc.pin, res.Pinned, len(res.Candidates))
	}
}

// BenchmarkCUDAPipeline2048x100 runs the whole pipeline on CUDA, pin_memory
// off and on.
func BenchmarkCUDAPipeline2048x100(b *testing.B) {
	be := openCUDA(b)
	defer be.Close()
	v := benchVolume(b, 100, 16)
	for _, pin := range []bool{false, true} {
		name := "pageable"
		if pin {
			name = "pinned"
		}
		b.Run(name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.PinMemory = pin
			for i := 0; i < b.N; i++ {
				if _, err := Run(context.Background(), nil, be, cfg, v, plan.Budget{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(100*b.N)/b.Elapsed().Seconds(), "planes/s")
		})
	}
}

// BenchmarkCUDAPlane2048 times the 2D stage kernels on one plane.
func BenchmarkCUDAPlane2048(b *testing.B) {
	be := openCUDA(b)
	defer be.Close()
	v := benchVolume(b, 1, 1)
	p, _ := DefaultConfig().Params(v.Info)
	pp := p.PlaneParams()
	src, _ := be.Alloc("src", v.PlaneBytes())
	raw := make([]byte, v.PlaneBytes())
	v.ReadSlab(0, 1, raw)
	be.Upload(src, 0, raw)
	ops, err := opsFor(be)
	if err != nil {
		b.Fatal(err)
	}
	work, _ := be.Alloc("work", WorkLayout(&pp).Size)
	prepareWork(be, work, &pp)
	mask, _ := be.Alloc("mask", 2048*2048)
	ty, tx := pp.BrainTiles()
	tiles, _ := be.Alloc("tiles", int64(ty*tx))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := ops.Plane(src, 0, work, mask, 0, tiles, 0, &pp); err != nil {
			b.Fatal(err)
		}
	}
	be.Sync()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "planes/s")
}
