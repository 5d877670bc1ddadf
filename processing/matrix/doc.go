// Package matrix writes float64 matrices for people and other tools:
// NPY (rows x columns, little-endian float64, as numpy.save writes it),
// CSV, and PNG heat maps with a colour bar and labelled axes, drawn by
// the package a binary registers (RegisterPNG: package heatplot, with
// gonum/plot), so that a pipeline writing matrices links no plotting
// code of its own. It knows no pipeline.
package matrix
