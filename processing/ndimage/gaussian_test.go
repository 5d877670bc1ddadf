package ndimage

import (
	"math"
	"testing"
)

// TestReflect: scipy's 'reflect' of indices −9…12 into a row of 4
// (numpy.pad(arange(4), 9, mode='symmetric'), which is scipy's reflect), and a
// row of one.
func TestReflect(t *testing.T) {
	want := []int{0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3}
	for k, w := range want {
		i := k - 9
		if got := Reflect(i, 4); got != w {
			t.Errorf("Reflect(%d, 4) = %d, want %d", i, got, w)
		}
	}
	if Reflect(-3, 1) != 0 || Reflect(5, 1) != 0 {
		t.Error("a row of one reflects onto its only index")
	}
}

// TestGaussianWeights: the weights of σ 1.5 over both sides sum to 1,
// and their ratios are the Gaussian's, exp(−k²/2σ²); σ 0 is the
// identity; the radius is SciPy's for truncate 4 (σ 1.5: 6; σ 2.4: 10).
func TestGaussianWeights(t *testing.T) {
	const sigma = 1.5
	r := GaussianRadius(sigma)
	if r != 6 || GaussianRadius(2.4) != 10 {
		t.Fatalf("radius %d for σ 1.5, %d for 2.4; want 6, 10", r, GaussianRadius(2.4))
	}
	w := GaussianWeights(sigma, r)
	sum := w[0]
	for k := 1; k <= r; k++ {
		sum += 2 * w[k]
		if want := math.Exp(-float64(k*k) / (2 * sigma * sigma)); math.Abs(w[k]/w[0]-want) > 1e-15 {
			t.Errorf("w[%d]/w[0] = %g, want %g", k, w[k]/w[0], want)
		}
	}
	if math.Abs(sum-1) > 1e-15 {
		t.Errorf("weights sum to %g", sum)
	}
	if id := GaussianWeights(0, 3); id[0] != 1 || id[1] != 0 {
		t.Errorf("σ 0: %v, want the identity", id)
	}
}
