package distance

import (
	"fmt"
	"math"
	"strings"

	"github.com/voxlab/voxlab/internal/quickselect"
)

// Normalization says how each map is scaled before it is compared.
type Normalization int

// The normalisations.
const (
	// MedianZScore maps x to (x − median)/std over the masked voxels, as
	// the challenge's "median_zscore" does with torch: the median is the
	// lower of the two middle values for an even count (torch.median) and
	// std the sample standard deviation, n − 1 in the denominator
	// (torch.std's default).
	MedianZScore Normalization = iota
	// NoNormalization compares the masked values as they are.
	NoNormalization
)

func (n Normalization) String() string {
	if n == NoNormalization {
		return "none"
	}
	return "median-zscore"
}

// ParseNormalization parses "median-zscore" (or "median_zscore") and "none".
func ParseNormalization(s string) (Normalization, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "median-zscore", "median_zscore", "":
		return MedianZScore, nil
	case "none":
		return NoNormalization, nil
	}
	return 0, fmt.Errorf("normalisation %q: use median-zscore or none", s)
}

// normStats returns the shift and scale of (x − shift)/scale for the
// masked values vals, which it reorders; hist is selectK's scratch.
func normStats(n Normalization, vals []float32, hist []int32) (shift, scale float64, err error) {
	if n == NoNormalization {
		return 0, 1, nil
	}
	if len(vals) < 2 {
		return 0, 0, fmt.Errorf("%d masked voxels: the standard deviation needs at least 2", len(vals))
	}
	var sum float64
	for _, v := range vals {
		sum += float64(v)
	}
	mean := sum / float64(len(vals))
	var ss float64
	for _, v := range vals {
		d := float64(v) - mean
		ss += d * d
	}
	std := math.Sqrt(ss / float64(len(vals)-1))
	if !(std > 0) {
		return 0, 0, fmt.Errorf("constant inside the mask (every value %g): median-zscore would divide by 0; use --normalize none", vals[0])
	}
	return float64(selectK(vals, (len(vals)-1)/2, hist)), std, nil
}

// histBins is the size of selectK's histogram: one bin per value of the
// top 16 bits of a float32's order key.
const histBins = 1 << 16

// orderKey maps a float32 to a uint32 whose unsigned order is the
// numerical order (IEEE 754 bits with negatives' bits flipped and
// positives' sign bit set), for finite values.
func orderKey(f float32) uint32 {
	b := math.Float32bits(f)
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// selectK returns the k-th smallest value of v (0-based), reordering v. A
// radix pass finds the bucket of the top 16 key bits that holds rank k
// (one counting pass, one gathering pass), then quickselect finishes
// inside that bucket, which is small unless the values crowd into one
// 16-bit bucket. Written by hand: neither the standard library nor gonum
// offers selection, and sorting every map would cost a factor log n.
// hist must hold histBins counts.
func selectK(v []float32, k int, hist []int32) float32 {
	hist = hist[:histBins]
	clear(hist)
	for _, x := range v {
		hist[orderKey(x)>>16]++
	}
	below, bucket := 0, 0
	for ; bucket < histBins; bucket++ {
		if below+int(hist[bucket]) > k {
			break
		}
		below += int(hist[bucket])
	}
	n := 0
	for _, x := range v {
		if int(orderKey(x)>>16) == bucket {
			v[n] = x // n ≤ the index read, so nothing unread is overwritten
			n++
		}
	}
	return quickselect.Nth(v[:n], k-below)
}
