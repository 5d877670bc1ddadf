package train

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
)

// failingProducts fail from their after-th product on.
type failingProducts struct{ calls, after int }

func (f *failingProducts) MatMul(m, n, k int, a []float32, lda int, b, c []float32, workers int, buf *classify.MatMulBuffers) error {
	f.calls++
	if f.calls > f.after {
		return errors.New("device lost")
	}
	classify.MatMul(m, n, k, a, lda, b, c, workers, buf)
	return nil
}

func (f *failingProducts) Close() error { return nil }

// TestProductsInterface: a step through the Products interface with the
// CPU's products (as ProductsFor gives them for the CPU backend) is the
// default step bit for bit; a product that fails makes Step return its
// error; the self-check passes on the CPU.
func TestProductsInterface(t *testing.T) {
	arch := resnet.Arch{Depth: 18, Input: [4]int{8, 8, 4, 2}}
	w0 := synth.Weights(arch, nil)
	x := goldenCubes(arch, 2)
	labels := []int{0, 1}
	step := func(p Products) ([]float32, error) {
		m, err := New(arch, w0)
		if err != nil {
			t.Fatal(err)
		}
		if p != nil {
			m.SetProducts(p)
		}
		if _, err := m.Step(x, labels, 1e-3); err != nil {
			return nil, err
		}
		var all []float32
		_, grads := m.trainables()
		for _, g := range grads {
			all = append(all, g...)
		}
		w := m.Weights()
		for _, l := range slices.Sorted(maps.Keys(w)) {
			for _, v := range slices.Sorted(maps.Keys(w[l])) {
				all = append(all, w[l][v].Data...)
			}
		}
		return all, nil
	}
	want, err := step(nil)
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := ProductsFor(gpu.NewCPU())
	if err != nil {
		t.Fatal(err)
	}
	got, err := step(cpu)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Error("a step with the CPU's Products differs from the default step (gradients, updated weights, moving statistics)")
	}
	if _, err := step(&failingProducts{after: 5}); err == nil || !strings.Contains(err.Error(), "device lost") {
		t.Errorf("a failing product: Step returned %v, want its error", err)
	}
	if err := selfCheck(gpu.NewCPU()); err != nil {
		t.Errorf("self-check on the CPU: %v", err)
	}
}

// otherBackend is a backend that is not the CPU's, for which the
// default build has no products.
type otherBackend struct{ *gpu.CPUBackend }

func (otherBackend) Name() string { return "other" }

// TestOtherBackend: on a backend other than the CPU a run's plan counts
// the device products' buffers, and a build without products for it
// refuses the run, naming the pipeline and the backend.
func TestOtherBackend(t *testing.T) {
	dir := t.TempDir()
	y, err := WriteExampleCubes(dir, 3, 20, 20, 8)
	if err != nil {
		t.Fatal(err)
	}
	v := Spec.Defaults()
	v["network-depth"], v["epochs"], v["cube-size"], v["no-augment"] = "18", 1, []float64{20, 20, 8}, true
	v["test-fraction"], v["no-save-checkpoints"] = 0.34, true
	j, err := Spec.Open(pipeline.Request{Args: []string{y, filepath.Join(dir, "trained")}, Values: v, Batch: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	d := pipeline.Device{Backend: otherBackend{gpu.NewCPU()}, Budget: plan.Budget{Host: 4 << 30, Device: 1 << 30}}
	pl, err := j.Plan(d)
	if err != nil {
		t.Fatal(err)
	}
	if pl.PeakDevice == 0 {
		t.Error("the plan on another backend counts no device bytes")
	}
	cpuPlan, err := j.Plan(pipeline.Device{Backend: gpu.NewCPU(), Budget: plan.Budget{Host: 4 << 30, Shared: true}})
	if err != nil {
		t.Fatal(err)
	}
	if cpuPlan.PeakDevice != 0 {
		t.Errorf("the CPU plan counts %d device bytes", cpuPlan.PeakDevice)
	}
	if _, err := j.Run(context.Background(), job.NewProgress("train"), d); err == nil || !strings.Contains(err.Error(), "train: no kernels for the other backend") {
		t.Errorf("a run on a backend without products: %v", err)
	}
}
