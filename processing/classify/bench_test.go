package classify

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/voxlab/voxlab/processing/classify/keras"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/points"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// benchCubes returns n cellfinder-sized cubes (50x50x20, 2 channels) cut
// from the synthetic crop at the network's voxel size: the candidates of
// testdata/candidates.csv inside it, repeated. scripts/bench-classify.sh
// feeds torch the same cubes (testdata/bench_torch.py).
func benchCubes(b testing.TB, n int) []float32 {
	sig, bg := cropVolumes(b)
	cfg := DefaultConfig()
	cfg.VoxelSize = [3]float64{5, 1, 1}
	s, err := OpenCubes(cfg, Inputs{Signal: sig, Background: bg, Points: candidates(b)})
	if err != nil {
		b.Fatal(err)
	}
	// In the candidates' order, as bench_torch.py takes them.
	cl := s.cubeLen()
	byIndex := map[int][]float32{}
	if err := s.EachCube(b.Context(), nil, 2, 64, func(idx []int, cubes []float32) error {
		for k, i := range idx {
			byIndex[i] = append([]float32(nil), cubes[k*cl:(k+1)*cl]...)
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	var all []float32
	for i := range s.In.Points {
		all = append(all, byIndex[i]...)
	}
	out := make([]float32, 0, n*cl)
	for len(out) < n*cl {
		out = append(out, all[:min(len(all), n*cl-len(out))]...)
	}
	return out
}

// BenchmarkForwardCPU times the CPU network on a batch of cubes:
// ResNet-50 (VOXLAB_BENCH_DEPTH), batch 64 (VOXLAB_BENCH_BATCH), as many
// workers as GOMAXPROCS (go test -cpu 2), one-thread OpenBLAS each.
func BenchmarkForwardCPU(b *testing.B) {
	depth, batch := envInt("VOXLAB_BENCH_DEPTH", 50), envInt("VOXLAB_BENCH_BATCH", 64)
	arch := resnet.Arch{Depth: depth, Input: resnet.DefaultInput}
	net, err := resnet.Build(arch, synth.Weights(arch, nil))
	if err != nil {
		b.Fatal(err)
	}
	cubes := benchCubes(b, batch)
	for i := range cubes {
		cubes[i] /= 1000 // keep the random network's activations finite
	}
	be := gpu.NewCPU()
	e := newCPUNet(be)
	if err := e.Prepare(net, batch); err != nil {
		b.Fatal(err)
	}
	defer e.Release()
	src, _ := be.Alloc("cubes", int64(4*len(cubes)))
	copy(f32(src.HostBytes()), cubes)
	probs := make([]float32, 2*batch)
	b.ResetTimer()
	for b.Loop() {
		if err := e.Forward(probs, src, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(batch)*float64(b.N)/b.Elapsed().Seconds(), "cubes/s")
	if os.Getenv("VOXLAB_BENCH_PRINT") != "" {
		fmt.Println("p(cell) of the first cubes:", probs[1], probs[3], probs[5])
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// benchSession opens a classification of the crop's candidates repeated
// to about n, at the network's voxel size, with a random ResNet of the
// given depth.
func benchSession(b testing.TB, depth, n, batch int, mem *plan.Tracker) *Session {
	sig, bg := cropVolumes(b)
	base := candidates(b)
	var pts []points.Point
	for len(pts) < n {
		pts = append(pts, base...)
	}
	cfg := DefaultConfig()
	cfg.Model = "random"
	cfg.VoxelSize = [3]float64{5, 2, 2}
	cfg.NetworkDepth = depth
	cfg.BatchSize = batch
	cfg.Memory = mem
	arch := resnet.Arch{Depth: depth, Input: resnet.DefaultInput}
	m := &keras.Model{Path: "random", Format: "in memory", Weights: synth.Weights(arch, nil), Depth: depth}
	s, err := OpenModel(cfg, Inputs{Signal: sig, Background: bg, Points: pts}, m)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkClassifyCPU times a whole classification (reading planes,
// cutting and rescaling cubes, the network) of about 256 candidates:
// compare its cubes/s with BenchmarkForwardCPU's (the network alone):
// extraction runs beside the network, so the whole should be close.
func BenchmarkClassifyCPU(b *testing.B) {
	depth, batch := envInt("VOXLAB_BENCH_DEPTH", 50), envInt("VOXLAB_BENCH_BATCH", 64)
	s := benchSession(b, depth, envInt("VOXLAB_BENCH_CUBES", 256), batch, nil)
	be := gpu.NewCPU()
	for b.Loop() {
		if _, err := s.Run(b.Context(), nil, be, plan.Budget{Shared: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(s.Order))*float64(b.N)/b.Elapsed().Seconds(), "cubes/s")
}

// TestRSS measures (with VOXLAB_CLASSIFY_RSS=1; scripts/bench-classify.sh
// runs it) a classification's peak resident memory against its plan:
// the process's peak (VmHWM) above what it held before the run, and what
// the run's arrays counted, beside the plan's PeakRAM.
func TestRSS(t *testing.T) {
	if os.Getenv("VOXLAB_CLASSIFY_RSS") == "" {
		t.Skip("a measurement for BENCHMARKS.md: set VOXLAB_CLASSIFY_RSS=1 (scripts/bench-classify.sh)")
	}
	tr := plan.NewTracker()
	s := benchSession(t, envInt("VOXLAB_BENCH_DEPTH", 50), envInt("VOXLAB_BENCH_CUBES", 256), envInt("VOXLAB_BENCH_BATCH", 64), tr)
	be := gpu.NewCPU()
	be.CountHost(tr)
	runtime.GC()
	base, _ := gpu.ProcessMemory()
	res, err := s.Run(t.Context(), nil, be, plan.Budget{Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	_, peak := gpu.ProcessMemory()
	fmt.Printf("classify RSS: ResNet-%d, batch %d, %d cubes: peak RSS %.1f MiB above the %.1f MiB before the run (network weights loaded); arrays counted %.1f MiB; plan %.1f MiB\n",
		s.Net.Arch.Depth, res.Batch, len(s.Order), mib(peak-base), mib(base), mib(tr.Peak()), mib(res.Plan.PeakRAM))
	u := res.Plan.Phases[res.Plan.Main].Usage
	for _, k := range u.SortedBreakdown() {
		fmt.Printf("  plan: %-70s %8.1f MiB\n", k, mib(u.Breakdown[k]))
	}
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
