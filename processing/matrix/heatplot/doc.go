// Package heatplot draws float64 matrices (matrix.Heatmap) with
// gonum/plot: heat maps with a colour bar and labelled axes, with NaN
// cells grey, and histograms of their finite values, in a Style (the
// PNG files' Paper, or the app theme's colours in the processing
// panel). Importing it registers its WritePNG as matrix.WritePNG.
package heatplot
