package matrix

import (
	"fmt"
	"sync"
)

// Heatmap describes a matrix to draw: a distance matrix, with NaN in the
// cells not computed yet (the viewer draws matrices as they fill).
type Heatmap struct {
	Title string
	// XLabel names the columns, YLabel the rows, Unit the values (the
	// colour bar's label, the histogram's axis).
	XLabel, YLabel, Unit string
	Rows, Cols           int
	Values               []float64
}

var (
	pngMu    sync.RWMutex
	pngWrite func(path string, h Heatmap) error
)

// RegisterPNG sets how heat maps are drawn into PNG files: package
// heatplot (gonum/plot and its fonts) registers itself from init, so
// that only binaries that import it link the plotting code — a
// pipeline's CUDA test binary stays small.
func RegisterPNG(write func(path string, h Heatmap) error) {
	pngMu.Lock()
	pngWrite = write
	pngMu.Unlock()
}

// WritePNG draws h as a heat map with a colour bar into path, with the
// drawing a binary registered (RegisterPNG).
func WritePNG(path string, h Heatmap) error {
	pngMu.RLock()
	w := pngWrite
	pngMu.RUnlock()
	if w == nil {
		return fmt.Errorf("write %s: this binary draws no heat maps (it does not import processing/matrix/heatplot)", path)
	}
	return w(path, h)
}
