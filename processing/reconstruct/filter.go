package reconstruct

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Filter is the frequency filter of filtered back-projection, one of
// scikit-image's (skimage.transform.iradon's filter_name) and tomopy's
// FBP filters.
type Filter int

// The filters, as skimage.transform.radon_transform._get_fourier_filter
// defines them on top of the ramp.
const (
	Ramp Filter = iota
	SheppLogan
	Cosine
	Hamming
	Hann
)

var filterNames = []string{"ramp", "shepp", "cosine", "hamming", "hann"}

// FilterNames lists the filters' names as the pipeline takes them.
func FilterNames() []string { return append([]string(nil), filterNames...) }

// String returns the filter's name: ramp, shepp, cosine, hamming or hann.
func (f Filter) String() string {
	if f < 0 || int(f) >= len(filterNames) {
		return fmt.Sprintf("Filter(%d)", int(f))
	}
	return filterNames[f]
}

// ParseFilter reads a filter's name; "shepp-logan" (scikit-image's
// spelling) and "ram-lak" (ASTRA's name for the ramp) are accepted too.
func ParseFilter(s string) (Filter, error) {
	switch s {
	case "shepp-logan":
		return SheppLogan, nil
	case "ram-lak":
		return Ramp, nil
	}
	for i, n := range filterNames {
		if s == n {
			return Filter(i), nil
		}
	}
	return 0, fmt.Errorf("unknown filter %q (want ramp, shepp, cosine, hamming or hann)", s)
}

// PaddedLength is the length the detector is zero-padded to before
// filtering: the next power of two of twice the width, at least 64, as
// scikit-image's iradon (which says it lessens artefacts: the circular
// convolution of the padded row is then the linear one).
func PaddedLength(width int) int {
	p := 64
	for p < 2*width {
		p *= 2
	}
	return p
}

// FilterResponse returns the filter's frequency response over size
// frequencies in FFT order, as skimage's _get_fourier_filter(size, name):
// the ramp computed as twice the real part of the Fourier transform of
// its band-limited spatial kernel (Kak & Slaney, Principles of
// Computerized Tomographic Imaging, 1988, ch. 3 eq. 61), which removes
// the bias of a plain |f|, times the window. size must be even.
func FilterResponse(size int, f Filter) []float64 {
	if size < 2 || size%2 != 0 {
		panic("reconstruct: FilterResponse: size must be even and at least 2")
	}
	kernel := make([]float64, size)
	kernel[0] = 0.25
	for k := 1; k < size; k += 2 {
		n := k
		if k > size/2 {
			n = size - k
		}
		kernel[k] = -1 / (math.Pi * float64(n) * math.Pi * float64(n))
	}
	coef := fourier.NewFFT(size).Coefficients(nil, kernel)
	h := make([]float64, size)
	for k := range h {
		c := coef[min(k, size-k)] // the kernel is real and even
		h[k] = 2 * real(c)
	}
	applyWindow(h, f)
	return h
}

// applyWindow multiplies the ramp h (FFT order) by the filter's window,
// each as scikit-image writes it: Shepp-Logan sin(ω)/ω with ω = π·freq;
// cosine, Hamming and Hann as fftshift of sin over [0, π), numpy's
// hamming and hanning of length len(h).
func applyWindow(h []float64, f Filter) {
	size := len(h)
	shifted := func(w func(k int) float64) {
		for m := range h {
			h[m] *= w((m + size/2) % size) // fftshift for an even size
		}
	}
	switch f {
	case SheppLogan:
		for k := 1; k < size; k++ {
			fr := float64(k) / float64(size)
			if k >= (size+1)/2 {
				fr = float64(k-size) / float64(size)
			}
			om := math.Pi * fr
			h[k] *= math.Sin(om) / om
		}
	case Cosine:
		shifted(func(k int) float64 { return math.Sin(math.Pi * float64(k) / float64(size)) })
	case Hamming:
		shifted(func(k int) float64 { return 0.54 - 0.46*math.Cos(2*math.Pi*float64(k)/float64(size-1)) })
	case Hann:
		shifted(func(k int) float64 { return 0.5 - 0.5*math.Cos(2*math.Pi*float64(k)/float64(size-1)) })
	}
}

// realResponse returns the response a real-to-complex transform applies,
// for frequencies 0…size/2: the even part of h. scikit-image multiplies
// the full spectrum by h and keeps the real part of the inverse, which is
// the same as filtering by (h[k] + h[−k])/2 — and Hamming and Hann,
// shifted by half an even length, are not even.
func realResponse(h []float64) []float64 {
	size := len(h)
	out := make([]float64, size/2+1)
	for k := range out {
		out[k] = (h[k] + h[(size-k)%size]) / 2
	}
	return out
}
