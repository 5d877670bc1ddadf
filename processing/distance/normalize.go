package distance

import (
	"errors"
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

// errNonFinite says a masked value is NaN or ±Inf; the caller finds
// which, to say where.
var errNonFinite = errors.New("a value inside the mask is not finite")

// normStats returns the shift and scale of (x − shift)/scale for the
// masked values vals, which it leaves as they are; s is the selection's
// scratch. The sum of float32 values in float64 cannot overflow, so a
// non-finite sum is how a NaN or ±Inf shows (errNonFinite), without a
// test per voxel.
func normStats(n Normalization, vals []float32, s *selScratch) (shift, scale float64, err error) {
	if n == NoNormalization {
		return 0, 1, nil
	}
	if len(vals) < 2 {
		return 0, 0, fmt.Errorf("%d masked voxels: the standard deviation needs at least 2", len(vals))
	}
	sum := sumHist(vals, s.hist)
	if math.IsNaN(sum) || math.IsInf(sum, 0) {
		return 0, 0, errNonFinite
	}
	mean := sum / float64(len(vals))
	sel := radixSel{k: (len(vals) - 1) / 2}
	sel.pick(s.hist)
	// The median's first digit is known: the deviations' pass gathers
	// the values that share it when they are few, saving a pass.
	var ss float64
	var med float32
	if sel.n <= len(s.few) {
		var few []float32
		ss, few = sumSqDevGather(vals, mean, s.few[:0], sel.prefix, sel.fixed)
		med = quickselect.Nth(few, sel.k)
	} else {
		ss = sumSqDev(vals, mean)
		med = sel.finish(vals, s)
	}
	std := math.Sqrt(ss / float64(len(vals)-1))
	if !(std > 0) {
		return 0, 0, fmt.Errorf("constant inside the mask (every value %g): median-zscore would divide by 0; use --normalize none", vals[0])
	}
	return float64(med), std, nil
}

// sumHist returns Σv in float64 and fills h (zeroed here) with the
// counts of the first radix level's digits of v's order keys: the first
// pass of the median, fused with the mean's. Four partial sums break the
// chain of dependent additions, and four histograms (h's four quarters,
// added up at the end) the chain of increments of one count that
// similar neighbouring values make.
func sumHist(v []float32, h []int32) float64 {
	const bins = 1 << 11
	sh := radixLevels[0].shift
	h0, h1, h2, h3 := h[:bins], h[bins:2*bins], h[2*bins:3*bins], h[3*bins:4*bins]
	clear(h[:4*bins])
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(v); i += 4 {
		a, b, c, d := v[i], v[i+1], v[i+2], v[i+3]
		s0 += float64(a)
		s1 += float64(b)
		s2 += float64(c)
		s3 += float64(d)
		h0[orderKey(a)>>sh]++
		h1[orderKey(b)>>sh]++
		h2[orderKey(c)>>sh]++
		h3[orderKey(d)>>sh]++
	}
	for ; i < len(v); i++ {
		s0 += float64(v[i])
		h0[orderKey(v[i])>>sh]++
	}
	for j := range h0 {
		h0[j] += h1[j] + h2[j] + h3[j]
	}
	return (s0 + s1) + (s2 + s3)
}

// sumSqDev returns Σ(v − mean)², in four partial sums.
func sumSqDev(v []float32, mean float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(v); i += 4 {
		a, b, c, d := float64(v[i])-mean, float64(v[i+1])-mean, float64(v[i+2])-mean, float64(v[i+3])-mean
		s0 += a * a
		s1 += b * b
		s2 += c * c
		s3 += d * d
	}
	for ; i < len(v); i++ {
		d := float64(v[i]) - mean
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

// radixLevels split a 32-bit order key into the digits the selection
// finds one after the other, most significant first: 11 + 11 + 10 bits,
// so that a histogram (2,048 counts, 8 KiB) stays in the L1 cache.
var radixLevels = [...]struct{ shift, bits uint }{{21, 11}, {10, 11}, {0, 10}}

// histBins is the size of the selection's histogram: one count per
// value of the widest digit, four times (sumHist's four histograms).
const histBins = 4 << 11

// fewValues bounds the values the selection gathers to finish with
// quickselect once a digit's bucket is that small.
const fewValues = 4096

// selScratch is one goroutine's scratch for selectK.
type selScratch struct {
	hist []int32
	few  []float32
}

func newSelScratch() *selScratch {
	return &selScratch{hist: make([]int32, histBins), few: make([]float32, fewValues)}
}

// selScratchBytes is the size of a selScratch (for the planner).
const selScratchBytes = histBins*4 + fewValues*4

// orderKey maps a float32 to a uint32 whose unsigned order is the
// numerical order (IEEE 754 bits with negatives' bits flipped and
// positives' sign bit set), for finite values. Branch-free: the sign
// spreads into the mask with an arithmetic shift, since maps' signs are
// as unpredictable as noise.
func orderKey(f float32) uint32 {
	b := math.Float32bits(f)
	return b ^ (uint32(int32(b)>>31) | 1<<31)
}

// fromKey inverts orderKey.
func fromKey(k uint32) float32 {
	if k>>31 != 0 {
		return math.Float32frombits(k &^ (1 << 31))
	}
	return math.Float32frombits(^k)
}

// sumSqDevGather is sumSqDev that also appends to dst the values whose
// keys match prefix in the fixed bits (gatherKey): few, so the branch is
// predicted.
func sumSqDevGather(v []float32, mean float64, dst []float32, prefix, fixed uint32) (float64, []float32) {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(v); i += 4 {
		a, b, c, d := v[i], v[i+1], v[i+2], v[i+3]
		da, db, dc, dd := float64(a)-mean, float64(b)-mean, float64(c)-mean, float64(d)-mean
		s0 += da * da
		s1 += db * db
		s2 += dc * dc
		s3 += dd * dd
		if orderKey(a)&fixed == prefix {
			dst = append(dst, a)
		}
		if orderKey(b)&fixed == prefix {
			dst = append(dst, b)
		}
		if orderKey(c)&fixed == prefix {
			dst = append(dst, c)
		}
		if orderKey(d)&fixed == prefix {
			dst = append(dst, d)
		}
	}
	for ; i < len(v); i++ {
		d := float64(v[i]) - mean
		s0 += d * d
		if orderKey(v[i])&fixed == prefix {
			dst = append(dst, v[i])
		}
	}
	return (s0 + s1) + (s2 + s3), dst
}

// selectK returns the k-th smallest value of v (0-based) without
// changing v, using s as scratch.
func selectK(v []float32, k int, s *selScratch) float32 {
	h := s.hist[:1<<radixLevels[0].bits]
	clear(h)
	for _, x := range v {
		h[orderKey(x)>>radixLevels[0].shift]++
	}
	sel := radixSel{k: k}
	sel.pick(h)
	return sel.finish(v, s)
}

// radixSel is a radix select (most significant digit first) under way:
// each level finds the digit of the key of rank k from a histogram of the
// values whose higher digits match, in one pass over the values that
// reads and never moves them; once the matching values are few they are
// gathered and quickselect finishes, and after the last digit the key,
// hence the value, is known exactly (however many values share it).
// Linear in the number of values whatever they are, unlike a quickselect
// on all of them, and written by hand: neither the standard library nor
// gonum offers selection, and sorting every map would cost a factor
// log n.
type radixSel struct {
	// k is the rank sought among the n values that match prefix in the
	// fixed bits; lv the next level.
	k, n, lv      int
	prefix, fixed uint32
}

// pick takes the digit of level lv from its histogram h.
func (r *radixSel) pick(h []int32) {
	l := radixLevels[r.lv]
	d, below := 0, 0
	for ; below+int(h[d]) <= r.k; d++ {
		below += int(h[d])
	}
	r.k -= below
	r.n = int(h[d])
	r.prefix |= uint32(d) << l.shift
	r.fixed |= (uint32(1)<<l.bits - 1) << l.shift
	r.lv++
}

// finish runs the remaining levels over v.
func (r *radixSel) finish(v []float32, s *selScratch) float32 {
	for ; r.lv < len(radixLevels); r.lv++ {
		if r.n <= len(s.few) {
			return quickselect.Nth(gatherKey(s.few[:0], v, r.prefix, r.fixed), r.k)
		}
		l := radixLevels[r.lv]
		h := s.hist[:1<<l.bits]
		clear(h)
		digit := uint32(1)<<l.bits - 1
		for _, x := range v {
			if key := orderKey(x); key&r.fixed == r.prefix {
				h[key>>l.shift&digit]++
			}
		}
		r.pick(h)
		r.lv-- // pick moved on; the loop does too
	}
	return fromKey(r.prefix)
}

// gatherKey appends to dst the values of v whose keys match prefix in
// the fixed bits.
func gatherKey(dst, v []float32, prefix, fixed uint32) []float32 {
	for _, x := range v {
		if orderKey(x)&fixed == prefix {
			dst = append(dst, x)
		}
	}
	return dst
}
