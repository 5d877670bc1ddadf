package matrix

import (
	"fmt"
	"sync"
)

// Plot is a figure WritePNG draws: a Heatmap or a Scatter. Its kind
// picks the drawing registered for it.
type Plot interface {
	PlotKind() string
}

// The kinds of plots.
const (
	HeatmapKind = "heat map"
	ScatterKind = "scatter plot"
)

var (
	pngMu    sync.RWMutex
	pngWrite = map[string]func(path string, p Plot) error{}
)

// RegisterPNG sets how plots of a kind are drawn into PNG files:
// package heatplot (gonum/plot and its fonts) registers its drawings
// from init, so that only binaries that import it link the plotting
// code — a pipeline's CUDA test binary stays small.
func RegisterPNG(kind string, write func(path string, p Plot) error) {
	pngMu.Lock()
	pngWrite[kind] = write
	pngMu.Unlock()
}

// WritePNG draws p into path, with the drawing a binary registered for
// its kind (RegisterPNG).
func WritePNG(path string, p Plot) error {
	pngMu.RLock()
	w := pngWrite[p.PlotKind()]
	pngMu.RUnlock()
	if w == nil {
		return fmt.Errorf("write %s: this binary draws no %ss (it does not import processing/matrix/heatplot)", path, p.PlotKind())
	}
	return w(path, p)
}
