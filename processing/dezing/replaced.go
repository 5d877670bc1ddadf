package dezing

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/voxlab/voxlab/processing/volume"
)

// What dezinging changed: every block's median output is compared on the
// host with its input (a voxel is replaced exactly when they differ:
// |x − m| ≥ dif > 0 makes m ≠ x, and a kept voxel is copied), so the
// counts are those of a naive comparison of the input and the output,
// whatever the block size or task split. Each kind (projections, darks,
// flats) also samples the data's own noise: at every sampleStride-th
// voxel of the kind (by its index in the whole stack, so the sample does
// not depend on the blocks either) the difference from the median of its
// neighbourhood, whose median absolute deviation (MAD) gives a threshold
// that would replace spikes only (suggestDif).

// Replaced counts the voxels a run replaced by their neighbourhood's
// median, per kind of frame.
type Replaced struct {
	Projections int64 `json:"projections"`
	Darks       int64 `json:"darks"`
	Flats       int64 `json:"flats"`
}

// ReplacedWarnFraction is the share of a kind's voxels beyond which a
// run warns that it replaced more than spikes.
const ReplacedWarnFraction = 0.01

// sampleTarget is about how many voxels of a kind the noise sample
// holds; spikeSigmas is the suggested threshold in units of the noise's
// standard deviation estimated from the MAD (1.4826·MAD for Gaussian
// noise): 6σ is passed by Gaussian noise once in 5·10⁸ voxels.
const (
	sampleTarget = 20000
	spikeSigmas  = 6
)

// countReplaced returns how many elements (es bytes each) differ between
// in and out.
func countReplaced(in, out []byte, es int) int64 {
	var n int64
	if es == 2 {
		a, b := volume.Uint16s(in), volume.Uint16s(out)
		for i := range b {
			if a[i] != b[i] {
				n++
			}
		}
		return n
	}
	a, b := volume.Float32s(in), volume.Float32s(out)
	for i := range b {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			n++
		}
	}
	return n
}

// noiseSample holds a kind's sampled differences from the local median.
type noiseSample struct {
	stride int64
	// integer: the data are whole numbers (uint16).
	integer bool
	diffs   []float64
}

// add samples the output frames [b0, b1) of a stack of nz frames of
// info, whose frames [h0, h1) are in held (the block with its halo):
// x − median of its kernel³ neighbourhood (clamped at the stack's edges
// as the median kernel is), at every voxel whose index in the stack is a
// multiple of the stride. NaN and infinite differences are left out.
func (s *noiseSample) add(held []byte, info volume.Info, h0, b0, b1, nz, kernel int) {
	rows, cols := info.Shape[1], info.Shape[2]
	plane := int64(rows) * int64(cols)
	first := (int64(b0)*plane + s.stride - 1) / s.stride * s.stride
	r := kernel / 2
	nb := make([]float64, 0, kernel*kernel*kernel)
	at := func(z, y, x int) float64 {
		i := int64(z-h0)*plane + int64(y)*int64(cols) + int64(x)
		if info.DType == volume.Uint16 {
			return float64(volume.Uint16s(held)[i])
		}
		return float64(volume.Float32s(held)[i])
	}
	clamp := func(v, n int) int { return min(max(v, 0), n-1) }
	for g := first; g < int64(b1)*plane; g += s.stride {
		z, y, x := int(g/plane), int(g%plane)/cols, int(g%plane)%cols
		nb = nb[:0]
		for dz := -r; dz <= r; dz++ {
			for dy := -r; dy <= r; dy++ {
				for dx := -r; dx <= r; dx++ {
					nb = append(nb, at(clamp(z+dz, nz), clamp(y+dy, rows), clamp(x+dx, cols)))
				}
			}
		}
		slices.Sort(nb)
		d := at(z, y, x) - nb[len(nb)/2]
		if !math.IsNaN(d) && !math.IsInf(d, 0) {
			s.diffs = append(s.diffs, d)
		}
	}
}

// suggestDif is the threshold from the sample's noise: spikeSigmas
// times 1.4826·MAD of the differences, rounded up to a whole data unit
// for integer data; ok false when the sample is empty or has no spread.
func (s *noiseSample) suggestDif() (dif, mad float64, ok bool) {
	if len(s.diffs) == 0 {
		return 0, 0, false
	}
	d := slices.Clone(s.diffs)
	slices.Sort(d)
	med := d[len(d)/2]
	for i := range d {
		d[i] = math.Abs(d[i] - med)
	}
	slices.Sort(d)
	mad = d[len(d)/2]
	if !(mad > 0) {
		return 0, 0, false
	}
	dif = spikeSigmas * 1.4826 * mad
	if s.integer {
		dif = math.Ceil(dif)
	} else {
		// Three significant digits, rounded up: a threshold to type.
		e := math.Pow(10, math.Floor(math.Log10(dif))-2)
		dif, _ = strconv.ParseFloat(fmt.Sprintf("%.3g", math.Ceil(dif/e)*e), 64)
	}
	return dif, mad, true
}

// replacedWarning says, when more than ReplacedWarnFraction of a kind's
// voxels were replaced, how many, and the threshold its noise suggests.
func replacedWarning(kind string, replaced, voxels int64, dif float64, s *noiseSample) string {
	if voxels == 0 || float64(replaced) <= ReplacedWarnFraction*float64(voxels) {
		return ""
	}
	msg := fmt.Sprintf("replaced %d of %d %s voxels (%.1f%%) with --dif %g, more than the %g%% that spikes usually are",
		replaced, voxels, kind, 100*float64(replaced)/float64(voxels), dif, 100*ReplacedWarnFraction)
	if s == nil {
		return msg
	}
	if sug, mad, ok := s.suggestDif(); ok {
		return msg + fmt.Sprintf("; their noise (median absolute deviation from the local median %.3g, over %d sampled voxels) suggests --dif %g (%d × 1.4826 × MAD), which would replace spikes only",
			mad, len(s.diffs), sug, spikeSigmas)
	}
	return msg + fmt.Sprintf("; their %d sampled voxels equal their local median (no noise to set a threshold from)", len(s.diffs))
}
