package zinger

import "math"

// The 3x3x3 median, separably (Adams 2021, "Fast median filters using
// separable sorting networks", ACM TOG 40(4)): sort each z-column of 3
// once (used by the 9 windows that contain it), merge the sorted columns
// of three rows into sorted 9-lists (two output rows share the merge of
// their two common rows), and select the median of 27 from three sorted
// 9-lists (two output columns share the merge of their two common lists,
// pruned to the ranks the selection needs). All of it is branch-free
// min/max on registers (net.go, generated). Columns outside
// the row replicate the edge (padded column 0 and w-1), rows and planes
// are clamped: scipy.ndimage's mode='nearest'.

// dzK3Scratch is the elements one worker needs: four rows of z-sorted
// triples, two rows of sorted 9-lists (both padded by one column each
// side), one row of medians and two padded rows of bounds.
func dzK3Scratch(cols int) int { return 4*3*(cols+2) + 2*9*(cols+2) + cols + 2*(cols+2) }

// dzK3Rows caches the z-sorted triples of up to four rows of one plane.
type dzK3Rows[T Key] struct {
	key  [4]int
	rows [4][]T
}

// get returns the z-sorted triples of row y (already clamped), computing
// them into the slot of the lowest cached row when they are not there:
// rows are asked for in increasing order.
func (c *dzK3Rows[T]) get(pl *dzPlane[T], y, cols int, float bool) []T {
	victim := 0
	for i, k := range c.key {
		if k == y {
			return c.rows[i]
		}
		if k < c.key[victim] {
			victim = i
		}
	}
	c.key[victim] = y
	dzZSortRow(c.rows[victim], pl.in[0][y*cols:(y+1)*cols], pl.in[1][y*cols:(y+1)*cols], pl.in[2][y*cols:(y+1)*cols], float)
	return c.rows[victim]
}

// dzZSortRow sorts the three values of each column (planes z-1, z, z+1)
// into dst as (low, middle, high) triples, padded by a copy of the first
// and last column.
func dzZSortRow[T Key](dst, a, b, c []T, float bool) {
	n := len(a)
	b, c = b[:n], c[:n]
	t := dst[3 : 3*n+3]
	if float {
		for x := range a {
			u := T(FloatKey(uint32(a[x])))
			v := T(FloatKey(uint32(b[x])))
			w := T(FloatKey(uint32(c[x])))
			u, v = min(u, v), max(u, v)
			v, w = min(v, w), max(v, w)
			u, v = min(u, v), max(u, v)
			o := t[3*x : 3*x+3 : 3*x+3]
			o[0], o[1], o[2] = u, v, w
		}
	} else {
		for x := range a {
			u, v, w := a[x], b[x], c[x]
			u, v = min(u, v), max(u, v)
			v, w = min(v, w), max(v, w)
			u, v = min(u, v), max(u, v)
			o := t[3*x : 3*x+3 : 3*x+3]
			o[0], o[1], o[2] = u, v, w
		}
	}
	copy(dst[0:3], dst[3:6])
	copy(dst[3*n+3:3*n+6], dst[3*n:3*n+3])
}

// dzK3Band filters rows [y0, y1) of one output plane.
//
// Most voxels of real data are far from any zinger, and for them the
// median need not be known: the median of 27 lies between the smallest
// and the largest middle value of the nine z-sorted triples (fewer than
// 14 values lie below the smallest middle value: at most the low value of
// each triple; likewise above the largest), so a voxel within dif of both
// bounds keeps its value whatever the median is. The bounds cost a few
// min/max per voxel; only the rows where many voxels are left undecided
// take the shared full path, and single undecided voxels take dzVoxel27.
// The output is exactly that of computing every median.
func dzK3Band[T Key](pl *dzPlane[T], p MedianParams, y0, y1 int, ws []T) {
	cols, w := p.Cols, p.Cols+2
	var zr dzK3Rows[T]
	off := 0
	for i := range zr.rows {
		zr.rows[i] = ws[off : off+3*w]
		zr.key[i] = -1 << 30
		off += 3 * w
	}
	s9a := ws[off : off+9*w]
	s9b := ws[off+9*w : off+18*w]
	off += 18 * w
	med := ws[off : off+cols]
	lo := ws[off+cols : off+cols+w]
	hi := ws[off+cols+w : off+cols+2*w]
	clamp := func(y int) int { return min(max(y, 0), p.Rows-1) }
	row := func(y int) []T { return zr.get(pl, clamp(y), cols, p.Float32) }
	b := dzBound{float: p.Float32, dif: float32(p.Dif), thr: int32(min(math.Ceil(p.Dif), 1<<17))}
	dense := cols/8 + 1
	for y := y0; y < y1; y++ {
		if pl.row() {
			return
		}
		zm, z0, z1 := row(y-1), row(y), row(y+1)
		out := pl.out[y*cols : (y+1)*cols]
		center := pl.in[1][y*cols : (y+1)*cols]
		dzMidBounds(lo, hi, zm, z0, z1)
		if n := dzUndecided(center, lo, hi, b); n == 0 {
			copy(out, center)
			continue
		} else if n < dense {
			dzSparseRow(out, center, lo, hi, zm, z0, z1, b, p)
			continue
		}
		// Many undecided voxels (noisy data, a small dif): the full
		// path, sharing the merge of rows y and y+1 with the next row
		// when that one is in the band too.
		if y+1 < y1 {
			z2 := row(y + 2)
			dzMergeRowPair(s9a, s9b, zm, z0, z1, z2, w)
			dzMedianRow(med, s9a, cols)
			dzReplace(out, center, med, p.Float32, p.Dif)
			y++
			pl.wk.Add(1)
			dzMedianRow(med, s9b, cols)
			dzReplace(pl.out[y*cols:(y+1)*cols], pl.in[1][y*cols:(y+1)*cols], med, p.Float32, p.Dif)
			continue
		}
		dzMergeRow(s9a, zm, z0, z1, w)
		dzMedianRow(med, s9a, cols)
		dzReplace(out, center, med, p.Float32, p.Dif)
	}
}

