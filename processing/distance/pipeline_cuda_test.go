//go:build cuda

package distance

import (
	"testing"

	"github.com/voxlab/voxlab/gpu"
)

// TestCUDAMatchesCPU: both pipelines on the CUDA backend give the CPU
// backend's matrices for every metric (1e-9 relative), and the device peak
// is 80–100% of the plan's.
func TestCUDAMatchesCPU(t *testing.T) {
	be, _, err := gpu.Open(gpu.CUDA)
	if err != nil {
		t.Skipf("no CUDA device: %v", err)
	}
	defer be.Close()
	gt, sub := testMaps(t, 23, 16, 1), testMaps(t, 5, 16, 2)
	mask, err := SphereMask(16, 6)
	if err != nil {
		t.Fatal(err)
	}
	base := Config{Metrics: AllMetrics(), Mask: mask, VoxelSize: 2.146, Chunk: 4}
	ref := mustRun(t, gpu.NewCPU(), base, gt, sub)
	for _, low := range []bool{false, true} {
		cfg := base
		cfg.LowMemory = low
		be.ResetPeak()
		res := mustRun(t, be, cfg, gt, sub)
		for k, m := range res.Metrics {
			for i, want := range ref.Matrices[k] {
				if got := res.Matrices[k][i]; !relClose(got, want, 1e-9) {
					t.Errorf("low=%v %s[%d,%d]: cuda %.15g, cpu %.15g", low, m, i/res.NSub, i%res.NSub, got, want)
				}
			}
		}
		if r := float64(be.Stats().Peak) / float64(res.Plan.PeakDevice); r < 0.8 || r > 1 {
			t.Errorf("low=%v: device peak %d is %.3f of the plan's %d", low, be.Stats().Peak, r, res.Plan.PeakDevice)
		}
		if cur := be.Stats().Current; cur != 0 {
			t.Errorf("low=%v: %d device bytes left allocated", low, cur)
		}
	}
}

// BenchmarkCUDAInMemoryL2Corr is the case (box 64, 200 x 40 maps,
// l2 and corr) on the CUDA backend; the CPU figure is
// BenchmarkInMemoryL2Corr.
func BenchmarkCUDAInMemoryL2Corr(b *testing.B) {
	be, _, err := gpu.Open(gpu.CUDA)
	if err != nil {
		b.Skipf("no CUDA device: %v", err)
	}
	defer be.Close()
	benchRunOn(b, be, Config{Metrics: []Metric{L2, Corr}, AutoChunk: true}, 200, 40, 64)
}

// BenchmarkCUDALowMemoryL2Corr streams the ground truth in chunks of 50.
func BenchmarkCUDALowMemoryL2Corr(b *testing.B) {
	be, _, err := gpu.Open(gpu.CUDA)
	if err != nil {
		b.Skipf("no CUDA device: %v", err)
	}
	defer be.Close()
	benchRunOn(b, be, Config{Metrics: []Metric{L2, Corr}, LowMemory: true, Chunk: 50}, 200, 40, 64)
}
