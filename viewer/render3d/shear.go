package render3d

import (
	"math"
	"sync"
)

// Shear-warp (P. Lacroute and M. Levoy, "Fast volume rendering using a
// shear-warp factorization of the viewing transformation", SIGGRAPH
// 1994) for MIP, minimum and average at nearest sampling: the rays
// step one voxel along the principal axis k of the view direction
// (the one it travels most along), so the ray through (u0, v0) of slice
// 0 meets slice s at (u0 + s a, v0 + s b), a and b the direction's
// other components over its k component. Reducing each voxel into the
// intermediate image at (u - round(s a), v - round(s b)) visits every
// voxel once, in memory order, with no per-sample float arithmetic; a
// frame then looks its rays' (u0, v0) up in the intermediate image.
// Next to the ray caster's samples, which round u0 + s a as a whole,
// a sample may land one voxel over.

// shearKey names a grid's intermediate image.
type shearKey struct {
	k    int
	a, b float64
	mode Mode
}

// shearImage is the reduction of a grid along sheared lines.
type shearImage struct {
	key        shearKey
	w, h       int // columns (v) and rows (u)
	umin, vmin int
	u, v       int // the world axes (x 0, y 1, z 2) of rows and columns
	val        []float32
	hit        []bool
}

// shear returns g's intermediate image for principal axis k and slopes
// a (of axis u) and b (of axis v), computed or cached (one per grid).
func (g *Grid) shear(k int, a, b float64, mode Mode) *shearImage {
	key := shearKey{k, a, b, mode}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sheared != nil && g.sheared.key == key {
		return g.sheared
	}
	n := Vec{float64(g.Shape[2]), float64(g.Shape[1]), float64(g.Shape[0])}
	// u and v: the two axes other than k, the slower in memory first.
	var u, v int
	switch k {
	case 0:
		u, v = 2, 1
	case 1:
		u, v = 2, 0
	default:
		u, v = 1, 0
	}
	nk := n[k] - 1
	si := &shearImage{key: key, u: u, v: v}
	si.umin = int(math.Min(0, math.Round(-nk*a)))
	si.vmin = int(math.Min(0, math.Round(-nk*b)))
	si.h = int(n[u]) + int(math.Abs(math.Round(nk*a))) + 1
	si.w = int(n[v]) + int(math.Abs(math.Round(nk*b))) + 1
	// idx = tab[z][z] + tab[y][y] + tab[x][x] (world axis order).
	var tab [3][]int
	for q := range 3 {
		tab[q] = make([]int, int(n[q]))
		for c := range tab[q] {
			switch q {
			case k:
				tab[q][c] = (int(math.Round(-float64(c)*a))-si.umin)*si.w + int(math.Round(-float64(c)*b)) - si.vmin
			case u:
				tab[q][c] = c * si.w
			case v:
				tab[q][c] = c
			}
		}
	}
	if g.U16 != nil {
		shearReduce(si, g.U16, g.Shape, tab, mode)
	} else {
		shearReduce(si, g.F32, g.Shape, tab, mode)
	}
	g.sheared = si
	return si
}

// shearReduce fills si from data, z slabs in parallel, each into an
// image of its own, merged at the end. MIP and minimum start from the
// type's lowest and highest values, so the hot loop is one load, one
// max and one store per voxel; which pixels any voxel reached follows
// from the geometry (shearHits).
func shearReduce[T voxel](si *shearImage, data []T, sh [3]int, tab [3][]int, mode Mode) {
	nz, ny, nx := sh[0], sh[1], sh[2]
	w := min(workers(), nz)
	size := si.w * si.h
	var lowest, highest T
	switch any(lowest).(type) {
	case uint16:
		highest = T(math.MaxUint16)
	case float32:
		lowest, highest = T(float32(math.Inf(-1))), T(float32(math.Inf(1)))
	}
	type part struct {
		m   []T
		sum []float64
		cnt []int32
	}
	parts := make([]part, w)
	var wg sync.WaitGroup
	for pi := range w {
		wg.Go(func() {
			p := &parts[pi]
			switch mode {
			case Average:
				p.sum = make([]float64, size)
				p.cnt = make([]int32, size)
			case MIP:
				p.m = make([]T, size)
				for i := range p.m {
					p.m[i] = lowest
				}
			default:
				p.m = make([]T, size)
				for i := range p.m {
					p.m[i] = highest
				}
			}
			tx, ty, tz := tab[0], tab[1], tab[2]
			for z := pi * nz / w; z < (pi+1)*nz/w; z++ {
				for y := range ny {
					base := tz[z] + ty[y]
					row := data[(z*ny+y)*nx:][:nx]
					m := p.m
					switch mode {
					case MIP:
						for x, val := range row {
							i := base + tx[x]
							m[i] = max(m[i], val)
						}
					case Min:
						for x, val := range row {
							i := base + tx[x]
							m[i] = min(m[i], val)
						}
					default:
						for x, val := range row {
							i := base + tx[x]
							p.sum[i] += float64(val)
							p.cnt[i]++
						}
					}
				}
			}
		})
	}
	wg.Wait()
	si.val = make([]float32, size)
	si.hit = shearHits(si, tab, sh)
	for i := range size {
		if !si.hit[i] {
			continue
		}
		if mode == Average {
			var n int32
			var s float64
			for pi := range parts {
				s += parts[pi].sum[i]
				n += parts[pi].cnt[i]
			}
			si.val[i] = float32(s / float64(max(n, 1)))
			continue
		}
		m := parts[0].m[i]
		for pi := 1; pi < len(parts); pi++ {
			if mode == MIP {
				m = max(m, parts[pi].m[i])
			} else {
				m = min(m, parts[pi].m[i])
			}
		}
		si.val[i] = float32(m)
	}
}

