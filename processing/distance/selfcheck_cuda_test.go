//go:build cuda

package distance

import (
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/pipeline"
)

// TestCUDADistSelfCheck: the CUDA kernels pass the self-check a run
// makes before it trusts them (selfcheck.go), and the generic path
// (pipeline.Device.Checked) keeps the CUDA backend.
func TestCUDADistSelfCheck(t *testing.T) {
	c, err := gpu.OpenCUDA(0)
	if err != nil {
		t.Skipf("CUDA device 0 does not open: %v", err)
	}
	defer c.Close()
	if err := selfCheck(c); err != nil {
		t.Fatalf("the CUDA kernels fail their self-check: %v", err)
	}
	d, warn, err := pipeline.Device{Backend: c}.Checked("distance")
	if err != nil || warn != "" || d.Backend != gpu.Backend(c) {
		t.Fatalf("Checked: backend %T, warning %q, error %v; want the CUDA backend kept", d.Backend, warn, err)
	}
}
