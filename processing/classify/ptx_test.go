package classify

import (
	"os"
	"reflect"
	"testing"

	"github.com/voxlab/voxlab/gpu"
)

// TestCommittedPTX checks classify.ptx as the CUDA backend will read it,
// so that a bad module is caught on machines without a GPU: it parses,
// is built for compute_70 and declares the kernels cuda_ops.go launches,
// under the pipeline's prefix.
func TestCommittedPTX(t *testing.T) {
	src, err := os.ReadFile("classify.ptx")
	if err != nil {
		t.Fatalf("%v (run scripts/build-ptx.sh)", err)
	}
	names, err := gpu.CheckPTX(string(src), "classify_")
	if err != nil {
		t.Fatalf("classify.ptx: %v", err)
	}
	want := []string{"classify_im2col", "classify_epilogue", "classify_maxpool", "classify_gap", "classify_dense", "classify_to_half"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("classify.ptx declares %v, want %v", names, want)
	}
}
