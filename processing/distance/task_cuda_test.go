//go:build cuda

package distance

import (
	"context"
	"fmt"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/cluster"
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
				name := fmt.Sprintf("low=%v chunk=%d tile=%d tasks=%d", low, chunk, tile, n)
				var parts []*Result
				for i := range n {
					r, err := RunTask(context.Background(), nil, be, cfg, gt, sub, tile, cluster.Task{Index: i, Count: n})
					if err != nil {
						t.Fatalf("%s: task %d: %v", name, i, err)
					}
					parts = append(parts, r)
				}
				merged, err := Merge(parts, ngt)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for k, m := range whole.Metrics {
					if i := sameBits(merged.Matrices[k], whole.Matrices[k]); i >= 0 {
						t.Errorf("%s: %s[%d,%d] = %.17g, the whole run %.17g", name, m, i/nsub, i%nsub, merged.Matrices[k][i], whole.Matrices[k][i])
					}
				}
			}
		}
	}
}
