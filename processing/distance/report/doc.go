// Package report writes a distance run's matrices for people and other
// tools: NPY (float64, rows = ground-truth maps, columns = submitted maps),
// CSV and a PNG heat map with a colour bar and labelled axes (gonum/plot).
// It is apart from package distance so that the algorithm package, and its
// CUDA test binary, do not link the plotting code.
package report
