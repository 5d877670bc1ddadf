//go:build cuda

package distance

import (
	"fmt"
	"testing"

	"github.com/voxlab/voxlab/gpu"
)

// TestCUDATasksMergeToWhole: on the CUDA backend too, tasks of whole
// tiles merge to the whole run's matrices bit for bit.
func TestCUDATasksMergeToWhole(t *testing.T) {
	be, _, err := gpu.Open(gpu.CUDA)
	if err != nil {
		t.Skipf("no CUDA device: %v", err)
	}
	defer be.Close()
	const ngt, nsub = 37, 7
	gt, sub := testMaps(t, ngt, 16, 11), testMaps(t, nsub, 16, 12)
	mask, err := SphereMask(16, 6)
	if err != nil {
		t.Fatal(err)
	}
	for _, low := range []bool{false, true} {
		for _, chunk := range []int{0, 5} {
			cfg := Config{Metrics: AllMetrics(), Mask: mask, VoxelSize: 2.146, LowMemory: low, Chunk: chunk, AutoChunk: chunk == 0}
			whole := mustRun(t, be, cfg, gt, sub)
			tile, err := TaskTile(cfg, gt, sub, be)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{2, 3, 9} {
				mergeTasks(t, fmt.Sprintf("low=%v chunk=%d tile=%d tasks=%d", low, chunk, tile, n), be, cfg, gt, sub, tile, n, whole)
			}
		}
	}
}