// dzMidBounds writes, for each column of a row, the smallest (lo) and
// largest (hi) middle value of the z-sorted triples of its 3x3 (y, x)
// neighbourhood: first over the three rows per padded column, then over
// three columns (lo[x] and hi[x] are then for output column x).
func dzMidBounds[T Key](lo, hi, zm, z0, z1 []T) {
	w := len(lo)
	for x := 0; x < w; x++ {
		a, b, c := zm[3*x+1], z0[3*x+1], z1[3*x+1]
		lo[x] = min(a, b, c)
		hi[x] = max(a, b, c)
	}
	for x := 0; x < w-2; x++ {
		lo[x] = min(lo[x], lo[x+1], lo[x+2])
		hi[x] = max(hi[x], hi[x+1], hi[x+2])
	}
}

// dzBound decides whether a voxel keeps its value for every median in
// [lo, hi].
type dzBound struct {
	float bool
	dif   float32
	thr   int32
}

// undecided reports whether the voxel's fate depends on where the median
// lies in [lo, hi]. For uint16, |v − m| < thr for all such m iff v − lo <
// thr and hi − v < thr. For float32, fl(v − m) is monotone in m, so it
// lies in [fl(v − hi), fl(v − lo)]; NaN in v or a bound leaves the voxel
// undecided, and the full path gives it its exact value.
func (b dzBound) undecided(v, lo, hi uint32) bool {
	if !b.float {
		return int32(v)-int32(lo) >= b.thr || int32(hi)-int32(v) >= b.thr
	}
	fv := math.Float32frombits(v)
	l := math.Float32frombits(FloatUnkey(lo))
	h := math.Float32frombits(FloatUnkey(hi))
	return !(fv-h > -b.dif && fv-l < b.dif)
}

// dzUndecided counts the undecided voxels of a row.
func dzUndecided[T Key](center, lo, hi []T, b dzBound) int {
	n := 0
	lo, hi = lo[:len(center)], hi[:len(center)]
	for x, v := range center {
		if b.undecided(uint32(v), uint32(lo[x]), uint32(hi[x])) {
			n++
		}
	}
	return n
}

// dzSparseRow copies the row and computes the median of its few
// undecided voxels one by one.
func dzSparseRow[T Key](out, center, lo, hi, zm, z0, z1 []T, b dzBound, p MedianParams) {
	copy(out, center)
	lo, hi = lo[:len(center)], hi[:len(center)]
	var m [1]T
	for x, v := range center {
		if b.undecided(uint32(v), uint32(lo[x]), uint32(hi[x])) {
			m[0] = dzVoxel27(zm, z0, z1, x+1)
			dzReplace(out[x:x+1], center[x:x+1], m[:], p.Float32, p.Dif)
		}
	}
}

// dzSelect returns the 14th smallest of the union of a sorted 18-list A
// and a sorted 9-list B, given A's ranks 5..14 (1-based) as q4..q13 and B
// from its largest b8 down to b0: the k-th smallest of two sorted lists is
// min over i+j = k of max(A_i, B_j) (with A_0 = B_0 = −∞).
func dzSelect[T Key](q4, q5, q6, q7, q8, q9, q10, q11, q12, q13, b8, b7, b6, b5, b4, b3, b2, b1, b0 T) T {
	m := min(max(q4, b8), max(q5, b7), max(q6, b6), max(q7, b5), max(q8, b4))
	return min(m, max(q9, b3), max(q10, b2), max(q11, b1), max(q12, b0), q13)
}
