package reconstruct

import (
	"math"
	"math/rand/v2"
	"slices"
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

// TestRemoveAllStripe: remove_all_stripe lowers the ring of the gain
// stripe at least 10x, and replaces a dead column (one that reads the
// same at every angle) by its neighbours, lowering its ring at least 10x
// too; the sinogram has noise (0.01, of line integrals up to 2), as
// measured ones do (a dead column is found by having none).
func TestRemoveAllStripe(t *testing.T) {
	const nang, cols = 180, 128
	angles := make([]float64, nang)
	for i := range angles {
		angles[i] = math.Pi * float64(i) / nang
	}
	clean := make([]float64, nang*cols)
	projectEllipses(clean, sheppLogan(50), angles, cols, 64)
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range clean {
		clean[i] = clean[i]*0.02 + 0.01*rng.NormFloat64()
	}
	g := Geometry{Angles: angles, Columns: cols, Center: 64, Pad: DiagonalPad(cols), PadZeros: true, MaskRadius: 1}
	for _, c := range []struct {
		what   string
		column int
		spoil  func(v float32) float32
	}{
		{"gain stripe", 80, func(v float32) float32 { return v + float32(math.Log(1.05)) }},
		{"dead column", 50, func(float32) float32 { return 0.3 }},
	} {
		striped := f32(clean)
		for a := 0; a < nang; a++ {
			striped[a*cols+c.column] = c.spoil(striped[a*cols+c.column])
		}
		r := math.Abs(float64(c.column - 64))
		before := ringAmplitude(recon(t, g, striped), recon(t, g, f32(clean)), cols, r)
		DefaultAllStripes.RemoveAll(striped, nang, cols)
		cleanAll := f32(clean)
		DefaultAllStripes.RemoveAll(cleanAll, nang, cols)
		after := ringAmplitude(recon(t, g, striped), recon(t, g, cleanAll), cols, r)
		if before < 1e-4 || after*10 > before {
			t.Errorf("%s: ring amplitude %.3g before, %.3g after: want ≥ 10x lower", c.what, before, after)
		}
		t.Logf("%s: ring amplitude %.3g before, %.3g after (%.0fx)", c.what, before, after, before/after)
	}
	// The dead column is found as such (_rs_dead), not only smoothed by
	// the sorting: it and its dilation (49 to 51) are rebuilt between
	// the good columns 48 and 52.
	dead := slices.Clone(clean)
	for a := 0; a < nang; a++ {
		dead[a*cols+50] = 0.3
	}
	removeDead(dead, nang, cols, DefaultAllStripes.SNR, DefaultAllStripes.LargeSize)
	for a := 0; a < nang; a++ {
		if want := (dead[a*cols+48] + dead[a*cols+52]) / 2; math.Abs(dead[a*cols+50]-want) > 1e-12 {
			t.Fatalf("angle %d: the dead column reads %g, want its neighbours' mean %g", a, dead[a*cols+50], want)
		}
	}
}

// TestScaledStripeSize: httomolibgpu's 11 at its 2,560 columns, odd,
// at least 3, growing with the detector.
func TestScaledStripeSize(t *testing.T) {
	for _, c := range []struct{ cols, want int }{{2560, 11}, {160, 3}, {64, 3}, {1280, 7}, {4096, 19}, {2048, 9}} {
		if got := ScaledStripeSize(c.cols); got != c.want {
			t.Errorf("ScaledStripeSize(%d) = %d, want %d", c.cols, got, c.want)
		}
	}
}
