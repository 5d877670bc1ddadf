package zinger

import (
	"math"
	"slices"
)

// The median for kernels 5 to 13, by sorted slabs and a sliding cut.
//
// For an output row, each column x has a slab: the kernel² values of the
// (z, y) square around the row in that column, kept sorted. Moving to the
// next row replaces one row of kernel values in every slab, a merge of
// O(kernel²). The window of an output voxel is the kernel slabs of columns
// x−r..x+r, and its median is the value m with fewer than t+1 window
// values below it and more than t at or below it (t = (kernel³−1)/2). For
// each slab of the window the cut keeps how many values lie below m and
// at or below m; sliding the window to x+1 swaps one slab (two binary
// searches) and moves m over the distinct values between the old and new
// median, each step a comparison across the kernel slabs. Smooth data move
// the median little, so this costs about O(kernel²) per voxel instead of
// the O(kernel³ log kernel) of sorting every neighbourhood, exactly. Most
// voxels need no median at all: dzSlabRowCounts decides them by counting
// in the slabs, and the sliding cut takes over where many are replaced.

// dzSlabScratch is the elements one worker needs: a sorted slab per
// column, a merge buffer, the outgoing and incoming values of an update,
// and one row of medians.
func dzSlabScratch(kernel, cols int) int {
	k2 := kernel * kernel
	return cols*k2 + k2 + 2*kernel + cols
}

// dzCut is one slab of the window with its cut at the current median.
type dzCut[T Key] struct {
	s      []T
	lo, hi int // values < m, values ≤ m
}

func dzSlabBand[T Key](pl *dzPlane[T], p MedianParams, y0, y1 int, ws []T) {
	k, cols := p.Kernel, p.Cols
	r, k2 := k/2, k*k
	slabs := ws[:cols*k2]
	tmp := ws[cols*k2 : cols*k2+k2]
	out := ws[cols*k2+k2 : cols*k2+k2+k]
	in := ws[cols*k2+k2+k : cols*k2+k2+2*k]
	med := ws[cols*k2+k2+2*k : cols*k2+k2+2*k+cols]
	clampY := func(y int) int { return min(max(y, 0), p.Rows-1) }
	key := func(v T) T {
		if p.Float32 {
			return T(FloatKey(uint32(v)))
		}
		return v
	}
	// column gathers the kernel values of row y (clamped) at column x,
	// one from each plane of the neighbourhood, sorted.
	column := func(dst []T, y, x int) {
		off := clampY(y)*cols + x
		for d := 0; d < k; d++ {
			dst[d] = key(pl.in[d][off])
		}
		dzInsertionSort(dst)
	}
	// Fill the slabs for row y0.
	for x := 0; x < cols; x++ {
		s := slabs[x*k2 : (x+1)*k2]
		for dy := -r; dy <= r; dy++ {
			column(s[(dy+r)*k:(dy+r+1)*k], y0+dy, x)
		}
		slices.Sort(s)
	}
	t := (k*k2 - 1) / 2
	var cuts [13]dzCut[T]
	counting := true
	for y := y0; y < y1; y++ {
		if pl.row() {
			return
		}
		if y > y0 && clampY(y-r-1) != clampY(y+r) {
			for x := 0; x < cols; x++ {
				column(out, y-r-1, x)
				column(in, y+r, x)
				dzSlabUpdate(slabs[x*k2:(x+1)*k2], tmp, out, in)
			}
		}
		dst, center := pl.out[y*cols:(y+1)*cols], pl.in[r][y*cols:(y+1)*cols]
		if counting {
			// Most voxels keep their value: decide by counting, and go
			// back to tracking the median when many are replaced.
			counting = dzSlabRowCounts(dst, center, slabs, cols, k2, r, t, p)*8 <= cols
			continue
		}
		dzSlabRow(med, slabs, cuts[:k], cols, k2, r, t)
		dzReplace(dst, center, med, p.Float32, p.Dif)
	}
}

