package reconstruct

import "math"

// flatFieldEps is the smallest denominator of the flat-field correction,
// httomolibgpu's eps (prep/normalize.py, dark_flat_field_correction).
const flatFieldEps = 1e-7

// FlatField holds the parameters of dark/flat-field correction as
// httomolibgpu's dark_flat_field_correction takes them: multipliers of the
// mean dark and mean flat (an intensity compensation), and the bounds the
// result is clipped to (±1e12 when not given, as there).
type FlatField struct {
	FlatsMultiplier, DarksMultiplier float64
	Lower, Upper                     float64
}

// DefaultFlatField is httomolibgpu's default: multipliers 1, no bounds.
var DefaultFlatField = FlatField{FlatsMultiplier: 1, DarksMultiplier: 1, Lower: -1e12, Upper: 1e12}

// MeanFrames writes into dst the per-pixel mean of the frames stacked in
// frames (len(frames) = k·len(dst)), as numpy's mean over axis 0; the sum
// is kept in float64 so the mean of many frames loses no precision.
func MeanFrames(dst []float32, frames []float32) {
	n := len(dst)
	if n == 0 || len(frames)%n != 0 || len(frames) == 0 {
		panic("reconstruct: MeanFrames: frames are not a whole number of frames of len(dst)")
	}
	k := len(frames) / n
	for i := range dst {
		var s float64
		for f := 0; f < k; f++ {
			s += float64(frames[f*n+i])
		}
		dst[i] = float32(s / float64(k))
	}
}

// Correct writes into dst the flat-field corrected data, dst = (data −
// dark·dm) / max(flat·fm − dark·dm, eps) clipped to [Lower, Upper], as
// httomolibgpu's normalisation kernel does (a value above Upper becomes
// Upper, one at or below Lower becomes Lower). dark and flat are the mean
// frames (MeanFrames) of the pixels data holds, which is a whole number of
// such frames (projections). It returns how many values were clipped to
// each bound, which httomolibgpu warns about past half the data.
func (ff FlatField) Correct(dst, data, dark, flat []float32) (low, high int) {
	m := len(dark)
	if len(flat) != m || m == 0 || len(data)%m != 0 || len(dst) != len(data) {
		panic("reconstruct: FlatField.Correct: mismatched lengths")
	}
	lo, hi := float32(ff.Lower), float32(ff.Upper)
	dm, fm := float32(ff.DarksMultiplier), float32(ff.FlatsMultiplier)
	for p := 0; p < len(data); p += m {
		d, o := data[p:p+m], dst[p:p+m]
		for i := range d {
			dk := dark[i] * dm
			den := flat[i]*fm - dk
			if den < flatFieldEps {
				den = flatFieldEps
			}
			v := (d[i] - dk) / den
			if v > hi {
				v, high = hi, high+1
			}
			if v <= lo {
				v, low = lo, low+1
			}
			o[i] = v
		}
	}
	return low, high
}

// MinusLog writes −log(src) into dst (httomolibgpu's minus_log, tomopy's
// minus_log): transmission to line integrals of attenuation.
func MinusLog(dst, src []float32) {
	for i, v := range src {
		dst[i] = float32(-math.Log(float64(v)))
	}
}

// DarkerFlats reports the fraction of pixels whose mean flat is not
// brighter than their mean dark: a scan whose flats and darks are swapped
// or missing, which the pipeline refuses past half the detector.
func DarkerFlats(dark, flat []float32) float64 {
	n := 0
	for i := range dark {
		if flat[i] <= dark[i] {
			n++
		}
	}
	return float64(n) / float64(len(dark))
}
