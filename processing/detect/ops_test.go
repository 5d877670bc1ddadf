package detect

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
)

// TestCommittedPTX checks detect.ptx as the CUDA backend will read it
// when cuda_ops.go loads it, so a bad module is caught on machines
// without a GPU, and holds its kernels against the source's: every
// kernel detect.cu defines is in the module, and cuda_ops.go launches
// exactly those.
func TestCommittedPTX(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	got, err := gpu.CheckPTX(read("detect.ptx"), "detect_")
	if err != nil {
		t.Fatalf("detect.ptx: %v", err)
	}
	names := func(re, src string) []string {
		var out []string
		for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(src, -1) {
			out = append(out, m[1])
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	defined := names(`extern "C" __global__ void (\w+)\(`, read("detect.cu"))
	launched := names(`"(detect_\w+)"`, read("cuda_ops.go"))
	slices.Sort(got)
	if len(defined) == 0 || !slices.Equal(got, defined) {
		t.Errorf("detect.ptx has kernels %v, detect.cu defines %v: run go generate", got, defined)
	}
	if !slices.Equal(launched, defined) {
		t.Errorf("cuda_ops.go launches %v, detect.cu defines %v", launched, defined)
	}
}

// otherBackend is a backend detection has no kernels for.
type otherBackend struct{ gpu.Backend }

func (otherBackend) Name() string { return "tpu" }

func TestOpsForOtherBackend(t *testing.T) {
	if _, err := opsFor(otherBackend{}); err == nil || !strings.Contains(err.Error(), "tpu") || !strings.Contains(err.Error(), "detect") {
		t.Errorf("opsFor(a tpu backend) = %v, want an error naming the backend and the pipeline", err)
	}
	ops, err := opsFor(gpu.NewCPU())
	if _, ok := ops.(cpuOps); !ok || err != nil {
		t.Errorf("opsFor(cpu) = %T, %v", ops, err)
	}
}

// TestCPUOpsBadBuffers: the CPU operations refuse a buffer too small for
// the call, a negative offset and a freed buffer with an error naming the
// buffer, rather than crash.
func TestCPUOpsBadBuffers(t *testing.T) {
	g := readGolden(t, "plane16")
	p := g.params()
	be := gpu.NewCPU()
	ops := cpuOps{be}
	alloc := func(label string, n int64) *gpu.Buffer {
		b, err := be.Alloc(label, n)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ty, tx := p.BrainTiles()
	src, wk := alloc("src", int64(2*g.H*g.W)), alloc("work", WorkLayout(&p).Size)
	mk, tl := alloc("mask", int64(g.H*g.W)), alloc("tiles", int64(ty*tx))
	if err := prepareWork(be, wk, &p); err != nil {
		t.Fatal(err)
	}
	if err := ops.Plane(src, 0, wk, mk, 0, tl, 0, &p); err != nil {
		t.Fatalf("good buffers: %v", err)
	}
	small := alloc("small mask", int64(g.H*g.W-1))
	gone := alloc("gone", int64(2*g.H*g.W))
	be.Free(gone)
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"small mask", func() error { return ops.Plane(src, 0, wk, small, 0, tl, 0, &p) }, `"small mask": bytes [0,`},
		{"negative offset", func() error { return ops.Plane(src, 0, wk, mk, -2, tl, 0, &p) }, `"mask": bytes [-2,`},
		{"freed source", func() error { return ops.Plane(gone, 0, wk, mk, 0, tl, 0, &p) }, `buffer "gone" was freed`},
		{"freed centres", func() error {
			k := BallKernel(3, 3)
			bp := ballParams(Ball{XY: 3, Z: 3, Overlap: 0.6}, k, g.H, g.W, 3)
			bp.Count = 1
			w := alloc("weights", int64(4*len(k.W)))
			return ops.Ball(gone, alloc("masks", int64(3*g.H*g.W)), nil, w, &bp)
		}, `ball filter: centres to buffer "gone" was freed`},
	} {
		if err := tc.run(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}
