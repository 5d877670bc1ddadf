package demo

import "errors"

// WriteBrain writes the light-sheet demo (BrainPlanes, BrainCells) into dir.
// (Owned by the detection pipeline's work; replaced there.)
func WriteBrain(dir string, size Size, seed int64) error {
	return errors.New("demo brain: not written yet")
}
