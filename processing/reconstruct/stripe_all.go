package reconstruct

import (
	"math"
	"slices"
)

// AllStripes holds the parameters of remove_all_stripe as httomolibgpu's
// prep/stripe.py takes them (Vo, Atwood and Drakopoulos 2018, algorithms
// 3 to 6).
type AllStripes struct {
	// SNR locates large and dead stripes: greater is less sensitive.
	SNR float64
	// LargeSize and SmallSize are the median windows for large stripes
	// and for the sorting method's small-to-medium ones.
	LargeSize, SmallSize int
}

// DefaultAllStripes is httomolibgpu's default.
var DefaultAllStripes = AllStripes{SNR: 3, LargeSize: 61, SmallSize: 21}

// RemoveAll removes the stripes of sino (nang × ncol) in place as
// remove_all_stripe does: unresponsive and fluctuating columns replaced
// by interpolation between their neighbours (_rs_dead), large stripes
// replaced by their sorted-and-smoothed values (_rs_large, without
// normalisation), then the sorting method with the small window
// (_rs_sort), and NaNs set to zero.
func (p AllStripes) RemoveAll(sino []float32, nang, ncol int) {
	s := make([]float64, len(sino))
	for i, v := range sino {
		s[i] = float64(v)
	}
	removeDead(s, nang, ncol, p.SNR, p.LargeSize)
	removeLarge(s, nang, ncol, p.SNR, p.LargeSize)
	for i, v := range s {
		sino[i] = float32(v)
	}
	NewStripeSorter(p.SmallSize, nang, ncol).Remove(sino)
	for i, v := range sino {
		if v != v {
			sino[i] = 0
		}
	}
}

// detectStripe is Vo's algorithm 4 (_detect_stripe): fit a line to the
// middle half of the sorted values; those beyond the fit's ends by more
// than snr/2 noise levels are stripes (mask 1).
func detectStripe(list []float64, snr float64) []float64 {
	n := len(list)
	sorted := slices.Clone(list)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	drop := int(0.25 * float64(n))
	xs, ys := []float64{}, []float64{}
	for i := drop; i < n-drop-1; i++ {
		xs, ys = append(xs, float64(i)), append(ys, sorted[i])
	}
	slope, intercept := lineFit(xs, ys)
	end := intercept + slope*float64(n-1)
	noise := math.Max(math.Abs(end-intercept), 1e-6)
	mask := make([]float64, n)
	if math.Abs(sorted[0]-intercept)/noise >= snr {
		upper := intercept + noise*snr*0.5
		for i, v := range list {
			if v > upper {
				mask[i] = 1
			}
		}
	}
	if math.Abs(sorted[n-1]-end)/noise >= snr {
		lower := end - noise*snr*0.5
		for i, v := range list {
			if v <= lower {
				mask[i] = 1
			}
		}
	}
	return mask
}

// lineFit is the least-squares line through (xs, ys) (_mpolyfit).
func lineFit(xs, ys []float64) (slope, intercept float64) {
	n := float64(len(xs))
	var sx, sy, sxy, sxx float64
	for i, x := range xs {
		sx, sy, sxy, sxx = sx+x, sy+ys[i], sxy+x*ys[i], sxx+x*x
	}
	mx, my := sx/n, sy/n
	slope = (sxy - n*mx*my) / (sxx - n*mx*mx)
	return slope, my - slope*mx
}

// dilate is scipy's binary_dilation of a 1D mask, one iteration of the
// structure [1 1 1] (outside the mask counts as 0).
func dilate(mask []float64) []float64 {
	out := make([]float64, len(mask))
	for i := range mask {
		for d := -1; d <= 1; d++ {
			if j := i + d; j >= 0 && j < len(mask) && mask[j] > 0 {
				out[i] = 1
			}
		}
	}
	return out
}

// median1D is scipy's median_filter of a 1D list with window size,
// mode 'reflect'.
func median1D(list []float64, size int) []float64 {
	out := make([]float64, len(list))
	w := make([]float64, size)
	for i := range list {
		for k := range w {
			w[k] = list[reflect(i+k-size/2, len(list))]
		}
		slices.Sort(w)
		out[i] = w[size/2]
	}
	return out
}

// removeDead is _rs_dead: a column whose total deviation from its
// smoothing along the angles (uniform_filter1d of 10, mode 'reflect')
// stands out from its neighbours' (a median of size) is replaced by
// linear interpolation between the nearest good columns.
func removeDead(s []float64, nang, ncol int, snr float64, size int) {
	diff := make([]float64, ncol)
	for j := 0; j < ncol; j++ {
		for i := 0; i < nang; i++ {
			var m float64
			for k := -5; k < 5; k++ { // scipy's window of 10: offsets −5…4
				m += s[reflect(i+k, nang)*ncol+j]
			}
			diff[j] += math.Abs(s[i*ncol+j] - m/10)
		}
	}
	bck := median1D(diff, size)
	fact := make([]float64, ncol)
	for j := range fact {
		fact[j] = diff[j] / bck[j]
	}
	mask := dilate(detectStripe(fact, snr))
	for j := 0; j < min(2, ncol); j++ {
		mask[j], mask[ncol-1-j] = 0, 0
	}
	var good []int
	for j, m := range mask {
		if m < 1 {
			good = append(good, j)
		}
	}
	for j, m := range mask {
		if m < 1 {
			continue
		}
		k, _ := slices.BinarySearch(good, j)
		l, r := good[k-1], good[k]
		w := float64(j-l) / float64(r-l)
		for i := 0; i < nang; i++ {
			s[i*ncol+j] = s[i*ncol+l] + w*(s[i*ncol+r]-s[i*ncol+l])
		}
	}
}

// removeLarge is _rs_large without normalisation: columns whose mean
// (over the middle 90 % of the sorted angles) stands out from the
// median-smoothed sorted sinogram's are replaced by the smoothed values,
// unsorted back.
func removeLarge(s []float64, nang, ncol int, snr float64, size int) {
	drop := int(0.5 * 0.1 * float64(nang))
	order := make([]int, nang*ncol)
	sorted := make([]float64, nang*ncol)
	idx := make([]int, nang)
	for j := 0; j < ncol; j++ {
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			va, vb := s[a*ncol+j], s[b*ncol+j]
			switch {
			case va < vb:
				return -1
			case va > vb:
				return 1
			}
			return 0
		})
		for r, i := range idx {
			order[r*ncol+j], sorted[r*ncol+j] = i, s[i*ncol+j]
		}
	}
	smooth := make([]float64, nang*ncol)
	for r := 0; r < nang; r++ {
		copy(smooth[r*ncol:(r+1)*ncol], median1D(sorted[r*ncol:(r+1)*ncol], size))
	}
	fact := make([]float64, ncol)
	for j := range fact {
		var a, b float64
		for r := drop; r < nang-drop; r++ {
			a, b = a+sorted[r*ncol+j], b+smooth[r*ncol+j]
		}
		fact[j] = a / b
	}
	mask := dilate(detectStripe(fact, snr))
	for j, m := range mask {
		if m == 0 {
			continue
		}
		for r := 0; r < nang; r++ {
			s[order[r*ncol+j]*ncol+j] = smooth[r*ncol+j]
		}
	}
}
