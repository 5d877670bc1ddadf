package ndimage

import "math"

// GaussianRadius is scipy.ndimage.gaussian_filter1d's kernel radius for
// sigma with its default truncate of 4: int(4·sigma + 0.5).
func GaussianRadius(sigma float64) int { return int(4*sigma + 0.5) }

// GaussianWeights returns the weights w[0…radius] of a normalised
// Gaussian of σ sigma truncated at radius (w[0] the centre, w[k] that of
// offsets ±k), as gaussian_filter1d makes them: exp(−k²/2σ²) divided by
// their sum over [−radius, radius]. σ ≤ 0 or radius 0 gives the
// identity.
func GaussianWeights(sigma float64, radius int) []float64 {
	w := make([]float64, radius+1)
	if sigma <= 0 || radius == 0 {
		w[0] = 1
		return w
	}
	sum := 0.0
	for i := range w {
		w[i] = math.Exp(-0.5 * float64(i*i) / (sigma * sigma))
		if i == 0 {
			sum += w[i]
		} else {
			sum += 2 * w[i]
		}
	}
	for i := range w {
		w[i] /= sum
	}
	return w
}

// Reflect maps index i into 0…n−1 as scipy.ndimage's mode 'reflect'
// (d c b a | a b c d | d c b a): the edge value repeated, for any
// overhang.
func Reflect(i, n int) int {
	if n == 1 {
		return 0
	}
	p := 2 * n
	i %= p
	if i < 0 {
		i += p
	}
	if i >= n {
		i = p - 1 - i
	}
	return i
}