// dzSlabRowCounts filters one row without tracking the median. A uint16
// voxel x keeps its value iff its median m satisfies x − thr < m < x +
// thr, that is iff fewer than t+1 window values lie below x − thr + 1 and
// more than t lie at or below x + thr − 1: two counts, each a binary
// search in the kernel sorted slabs. For float32 the same counts test a
// slightly narrower range, [x − d, x + d] with d = dif·(1 − 2⁻²⁰), in
// which |fl(x − m)| < dif holds whatever the rounding; a voxel outside it
// (or a NaN or infinite one) gets its exact median and the exact test.
// Medians are found by bisecting the key range with the same counts. It
// returns how many voxels changed.
func dzSlabRowCounts[T Key](dst, center, slabs []T, cols, k2, r, t int, p MedianParams) int {
	slab := func(x int) []T {
		x = min(max(x, 0), cols-1)
		return slabs[x*k2 : (x+1)*k2]
	}
	// below counts the window keys < v (or ≤ v with le).
	below := func(x int, v uint32, le bool) int {
		n := 0
		for d := -r; d <= r; d++ {
			n += dzRank(slab(x+d), v, le)
		}
		return n
	}
	thr := int32(min(math.Ceil(p.Dif), 1<<17))
	fd := float32(p.Dif)
	inner := float64(fd) * (1 - 1.0/(1<<20))
	top := uint64(65535)
	if p.Float32 {
		top = math.MaxUint32
	}
	changed := 0
	for x, c := range center[:cols] {
		// Keep x if the median's key lies in [a, b] (bounds checked only
		// where they exclude something).
		var a, b uint32
		checkA, checkB, sure := false, false, true
		if !p.Float32 {
			v := int32(c)
			if av := v - thr + 1; av > 0 {
				a, checkA = uint32(av), true
			}
			if bv := v + thr - 1; bv < 65535 {
				b, checkB = uint32(bv), true
			}
		} else if xv := float64(math.Float32frombits(uint32(c))); math.IsNaN(xv) || math.IsInf(xv, 0) {
			sure = false
		} else {
			lo, hi := dzFloatRange(xv, inner)
			a, b, checkA, checkB = FloatKey(math.Float32bits(lo)), FloatKey(math.Float32bits(hi)), true, true
		}
		keep := !checkA || below(x, a, false) <= t
		keep = keep && (!checkB || below(x, b, true) > t)
		if keep && sure {
			dst[x] = c
			continue
		}
		// The median is the smallest key with more than t keys at or
		// below it.
		lo, hi := uint64(0), top
		for lo < hi {
			mid := lo + (hi-lo)/2
			if below(x, uint32(mid), true) > t {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		m := [1]T{T(lo)}
		dzReplace(dst[x:x+1], center[x:x+1], m[:], p.Float32, p.Dif)
		if dst[x] != c {
			changed++
		}
	}
	return changed
}

// dzFloatRange returns the float32 range [lo, hi] = [x − d, x + d] rounded
// inwards and kept finite, so that every float32 m in it is within d of x.
func dzFloatRange(x, d float64) (lo, hi float32) {
	lo, hi = float32(x-d), float32(x+d)
	if float64(lo) < x-d {
		lo = math.Nextafter32(lo, float32(math.Inf(1)))
	}
	if float64(hi) > x+d {
		hi = math.Nextafter32(hi, float32(math.Inf(-1)))
	}
	return max(lo, -math.MaxFloat32), min(hi, math.MaxFloat32)
}

// dzRank returns how many keys of sorted s are < v (≤ v with le).
func dzRank[T Key](s []T, v uint32, le bool) int {
	i, j := 0, len(s)
	for i < j {
		h := int(uint(i+j) >> 1)
		if e := uint32(s[h]); e < v || (le && e == v) {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// dzSlabRow finds the median of every window of one row.
func dzSlabRow[T Key](med, slabs []T, cuts []dzCut[T], cols, k2, r, t int) {
	slab := func(x int) []T {
		x = min(max(x, 0), cols-1)
		return slabs[x*k2 : (x+1)*k2]
	}
	k := len(cuts)
	// Start at the middle value of the centre slab of column 0.
	m := slab(0)[k2/2]
	lo, hi := 0, 0
	for i := range cuts {
		c := &cuts[i]
		c.s = slab(i - r)
		c.lo, c.hi = dzBounds(c.s, m)
		lo += c.lo
		hi += c.hi
	}
	next := 0 // the cut that leaves the window next
	for x := 0; ; x++ {
		m, lo, hi = dzSlide(cuts, m, lo, hi, t)
		med[x] = m
		if x+1 == cols {
			return
		}
		c := &cuts[next]
		lo -= c.lo
		hi -= c.hi
		c.s = slab(x + 1 + r)
		c.lo, c.hi = dzBounds(c.s, m)
		lo += c.lo
		hi += c.hi
		next++
		if next == k {
			next = 0
		}
	}
}

// dzSlide moves m to the t-th smallest value (0-based) of the window,
// given for m the counts lo (values < m) and hi (values ≤ m).
func dzSlide[T Key](cuts []dzCut[T], m T, lo, hi, t int) (T, int, int) {
	for t < lo {
		// The median is below m: step down to the largest value < m.
		first := true
		var nm T
		for i := range cuts {
			c := &cuts[i]
			if c.lo > 0 && (first || c.s[c.lo-1] > nm) {
				nm, first = c.s[c.lo-1], false
			}
		}
		m, hi, lo = nm, lo, 0
		for i := range cuts {
			c := &cuts[i]
			c.hi = c.lo
			for c.lo > 0 && c.s[c.lo-1] == m {
				c.lo--
			}
			lo += c.lo
		}
	}
	for t >= hi {
		// The median is above m: step up to the smallest value > m.
		first := true
		var nm T
		for i := range cuts {
			c := &cuts[i]
			if c.hi < len(c.s) && (first || c.s[c.hi] < nm) {
				nm, first = c.s[c.hi], false
			}
		}
		m, lo, hi = nm, hi, 0
		for i := range cuts {
			c := &cuts[i]
			c.lo = c.hi
			for c.hi < len(c.s) && c.s[c.hi] == m {
				c.hi++
			}
			hi += c.hi
		}
	}
	return m, lo, hi
}

// dzBounds returns how many values of sorted s are < m and ≤ m.
func dzBounds[T Key](s []T, m T) (lo, hi int) {
	lo, _ = slices.BinarySearch(s, m)
	hi = lo
	for hi < len(s) && s[hi] == m {
		hi++
	}
	return lo, hi
}

// dzSlabUpdate removes the sorted values out from the sorted slab s and
// merges in the sorted values in (as many), through tmp.
func dzSlabUpdate[T Key](s, tmp, out, in []T) {
	i, o, j, n := 0, 0, 0, 0
	for i < len(s) {
		v := s[i]
		if o < len(out) && v == out[o] {
			i++
			o++
			continue
		}
		for j < len(in) && in[j] <= v {
			tmp[n] = in[j]
			n++
			j++
		}
		tmp[n] = v
		n++
		i++
	}
	n += copy(tmp[n:], in[j:])
	copy(s, tmp[:n])
}

// dzInsertionSort sorts a handful of values.
func dzInsertionSort[T Key](s []T) {
	for i := 1; i < len(s); i++ {
		v := s[i]
		j := i
		for j > 0 && s[j-1] > v {
			s[j] = s[j-1]
			j--
		}
		s[j] = v
	}
}
