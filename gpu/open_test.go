//go:build !cuda

package gpu

import (
	"strings"
	"testing"
)

// The default build has no CUDA: auto and cpu give the CPU backend, cuda
// is an error that says how to get it.
func TestOpenWithoutCUDA(t *testing.T) {
	if HasCUDA() {
		t.Fatal("HasCUDA() in a build without the cuda tag")
	}
	for _, c := range []Choice{Auto, CPU} {
		be, note, err := Open(c)
		if err != nil || be.Name() != "cpu" || !strings.HasPrefix(note, "backend: cpu") {
			t.Errorf("Open(%s) = %v, %q, %v", c, be, note, err)
		}
	}
	if _, _, err := Open(CUDA); err == nil || !strings.Contains(err.Error(), "make build-cuda") {
		t.Errorf("Open(cuda) in a CPU build: %v", err)
	}
	t.Setenv("VOXLAB_CUDA_FALLBACK", "cuInit: CUDA_ERROR_NO_DEVICE")
	if _, note, _ := Open(Auto); !strings.Contains(note, "CUDA build found no usable device: cuInit: CUDA_ERROR_NO_DEVICE") {
		t.Errorf("note after a hand-over from the CUDA build: %q", note)
	}
}
