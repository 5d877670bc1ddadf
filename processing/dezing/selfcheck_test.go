package dezing

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// fakeDevice is a backend other than the CPU (as a CUDA backend is), with
// host buffers, whose dezinging ops the test chooses: what the
// self-check sees through OpsFor when cudaOpsFor claims it.
type fakeDevice struct {
	*gpu.CPUBackend
	name   string
	ops    Ops
	closed bool
}

func (f *fakeDevice) Name() string { return f.name }

func (f *fakeDevice) Close() error { f.closed = true; return f.CPUBackend.Close() }

// faultyOps are the CPU's ops with one op broken: it gives a wrong
// value, returns an error or panics.
type faultyOps struct {
	cpuOps
	op, fault string
}

var errLaunch = errors.New("CUDA_ERROR_LAUNCH_FAILED")

// breaks runs the fault of op, or reports that op is not broken; wrong
// changes the first 4 bytes of dst after the CPU op has run.
func (f faultyOps) breaks(op string, dst *gpu.Buffer, cpu func() error) error {
	if op != f.op {
		return cpu()
	}
	switch f.fault {
	case "error":
		return errLaunch
	case "panic":
		panic("kernel argument out of range")
	}
	if err := cpu(); err != nil {
		return err
	}
	b := make([]byte, 4)
	if err := f.be.Download(b, dst, 0); err != nil {
		return err
	}
	b[1]++
	return f.be.Upload(dst, 0, b)
}

func (f faultyOps) Median(dst, src, scr *gpu.Buffer, p MedianParams) error {
	return f.breaks("median", dst, func() error { return f.cpuOps.Median(dst, src, scr, p) })
}

func (f faultyOps) Reduce(dst, src, scr *gpu.Buffer, p ReduceParams) error {
	return f.breaks("reduce", dst, func() error { return f.cpuOps.Reduce(dst, src, scr, p) })
}

func (f faultyOps) FlatField(dst, src, dark, flat, scr *gpu.Buffer, p FlatFieldParams) (int64, error) {
	var n int64
	err := f.breaks("flat-field", dst, func() (err error) {
		n, err = f.cpuOps.FlatField(dst, src, dark, flat, scr, p)
		return err
	})
	return n, err
}

// withFakeDevice makes cudaOpsFor claim fake devices, for the test.
func withFakeDevice(t *testing.T) {
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
}

func fakeDeviceOf(t *testing.T, name string, ops func(*gpu.CPUBackend) Ops) (*fakeDevice, pipeline.Device) {
	cpu := gpu.NewCPU()
	// The name is the test's: Verify remembers its outcome per name.
	f := &fakeDevice{CPUBackend: cpu, name: "fake " + t.Name() + " " + name, ops: ops(cpu)}
	b := plan.Budget{Shared: true, Host: 2 << 30, HostSource: "test"}
	return f, pipeline.Device{Backend: f, Budget: b, BudgetFor: func(gpu.DeviceInfo) (plan.Budget, error) { return b, nil }}
}

// TestSelfCheckFallsBackToTheCPU: a device whose dezinging ops give a
// wrong value, fail or panic fails the self-check through the selection
// path a run takes (Device.Checked, OpsFor, cudaOpsFor): the run gets a
// CPU backend, a warning naming the op and the difference, and the CPU's
// results; a faithful device keeps its backend.
func TestSelfCheckFallsBackToTheCPU(t *testing.T) {
	withFakeDevice(t)
	in := testScan(5, volume.Uint16, 9, 3, 4, 10, 12)
	cfg := DefaultConfig()
	cfg.FlatField, cfg.MinusLog, cfg.Block = true, true, 4
	want, _ := runAll(t, gpu.NewCPU(), cfg, in)

	f, d := fakeDeviceOf(t, "faithful", func(c *gpu.CPUBackend) Ops { return cpuOps{c} })
	got, warn, err := d.Checked("dezing")
	if err != nil || warn != "" || got.Backend != gpu.Backend(f) || f.closed {
		t.Fatalf("faithful ops: backend %T, warning %q, error %v, closed %v; want the device kept, no warning", got.Backend, warn, err, f.closed)
	}

	for _, tc := range []struct {
		op, fault string
		says      []string
	}{
		{"median", "wrong", []string{"median uint16 differs from the CPU's", "1 of 126 elements differ, the first at element 0", "bit for bit"}},
		{"reduce", "error", []string{"reduce (mean) uint16", "CUDA_ERROR_LAUNCH_FAILED"}},
		{"flat-field", "panic", []string{"flat-field uint16", "panic: kernel argument out of range"}},
		{"flat-field", "wrong", []string{"flat-field uint16 differs from the CPU's"}},
	} {
		name := tc.fault + " " + tc.op
		f, d := fakeDeviceOf(t, name, func(c *gpu.CPUBackend) Ops { return faultyOps{cpuOps{c}, tc.op, tc.fault} })
		if tc.fault == "wrong" {
			// The fault shows in a run that trusts the device.
			if bad, _ := runAll(t, f, cfg, in); bytes.Equal(bad.data, want.data) {
				t.Fatalf("%s: a run on the faulty ops gives the CPU's projections: the fault is not one", name)
			}
		}
		got, warn, err := d.Checked("dezing")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, ok := got.Backend.(*gpu.CPUBackend); !ok || !f.closed {
			t.Errorf("%s: the run gets a %T backend (faulty one closed: %v), want the CPU", name, got.Backend, f.closed)
			continue
		}
		for _, s := range append(tc.says, "dezing: the "+f.name+" kernels failed their self-check", "computes on the CPU") {
			if !strings.Contains(warn, s) {
				t.Errorf("%s: warning %q does not say %q", name, warn, s)
			}
		}
		if !strings.Contains(got.Note, "backend: cpu") || got.Budget.Host != d.Budget.Host {
			t.Errorf("%s: note %q, budget %+v: want the CPU's, from BudgetFor", name, got.Note, got.Budget)
		}
		out, _ := runAll(t, got.Backend, cfg, in)
		if !bytes.Equal(out.data, want.data) {
			t.Errorf("%s: the run after the fallback differs from the CPU's", name)
		}
		// The first outcome is the process's: asked again, the same.
		if _, again, _ := (pipeline.Device{Backend: f}).Checked("dezing"); again != warn {
			t.Errorf("%s: a second check says %q, the first %q", name, again, warn)
		}
	}
}
