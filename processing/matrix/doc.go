// Package matrix writes float64 matrices for people and other tools —
// NPY (rows x columns, little-endian float64, as numpy.save writes it),
// CSV, and a PNG heat map with a colour bar and labelled axes — and draws
// their heat maps and histograms (gonum/plot) for the processing panel's
// plots. It knows no pipeline: a distance run's matrices and the panel's
// live plots both use it.
package matrix
