package heatplot

import (
	"github.com/voxlab/voxlab/processing/matrix"
	"image"
)

// Functions the package's tests use that its code does not: kept out
// of the build.

// HistogramImage draws the distribution of h's finite values, w x ht
// pixels at 96 dpi, in the Paper style; with none yet, an empty plot.
func HistogramImage(h matrix.Heatmap, w, ht int) (*image.RGBA, error) {
	return HistogramImageStyle(h, w, ht, Paper)
}
