//go:build cuda

package train

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/pipeline"
)

// The training step's products on CUDA (cuBLAS fp32) against the CPU
// engine's. Compile-checked, not yet run on a GPU. (This package links
// HDF5 for its weight files, so scripts/gpu-check.sh does not build
// it: run `go test -tags cuda ./processing/classify/train` on the GPU
// machine.)

func openCUDA(t *testing.T) *gpu.CUDABackend {
	t.Helper()
	c, err := gpu.OpenCUDA(0)
	if err != nil {
		t.Skipf("CUDA device 0 does not open (the products on CUDA need a GPU to compare with the CPU's): %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return c
}

// TestCUDATrainProducts: cuBLAS's products equal the CPU engine's within
// ProductTolerance, for square, ragged, strided (lda > k) and empty-depth
// shapes, and the device buffers are freed on Close.
func TestCUDATrainProducts(t *testing.T) {
	c := openCUDA(t)
	p, err := ProductsFor(c)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sh := range []struct{ m, n, k, lda int }{
		{1, 1, 1, 1}, {16, 16, 16, 16}, {37, 29, 53, 53}, {200, 64, 1000, 1000}, {50, 17, 9, 20}, {5, 4, 0, 0},
	} {
		a := make([]float32, max(1, (sh.m-1)*sh.lda+sh.k))
		b := make([]float32, sh.k*sh.n)
		for i := range a {
			a[i] = rng.Float32()*2 - 1
		}
		for i := range b {
			b[i] = rng.Float32()*2 - 1
		}
		got, want := make([]float32, sh.m*sh.n), make([]float32, sh.m*sh.n)
		for i := range got {
			got[i] = 42 // overwritten
		}
		if err := p.MatMul(sh.m, sh.n, sh.k, a, sh.lda, b, got, 1, &classify.MatMulBuffers{}); err != nil {
			t.Fatalf("%+v: %v", sh, err)
		}
		classify.MatMul(sh.m, sh.n, sh.k, a, sh.lda, b, want, 1, &classify.MatMulBuffers{})
		if err := gpu.CompareFloats("product", got, want, ProductTolerance(sh.m, sh.n, sh.k, a, sh.lda, b)); err != nil {
			t.Errorf("%+v: %v", sh, err)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if n := c.Stats().Current; n != 0 {
		t.Errorf("%d device bytes left after Close", n)
	}
}

// TestCUDATrainStep: one training step of the golden network
// (testdata/train_golden.json's depth and input, synth's weights) with
// its products on CUDA gives the CPU step's gradients of every trainable
// variable within 1e-3 of that variable's largest gradient, and its loss
// within 1e-5 relative. Each product is within ProductTolerance of the
// CPU's; what that becomes after the batch normalisations' backward is
// not derived here: 1e-3 is an allowance, not a bound, to be measured on
// a GPU.
func TestCUDATrainStep(t *testing.T) {
	c := openCUDA(t)
	b, err := os.ReadFile("testdata/train_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g stepGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	arch := resnet.Arch{Depth: g.Depth, Input: g.Input}
	w0 := synth.Weights(arch, nil)
	x := goldenCubes(arch, len(g.Labels))
	step := func(p Products) (StepResult, [][]float32) {
		m, err := New(arch, w0)
		if err != nil {
			t.Fatal(err)
		}
		m.SetProducts(p)
		r, err := m.Step(x, g.Labels, g.LearningRate)
		if err != nil {
			t.Fatal(err)
		}
		_, grads := m.trainables()
		return r, grads
	}
	p, err := ProductsFor(c)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	rc, gc := step(nil)
	rg, gg := step(p)
	if d := math.Abs(rg.Loss - rc.Loss); d > 1e-5*math.Abs(rc.Loss) {
		t.Errorf("loss on CUDA %.9g, on the CPU %.9g", rg.Loss, rc.Loss)
	}
	for i := range gc {
		peak := 0.0
		for _, v := range gc[i] {
			peak = math.Max(peak, math.Abs(float64(v)))
		}
		if err := gpu.CompareFloats("gradient", gg[i], gc[i], 1e-3*peak); err != nil {
			t.Errorf("trainable variable %d (%d values): %v", i, len(gc[i]), err)
		}
	}
}

// TestCUDATrainSelfCheck: the CUDA products pass the self-check a run
// makes before it trusts them, and the generic path
// (pipeline.Device.Checked) keeps the CUDA backend.
func TestCUDATrainSelfCheck(t *testing.T) {
	c := openCUDA(t)
	if err := selfCheck(c); err != nil {
		t.Fatalf("the CUDA products fail their self-check: %v", err)
	}
	d, warn, err := pipeline.Device{Backend: c}.Checked("train")
	if err != nil || warn != "" || d.Backend != gpu.Backend(c) {
		t.Fatalf("Checked: backend %T, warning %q, error %v; want the CUDA backend kept", d.Backend, warn, err)
	}
}
