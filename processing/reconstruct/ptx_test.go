package reconstruct

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
)

// TestCommittedPTX checks reconstruct.ptx as the CUDA backend will read
// it when cuda_ops.go loads it, so that a bad module is caught on
// machines without a GPU: it parses, is built for compute_70 and declares
// the kernel cuda_ops.go launches, under the pipeline's prefix.
func TestCommittedPTX(t *testing.T) {
	src, err := os.ReadFile("reconstruct.ptx")
	if err != nil {
		t.Fatalf("%v (run scripts/build-ptx.sh)", err)
	}
	names, err := gpu.CheckPTX(string(src), "recon_")
	if err != nil {
		t.Fatalf("reconstruct.ptx: %v", err)
	}
	if want := []string{"recon_backproject"}; !slices.Equal(names, want) {
		t.Errorf("reconstruct.ptx declares %v, want %v", names, want)
	}
}

// TestKernelTile: the block shape reconstruct.cu is written for is the
// one cuda_ops.go launches (reconTX, reconTY, kept in a file of its own
// so that the default build sees them too).
func TestKernelTile(t *testing.T) {
	src, err := os.ReadFile("reconstruct.cu")
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]string{}
	for _, line := range strings.Split(string(src), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "#define" {
			defs[f[1]] = f[2]
		}
	}
	for name, v := range map[string]int{"RECON_TX": reconTX, "RECON_TY": reconTY} {
		if defs[name] != strconv.Itoa(v) {
			t.Errorf("reconstruct.cu: #define %s %q, cuda_ops.go launches %d", name, defs[name], v)
		}
	}
}

// TestSelfCheckOnCPU: the self-check's CPU-against-CPU run passes (its
// inputs and tolerance are sane), and BackProject of the CPU ops is
// FBP's own back-projection: a whole FBP slice equals filterAll then the
// ops' BackProject over FBP's filtered projections, bit for bit.
func TestSelfCheckOnCPU(t *testing.T) {
	cpu := gpu.NewCPU()
	if err := selfCheck(cpu); err != nil {
		t.Fatal(err)
	}
	g := Geometry{Angles: evenAngles(45), Columns: 30, Center: 14.2, Pad: DiagonalPad(30), PadZeros: true, MaskRadius: 1, Filter: SheppLogan}
	f, err := NewFBP(g)
	if err != nil {
		t.Fatal(err)
	}
	sino := make([]float32, 45*30)
	for i := range sino {
		sino[i] = float32((i*7919)%97) / 97
	}
	want := make([]float32, 30*30)
	f.Slice(want, sino)
	s := f.shape()
	got, err := runBackProject(cpu, cpuOps{cpu}, s, f.filtered, f.trig())
	if err != nil {
		t.Fatal(err)
	}
	if err := gpu.CompareBits("back-projection", volume.Bytes(got), volume.Bytes(want), 4); err != nil {
		t.Fatal(err)
	}
}
