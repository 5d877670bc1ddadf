package train

import (
	"testing"

	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// BenchmarkStep50 times one training step of cellfinder's default
// network (50 layers, 50x50x20 two-channel cubes) on a batch of 4;
// cubes/s is the training throughput, cpu-s/op the CPU time of a step
// (all threads; with the wall time, how well the step uses them).
func BenchmarkStep50(b *testing.B) {
	arch := resnet.Arch{Depth: 50, Input: resnet.DefaultInput}
	m, err := New(arch, Init(arch, 1))
	if err != nil {
		b.Fatal(err)
	}
	const n = 4
	l := classify.CubeLen(arch)
	x := make([]float32, n*l)
	for i := range x {
		x[i] = float32(synth.Uniform("bench", 0, i))
	}
	labels := []int{0, 1, 0, 1}
	// One step untimed, as the torch side warms up: the first step
	// allocates the model's buffers and Adam's moments (some 1.2 GB, each
	// page faulted in), which the steps after it reuse.
	if _, err := m.Step(x, labels, 1e-4); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := cpuSeconds()
	for range b.N {
		if _, err := m.Step(x, labels, 1e-4); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "cubes/s")
	b.ReportMetric((cpuSeconds()-start)/float64(b.N), "cpu-s/op")
}
