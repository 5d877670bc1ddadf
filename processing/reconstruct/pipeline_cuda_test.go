//go:build cuda

package reconstruct

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
)

// TestCUDAReconRun: `voxlab reconstruct` of the example scan on the CUDA
// backend back-projects there (its report says so, its plan counts the
// device buffers) and writes the CPU run's slices within 1e-3 of their
// peak. That is an allowance for the plumbing, not the kernel's bound:
// the bound is per slice, BackProjectTolerance (for the example's 32
// columns padded to the diagonal, 46, and 24 angles, 1.3e-4 of the
// largest filtered value, which the run does not expose), and
// TestCUDAReconBackProject holds the kernel to it. Gridrec on CUDA
// computes on the CPU and says so. Compile-checked, not yet run on a
// GPU.
func TestCUDAReconRun(t *testing.T) {
	c := openCUDA(t)
	dir := t.TempDir()
	proj, darks, flats, err := defaultExample.write(dir)
	if err != nil {
		t.Fatal(err)
	}
	run := func(d pipeline.Device, alg, out string) *pipeline.Report {
		t.Helper()
		v := Spec.Defaults()
		v["darks"], v["flats"], v["algorithm"] = darks, flats, alg
		j, err := Spec.Open(pipeline.Request{Args: []string{proj, out}, Values: v})
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		rep, err := j.Run(context.Background(), job.NewProgress("reconstruct"), d)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	budget := plan.Budget{Host: 1 << 30, Device: 1 << 30}
	cpuOut, gpuOut := filepath.Join(dir, "cpu.npy"), filepath.Join(dir, "cuda.npy")
	run(pipeline.Device{Budget: plan.Budget{Host: 1 << 30, Shared: true}}, "fbp", cpuOut)
	rep := run(pipeline.Device{Backend: c, Budget: budget}, "fbp", gpuOut)
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "back-projection ran on cuda") {
		t.Errorf("the CUDA run's notes do not say the back-projection ran on CUDA: %q", rep.Notes)
	}
	want, _ := readFloats(t, cpuOut)
	got, _ := readFloats(t, gpuOut)
	if d, peak := maxAbsDiff(got, f64(want)); d > 1e-3*peak || peak < 0.01 {
		t.Errorf("the CUDA run's slices differ from the CPU's by %.3g (peak %.3g)", d, peak)
	}
	rep = run(pipeline.Device{Backend: c, Budget: budget}, "gridrec", filepath.Join(dir, "gridrec.npy"))
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "gridrec has CPU kernels only") {
		t.Errorf("gridrec on CUDA does not say it ran on the CPU: %q", rep.Notes)
	}
	if n := c.Stats().Current; n != 0 {
		t.Errorf("%d device bytes left allocated after the runs", n)
	}
}
