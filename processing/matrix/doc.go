// Package matrix writes float64 matrices for people and other tools:
// NPY (rows x columns, little-endian float64, as numpy.save writes it),
// CSV, and PNG plots of them — heat maps with a colour bar and labelled
// axes, scatter plots of embeddings in panels per group — drawn by the
// package a binary registers for each kind of plot (RegisterPNG:
// package heatplot, with gonum/plot), so that a pipeline writing
// matrices links no plotting code of its own. It knows no pipeline.
package matrix
