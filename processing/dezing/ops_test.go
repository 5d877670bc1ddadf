package dezing

import (
	"slices"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
)

// otherBackend is a device this pipeline has no kernels for.
type otherBackend struct{ gpu.Backend }

func (otherBackend) Name() string { return "other" }

// TestOpsFor: a CPU backend gets the CPU kernels, the dry run's backend
// ops that check and compute nothing with the scratch of the backend it
// wraps, and any other backend an error naming it and the pipeline,
// which Plan and Run return.
func TestOpsFor(t *testing.T) {
	cpu := gpu.NewCPUWorkers(2)
	ops, err := OpsFor(cpu)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ops.(cpuOps); !ok {
		t.Errorf("the CPU backend's ops are %T", ops)
	}
	dry, err := OpsFor(dryBackend{cpu})
	if err != nil {
		t.Fatal(err)
	}
	p := MedianParams{Planes: 3, Rows: 4, Cols: 5, N: 3, Kernel: 3, Dif: 1}
	if got, want := dry.MedianScratch(p), ops.MedianScratch(p); got != want || want == 0 {
		t.Errorf("dry median scratch %d, the CPU's %d", got, want)
	}
	in, _ := cpu.Alloc("in", p.SrcBytes())
	for i := range in.HostBytes() {
		in.HostBytes()[i] = byte(i)
	}
	out, _ := cpu.Alloc("out", p.DstBytes())
	scr, _ := cpu.Alloc("scratch", dry.MedianScratch(p))
	if err := dry.Median(out, in, scr, p); err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(out.HostBytes(), func(b byte) bool { return b != 0 }) {
		t.Error("the dry median wrote its output")
	}
	small, _ := cpu.Alloc("small", p.DstBytes()-1)
	if err := dry.Median(small, in, scr, p); err == nil {
		t.Error("the dry median took an output too small")
	}

	_, err = OpsFor(otherBackend{cpu})
	if err == nil || !strings.Contains(err.Error(), "other") || !strings.Contains(err.Error(), "dezing") {
		t.Errorf("ops of a backend without dezinging kernels: %v", err)
	}
	s := Shapes{Projections: volume.Info{Shape: [3]int{8, 16, 16}, DType: volume.Uint16}}
	if _, perr := Plan(otherBackend{cpu}, s, DefaultConfig()); perr == nil || perr.Error() != err.Error() {
		t.Errorf("Plan on a backend without dezinging kernels: %v, want %v", perr, err)
	}
}
