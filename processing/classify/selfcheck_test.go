package classify

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/pipeline"
)

// fakeDevice is a backend other than the CPU with host buffers, whose
// network ops the test chooses (through cudaOpsFor, as a run gets them).
type fakeDevice struct {
	*gpu.CPUBackend
	name  string
	fault string
}

func (f *fakeDevice) Name() string { return f.name }

// faultyNet is the CPU's network with a fault: p(cell) of the first
// cube 1e-4 off at fp32 (within tf32's tolerance, beyond fp32's), or
// an error from Prepare.
type faultyNet struct {
	Ops
	fault, precision string
}

func (f faultyNet) Prepare(net *resnet.Net, batch int) error {
	if f.fault == "error" {
		return errors.New("CUBLAS_STATUS_NOT_INITIALIZED")
	}
	return f.Ops.Prepare(net, batch)
}

func (f faultyNet) Forward(dst []float32, src *gpu.Buffer, n int) error {
	err := f.Ops.Forward(dst, src, n)
	if f.fault == "wrong" && f.precision == "fp32" {
		dst[1] += 1e-4
	}
	return err
}

// TestSelfCheckCatchesAFaultyDevice: the network's self-check passes the
// CPU's ops on another backend and fails a probability 1e-4 off at fp32
// and an error of Prepare, naming the op; Device.Checked then runs on
// the CPU. Its probabilities are not degenerate.
func TestSelfCheckCatchesAFaultyDevice(t *testing.T) {
	prev := cudaOpsFor
	cudaOpsFor = func(be gpu.Backend, opt OpsOptions) (Ops, bool, error) {
		if f, ok := be.(*fakeDevice); ok {
			return faultyNet{newCPUNet(f.CPUBackend), f.fault, opt.Precision}, true, nil
		}
		if prev != nil {
			return prev(be, opt)
		}
		return nil, false, nil
	}
	t.Cleanup(func() { cudaOpsFor = prev })

	net, err := resnet.Build(checkArch, synth.Weights(checkArch, nil))
	if err != nil {
		t.Fatal(err)
	}
	cubes := make([]float32, checkCubes*CubeLen(checkArch))
	for i := range cubes {
		cubes[i] = float32(i%7) / 7
	}
	cpu := gpu.NewCPU()
	probs, err := checkForwardOn(cpu, newCPUNet(cpu), net, cubes)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range probs {
		if !(p > 1e-6 && p < 1-1e-6) || math.IsNaN(float64(p)) {
			t.Errorf("probability %d of the check's network is %g: it tests little", i, p)
		}
	}

	for _, tc := range []struct{ fault, says string }{
		{"", ""},
		{"wrong", "forward (fp32) probabilities differs from the CPU's: largest difference 0.0001 at value 1"},
		{"error", "forward (fp32): CUBLAS_STATUS_NOT_INITIALIZED"},
	} {
		f := &fakeDevice{CPUBackend: gpu.NewCPU(), name: "fake " + t.Name() + " " + tc.fault, fault: tc.fault}
		got, warn, err := pipeline.Device{Backend: f}.Checked("classify")
		if err != nil {
			t.Fatal(err)
		}
		if tc.fault == "" {
			if got.Backend != gpu.Backend(f) || warn != "" {
				t.Errorf("faithful ops: backend %T, warning %q", got.Backend, warn)
			}
			continue
		}
		if _, ok := got.Backend.(*gpu.CPUBackend); !ok || !strings.Contains(warn, "classify: the "+f.name+" kernels failed their self-check") || !strings.Contains(warn, tc.says) {
			t.Errorf("faulty %s: backend %T, warning %q; want the CPU and a warning saying %q", tc.fault, got.Backend, warn, tc.says)
		}
	}
}
