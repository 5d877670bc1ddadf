package zinger

import (
	"math"

	"github.com/voxlab/voxlab/internal/quickselect"
)

// The median for kernels 5 to 13 on typical data, by bounds.
//
// The kernel³ window is the union of kernel² z-columns of kernel values.
// Fewer than t+1 window values (t = (kernel³−1)/2, the median's rank) lie
// below the smallest column median — at most (kernel−1)/2 per column, so
// kernel²(kernel−1)/2 ≤ t in all — hence the median is at least that
// value; likewise at most the largest column median. A voxel within dif
// of both bounds keeps its value whatever the median is (dzBound), and
// these bounds cost O(kernel) per voxel: each column median is computed
// once per plane, then a minimum and maximum over kernel rows and kernel
// columns. Only the voxels left undecided need their median: it lies in
// [lo, hi], so it is found among the window's values in that range, by
// selection. When many voxels of a band are undecided (noisy data, a
// small dif), the rest of the band goes to the sorted-slab method
// (slab.go), which shares work between neighbours. The output
// is exactly that of computing every median.

// SlabOnly makes kernels of 5 or more use the slab method throughout,
// for the tests that check both methods against the naive reference.
var SlabOnly = false

// dzBoundScratch is the elements the bound path needs: kernel rows of
// column medians, the bounds over rows and then columns, a neighbourhood,
// and a column being sorted.
func dzBoundScratch(kernel, cols int) int {
	return kernel*cols + 4*cols + kernel*kernel*kernel + kernel
}

// dzBoundBand filters rows [y0, y1) of one output plane for kernels of 5
// or more.
func dzBoundBand[T Key](pl *dzPlane[T], p MedianParams, y0, y1 int, ws []T) {
	if SlabOnly {
		dzSlabBand(pl, p, y0, y1, ws)
		return
	}
	k, cols := p.Kernel, p.Cols
	r := k / 2
	var cm dzColMedians[T]
	off := 0
	for i := 0; i < k; i++ {
		cm.rows[i] = ws[off : off+cols]
		cm.key[i] = -1 << 30
		off += cols
	}
	vlo, vhi := ws[off:off+cols], ws[off+cols:off+2*cols]
	lo, hi := ws[off+2*cols:off+3*cols], ws[off+3*cols:off+4*cols]
	off += 4 * cols
	nb := ws[off : off+k*k*k]
	col := ws[off+k*k*k : off+k*k*k+k]
	b := dzBound{float: p.Float32, dif: float32(p.Dif), thr: int32(min(math.Ceil(p.Dif), 1<<17))}
	clampY := func(y int) int { return min(max(y, 0), p.Rows-1) }
	undecided, done := 0, 0
	for y := y0; y < y1; y++ {
		if pl.row() {
			return
		}
		// Bounds over the kernel rows, then over the kernel columns.
		for d := -r; d <= r; d++ {
			m := cm.get(pl, clampY(y+d), p, col)
			if d == -r {
				copy(vlo, m)
				copy(vhi, m)
				continue
			}
			for x, v := range m[:cols] {
				vlo[x] = min(vlo[x], v)
				vhi[x] = max(vhi[x], v)
			}
		}
		dzSlideMinMax(lo, hi, vlo, vhi, r)
		out := pl.out[y*cols : (y+1)*cols]
		center := pl.in[r][y*cols : (y+1)*cols]
		copy(out, center)
		var m [1]T
		for x, v := range center {
			if !b.undecided(uint32(v), uint32(lo[x]), uint32(hi[x])) {
				continue
			}
			undecided++
			m[0] = dzWindowMedian(pl, p, y, x, lo[x], hi[x], nb)
			dzReplace(out[x:x+1], center[x:x+1], m[:], p.Float32, p.Dif)
		}
		done += cols
		// Many undecided voxels: the slab method is cheaper for the rest.
		// One voxel by selection costs O(kernel³), the slabs O(kernel²)
		// per voxel; measured on the benchmark phantom (kernel 7: 3.3 M
		// voxels/s by selection, 1.0 by slabs; kernel 13: 0.08 and 0.25),
		// the slabs win when more than about 2/kernel of the voxels are
		// undecided.
		if y+1 < y1 && done >= 2*cols && undecided*p.Kernel > 2*done {
			dzSlabBand(pl, p, y+1, y1, ws)
			return
		}
	}
}

// dzColMedians caches the column medians of up to kernel rows of a plane.
type dzColMedians[T Key] struct {
	key  [13]int
	rows [13][]T
}

// get returns the medians of the z-columns of row y (clamped), as keys,
// computing them into the slot of the lowest cached row if needed (rows
// are asked for in increasing order, as in dzK3Rows).
func (c *dzColMedians[T]) get(pl *dzPlane[T], y int, p MedianParams, col []T) []T {
	k, cols := p.Kernel, p.Cols
	victim := 0
	for i := 0; i < k; i++ {
		if c.key[i] == y {
			return c.rows[i]
		}
		if c.key[i] < c.key[victim] {
			victim = i
		}
	}
	c.key[victim] = y
	dst := c.rows[victim]
	off := y * cols
	for x := 0; x < cols; x++ {
		for d := 0; d < k; d++ {
			v := pl.in[d][off+x]
			if p.Float32 {
				v = T(FloatKey(uint32(v)))
			}
			col[d] = v
		}
		dzInsertionSort(col)
		dst[x] = col[k/2]
	}
	return dst
}

// dzSlideMinMax writes the minimum of vlo and the maximum of vhi over
// columns x−r..x+r (clamped) for every x.
func dzSlideMinMax[T Key](lo, hi, vlo, vhi []T, r int) {
	n := len(lo)
	for x := 0; x < n; x++ {
		a, b := max(x-r, 0), min(x+r, n-1)
		l, h := vlo[a], vhi[a]
		for i := a + 1; i <= b; i++ {
			l = min(l, vlo[i])
			h = max(h, vhi[i])
		}
		lo[x], hi[x] = l, h
	}
}

// dzWindowMedian returns the median (as a key) of the neighbourhood of
// (y, x), knowing it lies in [lo, hi]: it counts the values below lo and
// selects among those in range.
func dzWindowMedian[T Key](pl *dzPlane[T], p MedianParams, y, x int, lo, hi T, nb []T) T {
	k, cols := p.Kernel, p.Cols
	r := k / 2
	below, n := 0, 0
	for dy := -r; dy <= r; dy++ {
		row := min(max(y+dy, 0), p.Rows-1) * cols
		for d := 0; d < k; d++ {
			in := pl.in[d][row : row+cols]
			for dx := -r; dx <= r; dx++ {
				v := in[min(max(x+dx, 0), cols-1)]
				if p.Float32 {
					v = T(FloatKey(uint32(v)))
				}
				switch {
				case v < lo:
					below++
				case v <= hi:
					nb[n] = v
					n++
				}
			}
		}
	}
	return quickselect.Nth(nb[:n], (k*k*k-1)/2-below)
}
