package reconstruct

import (
	"cmp"
	"math"
	"slices"
)

// DefaultStripeSize is httomolibgpu's window of the median filter of
// remove_stripe_based_sorting, made for Diamond's detectors of
// ReferenceColumns columns.
const (
	DefaultStripeSize = 11
	ReferenceColumns  = 2560
)

// ScaledStripeSize is the sorting method's default window for a detector
// of cols columns: httomolibgpu's 11 of 2,560 columns scaled to the
// detector, odd, at least 3. The window must be wider than the stripes
// (Vo, Atwood and Drakopoulos 2018: the median across columns of the
// sorted sinogram removes an outlier narrower than half its window),
// and each column it spans beyond that replaces real structure of the
// sorted sinogram by its neighbours', which the reconstruction shows as
// arcs along edges, the more so the fewer the projections (one rank of
// the sorted column is one projection). How much is replaced goes with
// the window's share of the object's width on the detector, not its
// count of columns: on a Shepp-Logan phantom with two gain stripes the
// slice's rms error after removal with 11 columns was 0.0004 at 128
// columns, 0.0002 at 256, with 3 0.0001 at both (45 to 720 angles; 45
// angles the worst). httomolibgpu's 11 on a 160-column scan of 90
// projections (the demo's) left dark arcs that 5 and 3 do not
// (README, docs/reconstruct-stripe-size.png).
func ScaledStripeSize(cols int) int {
	s := int(math.Round(float64(DefaultStripeSize) * float64(cols) / ReferenceColumns))
	if s%2 == 0 {
		s++
	}
	return max(s, 3)
}

// StripeSorter removes stripes from sinograms by Vo's sorting method
// (Vo, Atwood and Drakopoulos, "Superior techniques for eliminating ring
// artifacts in X-ray micro-tomography", Optics Express 26, 2018, algorithm
// 3; httomolibgpu's prep/stripe.py remove_stripe_based_sorting with
// dim=1, tomopy's remove_stripe_based_sorting): each detector column is
// sorted along the angles, the sorted sinogram is median-filtered along
// the detector (a window of Size columns, scipy's mode 'reflect'), and
// each column is put back in its original order. A stripe — a column
// offset at every angle — is an outlier across columns of the sorted
// sinogram, which the median removes. A StripeSorter holds its scratch
// and is not safe for concurrent use.
type StripeSorter struct {
	Size       int
	nang, ncol int
	order      []int32 // per column, the angles in sorted order
	sorted     []float32
	pairs      []sortPair
	window     []float32
}

type sortPair struct {
	v float32
	i int32
}

// NewStripeSorter prepares stripe removal with a median of size columns
// on sinograms of nang × ncol.
func NewStripeSorter(size, nang, ncol int) *StripeSorter {
	return &StripeSorter{Size: size, nang: nang, ncol: ncol,
		order: make([]int32, nang*ncol), sorted: make([]float32, nang*ncol),
		pairs: make([]sortPair, nang), window: make([]float32, size)}
}

// Remove removes the stripes of sino (nang × ncol, row-major) in place.
func (s *StripeSorter) Remove(sino []float32) {
	na, nc := s.nang, s.ncol
	for j := 0; j < nc; j++ {
		for i := range s.pairs {
			s.pairs[i] = sortPair{sino[i*nc+j], int32(i)}
		}
		// Stable, as numpy's argsort of equal values keeps their order
		// in practice for the median's result.
		slices.SortStableFunc(s.pairs, func(a, b sortPair) int { return cmp.Compare(a.v, b.v) })
		for r, p := range s.pairs {
			s.order[r*nc+j] = p.i
			s.sorted[r*nc+j] = p.v
		}
	}
	half := s.Size / 2
	for r := 0; r < na; r++ {
		row := s.sorted[r*nc : (r+1)*nc]
		for j := 0; j < nc; j++ {
			for k := range s.window {
				s.window[k] = row[reflect(j+k-half, nc)]
			}
			sino[int(s.order[r*nc+j])*nc+j] = median(s.window)
		}
	}
}

// median returns the middle value of w (odd length; the upper middle for
// an even one, as scipy's median_filter), reordering w.
func median(w []float32) float32 {
	slices.Sort(w)
	return w[len(w)/2]
}
