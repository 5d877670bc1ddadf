package distance

import (
	"fmt"
	"runtime"
)

// Functions the package's tests use that its code does not: kept out
// of the build.

// MaskAndNormalize returns the masked, normalised voxels of n maps of
// mask.Box³ voxels (one after the other in maps): n rows of mask.Len()
// values. It is the stack form of what every pipeline does to both sets,
// through the same code.
func MaskAndNormalize(maps []float32, n int, mask *Mask, norm Normalization) ([]float64, error) {
	v := mask.Box * mask.Box * mask.Box
	if n < 0 || len(maps) != n*v {
		return nil, fmt.Errorf("mask and normalise: %d values for %d maps of %d³", len(maps), n, mask.Box)
	}
	lay := newLayout([]Metric{L2}, mask.Len(), nil)
	p := newPreparer(lay, mask, nil, norm, runtime.GOMAXPROCS(0), nil)
	rows := make([]float64, n*lay.RowLen)
	if err := p.prepare(rows, maps, n, 0, "given"); err != nil {
		return nil, err
	}
	k := mask.Len()
	out := make([]float64, n*k)
	for i := 0; i < n; i++ {
		copy(out[i*k:(i+1)*k], rows[i*lay.RowLen:])
	}
	return out, nil
}
