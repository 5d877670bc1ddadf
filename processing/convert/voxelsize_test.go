package convert

import (
	"strings"
	"testing"
)

// TestVoxelSizeRefused: a voxel size that is not three positive numbers
// is refused before anything is written.
func TestVoxelSizeRefused(t *testing.T) {
	if err := positiveVoxels([]float64{5, 0, 2}); err == nil || !strings.Contains(err.Error(), "got 0 for y") {
		t.Errorf("got %v", err)
	}
}
