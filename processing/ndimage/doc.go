// Package ndimage holds the pieces of scipy.ndimage that more than one
// pipeline defines its filters by: the sampled Gaussian's weights
// (gaussian_filter1d) and the 'reflect' boundary. detect's Gaussian
// blur and reconstruct's smoothing (Vo's stripe removal) share them, so
// both match SciPy the same way.
package ndimage
