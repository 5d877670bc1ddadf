//go:build cuda

package reconstruct

import (
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/pipeline"
)

// TestCUDAReconSelfCheck: the CUDA back-projection passes the self-check
// a run makes before it trusts it (selfcheck.go), and the generic path
// (pipeline.Device.Checked) keeps the CUDA backend. Compile-checked, not
// yet run on a GPU.
func TestCUDAReconSelfCheck(t *testing.T) {
	c, err := gpu.OpenCUDA(0)
	if err != nil {
		t.Skipf("CUDA device 0 does not open (the self-check compares the CUDA back-projection with the CPU's): %v", err)
	}
	defer c.Close()
	if err := selfCheck(c); err != nil {
		t.Fatalf("the CUDA kernels fail their self-check: %v", err)
	}
	d, warn, err := pipeline.Device{Backend: c}.Checked("reconstruct")
	if err != nil || warn != "" || d.Backend != gpu.Backend(c) {
		t.Fatalf("Checked: backend %T, warning %q, error %v; want the CUDA backend kept", d.Backend, warn, err)
	}
}
