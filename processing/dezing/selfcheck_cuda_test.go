//go:build cuda

package dezing

import (
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/pipeline"
)

// TestCUDADezingSelfCheck: the CUDA kernels pass the self-check a run
// makes before it trusts them (selfcheck.go), and the generic path
// (pipeline.Device.Checked) keeps the CUDA backend.
func TestCUDADezingSelfCheck(t *testing.T) {
	c := openCUDA(t)
	if err := selfCheck(c); err != nil {
		t.Fatalf("the CUDA kernels fail their self-check: %v", err)
	}
	d, warn, err := pipeline.Device{Backend: c}.Checked("dezing")
	if err != nil || warn != "" || d.Backend != gpu.Backend(c) {
		t.Fatalf("Checked: backend %T, warning %q, error %v; want the CUDA backend kept", d.Backend, warn, err)
	}
}
