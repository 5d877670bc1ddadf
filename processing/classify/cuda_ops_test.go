//go:build cuda

package classify

import (
	"context"
	"math"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/points"
)

// Tolerances of the CUDA network against the CPU's, in probability of
// the cell class: FP32 differs only in the order cuBLAS sums (1e-5);
// TF32 and FP16 round the products' inputs to a 10-bit mantissa on the
// tensor cores (1e-2 for any cube, 2e-3 on average, the class the same
// wherever the CPU is more than 0.02 from 0.5). BENCHMARKS.md states
// them with the figures measured on a GPU.
var cudaTolerance = map[string]struct{ max, mean, margin float64 }{
	"fp32": {1e-5, 1e-6, 1e-5},
	"tf32": {1e-2, 2e-3, 0.02},
	"fp16": {1e-2, 2e-3, 0.02},
}

func openCUDA(t *testing.T) *gpu.CUDABackend {
	c, err := gpu.OpenCUDA(0)
	if err != nil {
		t.Skipf("CUDA device 0 does not open: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return c
}

// forwardOn runs the network on cubes with ops on be, in batches.
func forwardOn(t *testing.T, be gpu.Backend, ops Ops, net *resnet.Net, cubes []float32, batch int) []float32 {
	t.Helper()
	if err := ops.Prepare(net, batch); err != nil {
		t.Fatal(err)
	}
	defer ops.Release()
	cl := CubeLen(net.Arch)
	n := len(cubes) / cl
	src, err := be.Alloc("cubes", int64(4*batch*cl))
	if err != nil {
		t.Fatal(err)
	}
	defer be.Free(src)
	probs := make([]float32, 2*n)
	for b0 := 0; b0 < n; b0 += batch {
		m := min(batch, n-b0)
		if err := be.Upload(src, 0, float32Bytes(cubes[b0*cl:(b0+m)*cl])); err != nil {
			t.Fatal(err)
		}
		if err := ops.Forward(probs[2*b0:], src, m); err != nil {
			t.Fatal(err)
		}
	}
	return probs
}

// TestCUDANetParity runs the calibrated networks of the golden
// configurations (depth 18 and 50, small and cellfinder's cubes) on the
// crop's cubes through the CPU engine and the CUDA one at each precision.
func TestCUDANetParity(t *testing.T) {
	c := openCUDA(t)
	sig, bg := cropVolumes(t)
	pts := candidates(t)
	for _, g := range netGolden(t) {
		m := netModel(t, g)
		cfg := configFor(g, g.Tag)
		s, err := OpenModel(cfg, Inputs{Signal: sig, Background: bg, Points: pts}, m)
		if err != nil {
			t.Fatal(err)
		}
		var cubes []float32
		if err := s.EachCube(context.Background(), nil, 2, 16, func(_ []int, cb []float32) error {
			cubes = append(cubes, cb...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		cpu := gpu.NewCPU()
		want := forwardOn(t, cpu, newCPUNet(cpu), s.Net, cubes, 16)
		for _, prec := range Precisions {
			ops, err := opsFor(c, OpsOptions{Precision: prec})
			if err != nil {
				t.Fatal(err)
			}
			got := forwardOn(t, c, ops, s.Net, cubes, 13)
			tol := cudaTolerance[prec]
			worst, sum := 0.0, 0.0
			for i := 1; i < len(got); i += 2 {
				d := math.Abs(float64(got[i] - want[i]))
				worst, sum = max(worst, d), sum+d
				if math.Abs(float64(want[i])-0.5) > tol.margin && (got[i] > got[i-1]) != (want[i] > want[i-1]) {
					t.Errorf("%s %s cube %d: CUDA p(cell) %v, CPU %v: another class", g.Tag, prec, i/2, got[i], want[i])
				}
			}
			mean := sum / float64(len(got)/2)
			t.Logf("%s %s: largest difference from the CPU %.3g, mean %.3g", g.Tag, prec, worst, mean)
			if worst > tol.max || mean > tol.mean {
				t.Errorf("%s %s: largest difference %.3g (tolerance %g), mean %.3g (%g)", g.Tag, prec, worst, tol.max, mean, tol.mean)
			}
		}
	}
}

// TestCUDAClassify runs whole classifications on the CUDA backend, with
// pin_memory off and on, and holds them against the CPU run.
func TestCUDAClassify(t *testing.T) {
	c := openCUDA(t)
	g := netGolden(t)[0]
	sig, bg := cropVolumes(t)
	in := Inputs{Signal: sig, Background: bg, Points: candidates(t)}
	m := netModel(t, g)
	ref := classify(t, configFor(g, g.Tag), in, gpu.NewCPU(), m)
	for _, pin := range []bool{false, true} {
		cfg := configFor(g, g.Tag)
		cfg.PinMemory = pin
		cfg.BatchSize = 7
		s, err := OpenModel(cfg, in, m)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Run(context.Background(), job.NewProgress("classify"), c, plan.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res.Candidates {
			w := ref.Candidates[i]
			if r.Class == points.Unknown != (w.Class == points.Unknown) || math.Abs(float64(r.P-w.P)) > 1e-5 {
				t.Errorf("pin %v: candidate %d %v, CPU %v", pin, i, r, w)
			}
		}
		t.Logf("pin %v: pinned %v, peak device %d bytes, plan %d", pin, res.Pinned, res.PeakDevice, res.Plan.PeakDevice)
		if res.PeakDevice > res.Plan.PeakDevice {
			t.Errorf("device peak %d above the plan's %d", res.PeakDevice, res.Plan.PeakDevice)
		}
	}
}
