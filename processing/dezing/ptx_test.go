package dezing

import (
	"os"
	"slices"
	"testing"

	"github.com/voxlab/voxlab/gpu"
)

// TestCommittedPTX checks dezing.ptx as the CUDA backend will read it when
// the ops load it, so that a bad module is caught on machines without a
// GPU, and that it declares the kernels cuda_ops.go launches.
func TestCommittedPTX(t *testing.T) {
	src, err := os.ReadFile("dezing.ptx")
	if err != nil {
		t.Fatal(err)
	}
	names, err := gpu.CheckPTX(string(src), "dezing_")
	if err != nil {
		t.Fatalf("dezing.ptx: %v", err)
	}
	for _, k := range []string{"dezing_median_u16", "dezing_median_f32", "dezing_mean_u16", "dezing_mean_f32",
		"dezing_fmedian_u16", "dezing_fmedian_f32", "dezing_flat_u16", "dezing_flat_f32"} {
		if !slices.Contains(names, k) {
			t.Errorf("dezing.ptx declares no kernel %s (it declares %v)", k, names)
		}
	}
}
