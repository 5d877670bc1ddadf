//go:build cuda

package detect

import (
	"slices"
	"testing"
)

// TestCUDATasksMergeToWhole: on the CUDA backend too, the merged
// candidates equal the whole run's.
func TestCUDATasksMergeToWhole(t *testing.T) {
	be := openCUDA(t)
	v, cfg := splitScene(t)
	whole := detectAll(t, be, cfg, v)
	if whole.Split == 0 {
		t.Fatal("the scene splits no cluster on CUDA: it tests too little")
	}
	for _, n := range []int{2, 5, 13, 60} {
		got, _ := runSplitDetect(t, be, cfg, v, n)
		if !slices.Equal(got.Candidates, whole.Candidates) || got.Structures != whole.Structures || got.Split != whole.Split {
			t.Errorf("%d tasks: %d candidates (%d structures, %d split), the whole run %d (%d, %d)", n,
				len(got.Candidates), got.Structures, got.Split, len(whole.Candidates), whole.Structures, whole.Split)
		}
	}
}
