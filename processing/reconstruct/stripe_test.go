package reconstruct

import (
	"math"
	"testing"
)

// ringAmplitude is the mean, over the annulus of radius r ± 0.5 pixel
// about the slice's centre, of the slice's difference from the clean
// one: the ring a stripe at column centre ± r leaves.
func ringAmplitude(slice, clean []float32, n int, r float64) float64 {
	var sum float64
	k := 0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d := math.Hypot(float64(i-n/2), float64(j-n/2))
			if math.Abs(d-r) <= 0.5 {
				sum += float64(slice[i*n+j] - clean[i*n+j])
				k++
			}
		}
	}
	return math.Abs(sum / float64(k))
}

// TestRemoveStripeSorting: a stripe (a pixel whose gain is 5 % off
// adds −log 1.05 to its column of line integrals at every angle) rings
// the reconstruction of the Shepp-Logan phantom (line integrals up to
// about 2); sorting-based removal lowers the ring's amplitude — the
// difference the stripe makes, corrected or not, over the ring's
// annulus — at least 10x.
func TestRemoveStripeSorting(t *testing.T) {
	const nang, cols, stripe = 180, 128, 80
	angles := make([]float64, nang)
	for i := range angles {
		angles[i] = math.Pi * float64(i) / nang
	}
	clean := make([]float64, nang*cols)
	projectEllipses(clean, sheppLogan(50), angles, cols, 64)
	for i := range clean {
		clean[i] *= 0.02 // attenuation per pixel: line integrals up to ~2
	}
	striped := f32(clean)
	for a := 0; a < nang; a++ {
		striped[a*cols+stripe] += float32(math.Log(1.05))
	}
	g := Geometry{Angles: angles, Columns: cols, Center: 64, Pad: DiagonalPad(cols), PadZeros: true, MaskRadius: 1}
	before := ringAmplitude(recon(t, g, striped), recon(t, g, f32(clean)), cols, stripe-64)
	sorter := NewStripeSorter(DefaultStripeSize, nang, cols)
	sorter.Remove(striped)
	cleanSorted := f32(clean)
	sorter.Remove(cleanSorted)
	after := ringAmplitude(recon(t, g, striped), recon(t, g, cleanSorted), cols, stripe-64)
	if before < 1e-3 || after*10 > before {
		t.Errorf("ring amplitude %.3g before, %.3g after removal: want ≥ 10x lower", before, after)
	}
	t.Logf("ring amplitude %.3g before, %.3g after (%.0fx); against the unsorted clean slice %.3g",
		before, after, before/after, ringAmplitude(recon(t, g, striped), recon(t, g, f32(clean)), cols, stripe-64))
}
