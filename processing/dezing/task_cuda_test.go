//go:build cuda

package dezing

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// TestCUDATasksMergeToWhole: on the CUDA backend too, the tasks merged
// (the merge's flat-field on the device) give the whole run's bits.
func TestCUDATasksMergeToWhole(t *testing.T) {
	c := openCUDA(t)
	for _, dt := range []volume.DType{volume.Uint16, volume.Float32} {
		for _, ff := range []bool{false, true} {
			in := testScan(21, dt, 23, 5, 7, 45, 70)
			cfg := DefaultConfig()
			cfg.Kernel, cfg.FlatField, cfg.MinusLog = 5, ff, ff
			whole, wres := runAll(t, c, cfg, in)
			for _, n := range []int{3, 7, 30} {
				name := fmt.Sprintf("%s ff=%v, %d tasks", dt, ff, n)
				merged, mres := runTasks(t, c, cfg, in, n)
				if !bytes.Equal(merged.data, whole.data) {
					t.Errorf("%s: the merged projections differ from the whole run's", name)
				}
				if _, ok := sameFloats(merged.dark, whole.dark); !ok {
					t.Errorf("%s: dark differs", name)
				}
				if _, ok := sameFloats(merged.flat, whole.flat); !ok {
					t.Errorf("%s: flat differs", name)
				}
				if mres.Clipped != wres.Clipped {
					t.Errorf("%s: clipped %d, whole run %d", name, mres.Clipped, wres.Clipped)
				}
			}
		}
	}
}