// shearHits marks the intermediate pixels some voxel reduces into:
// slice s covers the rectangle of the slice's shape at its offset, and
// the offsets change by at most one from slice to slice, so a row's
// covered columns are one run, from the least offset of the slices
// covering the row to the greatest plus the slice's width.
func shearHits(si *shearImage, tab [3][]int, sh [3]int) []bool {
	k := 0
	for q := range 3 {
		if q != si.u && q != si.v {
			k = q
		}
	}
	n := [3]int{sh[2], sh[1], sh[0]}
	hit := make([]bool, si.w*si.h)
	for U := range si.h {
		lo, hi := math.MaxInt, math.MinInt
		for _, off := range tab[k] {
			// Offsets are never negative: umin and vmin were taken off.
			ou, ov := off/si.w, off%si.w
			if U >= ou && U < ou+n[si.u] {
				lo, hi = min(lo, ov), max(hi, ov+n[si.v])
			}
		}
		for V := max(lo, 0); V < min(hi, si.w); V++ {
			hit[U*si.w+V] = true
		}
	}
	return hit
}

// renderShear draws a frame from g's intermediate image along
// principal axis k (r.d[k] = ±1): each pixel's ray is followed to slice
// 0 of k and the image interpolated bilinearly at (u0, v0) (the warp
// of shear-warp), or taken at the nearest pixel where a neighbour was
// reached by no voxel (the volume's silhouette).
func renderShear(dst *Frame, g *Grid, r *ray, p Params, k int) {
	var u, v int
	switch k {
	case 0:
		u, v = 2, 1
	case 1:
		u, v = 2, 0
	default:
		u, v = 1, 0
	}
	si := g.shear(k, r.d[u]/r.d[k], r.d[v]/r.d[k], p.Mode)
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	parallelRows(dst.H, func(j int) {
		row := r.o.add(r.dj.scale(float64(j)))
		for i := range dst.W {
			px := j*dst.W + i
			dst.Depth[px], dst.Shade[px] = inf, 1
			o := row.add(r.di.scale(float64(i)))
			t := -o[k] / r.d[k]
			fu, fv := o[u]+t*r.d[u]-float64(si.umin), o[v]+t*r.d[v]-float64(si.vmin)
			U, V := int(math.Round(fu)), int(math.Round(fv))
			if U < 0 || V < 0 || U >= si.h || V >= si.w || !si.hit[U*si.w+V] {
				dst.Val[px] = nan
				continue
			}
			dst.Val[px] = si.val[U*si.w+V]
			u0, v0 := int(math.Floor(fu)), int(math.Floor(fv))
			if u0 < 0 || v0 < 0 || u0+1 >= si.h || v0+1 >= si.w {
				continue
			}
			i := u0*si.w + v0
			if !si.hit[i] || !si.hit[i+1] || !si.hit[i+si.w] || !si.hit[i+si.w+1] {
				continue
			}
			a, b := float32(fu-float64(u0)), float32(fv-float64(v0))
			dst.Val[px] = (si.val[i]*(1-b)+si.val[i+1]*b)*(1-a) + (si.val[i+si.w]*(1-b)+si.val[i+si.w+1]*b)*a
		}
	})
}
