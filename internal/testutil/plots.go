package testutil

import (
	"fmt"
	"os"

	"github.com/voxlab/voxlab/processing/matrix"
)

// StandInPlots registers, for every kind of matrix plot, a stand-in
// drawing that writes a marker file naming the plot ("heat map of
// TITLE"): a pipeline's test binary checks that its reports write the
// PNGs they name without linking gonum/plot (package heatplot draws
// them, and is tested there).
func StandInPlots() {
	for _, kind := range []string{matrix.HeatmapKind, matrix.ScatterKind} {
		matrix.RegisterPNG(kind, func(path string, p matrix.Plot) error {
			return os.WriteFile(path, []byte(fmt.Sprintf("%s of %s", p.PlotKind(), plotTitle(p))), 0o644)
		})
	}
}

func plotTitle(p matrix.Plot) string {
	switch p := p.(type) {
	case matrix.Heatmap:
		return p.Title
	case matrix.Scatter:
		return p.Title
	}
	return ""
}
