package train

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/classify/resnet"
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
