package matrix

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

// PlotKind is HeatmapKind.
func (Heatmap) PlotKind() string { return HeatmapKind }
