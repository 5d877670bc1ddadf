package distance

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/pipeline"
)

// fakeDevice is a backend other than the CPU with host buffers, whose
// distance ops the test chooses (through cudaOpsFor, as a run gets them).
type fakeDevice struct {
	*gpu.CPUBackend
	name string
	ops  Ops
}

func (f *fakeDevice) Name() string { return f.name }

// faultyOps are the CPU's ops with Gram off by 1e-6 relative, or Metric
// panicking.
type faultyOps struct {
	cpuOps
	op string
}

func (f faultyOps) Gram(dst, a, b, segs *gpu.Buffer, g GramShape) error {
	if err := f.cpuOps.Gram(dst, a, b, segs, g); err != nil || f.op != "gram" {
		return err
	}
	v := make([]byte, 8)
	if err := f.be.Download(v, dst, 16); err != nil {
		return err
	}
	x := math.Float64frombits(binary.NativeEndian.Uint64(v))
	binary.NativeEndian.PutUint64(v, math.Float64bits(x*(1+1e-6)+1e-6))
	return f.be.Upload(dst, 16, v)
}

func (f faultyOps) Metric(dst, gram, a, b *gpu.Buffer, m MetricShape) error {
	if f.op == "metric" && m.Kind == KindBioEM {
		panic(errors.New("index out of range [7] with length 7"))
	}
	return f.cpuOps.Metric(dst, gram, a, b, m)
}

// TestSelfCheckCatchesAFaultyDevice: the distance self-check passes the
// CPU's ops on another backend, and fails a Gram 1e-6 off (above the
// 1e-9 tolerance) and a Metric that panics, naming the op; Device.Checked
// then runs on the CPU. Its metrics are finite numbers, so the tolerance
// means something.
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
	_, metrics, err := runCheck(cpu, cpuOps{cpu}, newCheckCase())
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range metrics {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("metric value %d of the check is %g", i, v)
		}
	}
	for _, tc := range []struct{ op, says string }{
		{"", ""},
		{"gram", "gram differs from the CPU's: largest difference"},
		{"metric", "metric 4: panic: index out of range [7] with length 7"},
	} {
		c := gpu.NewCPU()
		f := &fakeDevice{CPUBackend: c, name: "fake " + t.Name() + " " + tc.op, ops: faultyOps{cpuOps{c}, tc.op}}
		got, warn, err := pipeline.Device{Backend: f}.Checked("distance")
		if err != nil {
			t.Fatal(err)
		}
		if tc.op == "" {
			if got.Backend != gpu.Backend(f) || warn != "" {
				t.Errorf("faithful ops: backend %T, warning %q", got.Backend, warn)
			}
			continue
		}
		if _, ok := got.Backend.(*gpu.CPUBackend); !ok || !strings.Contains(warn, "distance: the "+f.name+" kernels failed their self-check") || !strings.Contains(warn, tc.says) {
			t.Errorf("faulty %s: backend %T, warning %q; want the CPU and a warning saying %q", tc.op, got.Backend, warn, tc.says)
		}
	}
}
