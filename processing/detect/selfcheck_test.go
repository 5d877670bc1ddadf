package detect

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/pipeline"
)

// fakeDevice is a backend other than the CPU with host buffers, whose
// detection ops the test chooses (through cudaOpsFor, as a run gets them).
type fakeDevice struct {
	*gpu.CPUBackend
	name string
	ops  Ops
}

func (f *fakeDevice) Name() string { return f.name }

// faultyOps are the CPU's ops with Plane or Ball broken.
type faultyOps struct {
	cpuOps
	op string
}

func (f faultyOps) Plane(src *gpu.Buffer, srcOff int64, work, mask *gpu.Buffer, maskOff int64, tiles *gpu.Buffer, tilesOff int64, p *PlaneParams) error {
	if err := f.cpuOps.Plane(src, srcOff, work, mask, maskOff, tiles, tilesOff, p); err != nil || f.op != "plane" {
		return err
	}
	b := make([]byte, 1)
	if err := f.be.Download(b, mask, maskOff+5); err != nil {
		return err
	}
	return f.be.Upload(mask, maskOff+5, []byte{1 - b[0]})
}

func (f faultyOps) Ball(dst, masks, tiles, weights *gpu.Buffer, p *BallParams) error {
	if f.op == "ball" {
		return errors.New("CUDA_ERROR_ILLEGAL_ADDRESS")
	}
	return f.cpuOps.Ball(dst, masks, tiles, weights, p)
}

// TestSelfCheckCatchesAFaultyDevice: detection's self-check passes the
// CPU's ops on another backend and fails ops with a wrong mask value or
// an error, naming the op; Device.Checked then runs on the CPU. Its fixed
// input tests something: a mask and centres with both values.
func TestSelfCheckCatchesAFaultyDevice(t *testing.T) {
	prev := cudaOpsFor
	cudaOpsFor = func(be gpu.Backend) (Ops, bool, error) {
		if f, ok := be.(*fakeDevice); ok {
			return f.ops, true, nil
		}
		if prev != nil {
			return prev(be)
		}
		return nil, false, nil
	}
	t.Cleanup(func() { cudaOpsFor = prev })

	cpu := gpu.NewCPU()
	out, err := runSelfCheckOp(cpu, cpuOps{cpu}, selfCheckPlane)
	if err != nil {
		t.Fatal(err)
	}
	mask := out[4]
	if n := bytes.Count(mask, []byte{1}); n == 0 || n == len(mask) {
		t.Errorf("the check's mask has %d of %d set: it tests little", n, len(mask))
	}
	if out, err = runSelfCheckOp(cpu, cpuOps{cpu}, selfCheckBall); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(out[0], []byte{1}); n == 0 || n == len(out[0]) {
		t.Errorf("the check's ball has %d of %d centres: it tests little", n, len(out[0]))
	}

	for _, tc := range []struct{ op, says string }{
		{"", ""},
		{"plane", "plane mask differs from the CPU's: 1 of 960 elements differ, the first at element 5"},
		{"ball", "ball: CUDA_ERROR_ILLEGAL_ADDRESS"},
	} {
		c := gpu.NewCPU()
		f := &fakeDevice{CPUBackend: c, name: "fake " + t.Name() + " " + tc.op, ops: faultyOps{cpuOps{c}, tc.op}}
		got, warn, err := pipeline.Device{Backend: f}.Checked("detect")
		if err != nil {
			t.Fatal(err)
		}
		if tc.op == "" {
			if got.Backend != gpu.Backend(f) || warn != "" {
				t.Errorf("faithful ops: backend %T, warning %q", got.Backend, warn)
			}
			continue
		}
		if _, ok := got.Backend.(*gpu.CPUBackend); !ok || !strings.Contains(warn, "detect: the "+f.name+" kernels failed their self-check") || !strings.Contains(warn, tc.says) {
			t.Errorf("faulty %s: backend %T, warning %q; want the CPU and a warning saying %q", tc.op, got.Backend, warn, tc.says)
		}
	}
}
