package reconstruct

import (
	"cmp"
	"slices"
)

// DefaultStripeSize is httomolibgpu's window of the median filter of
// remove_stripe_based_sorting.
const DefaultStripeSize = 11

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
