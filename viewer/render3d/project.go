package render3d

import "math"

// projKey names a cached projection of a grid.
type projKey struct {
	axis    int
	reverse bool
	p       Params
}

// Project returns g reduced along grid axis axis (0 z, 1 y, 2 x) by
// p.Mode (MIP, Min, Average or Attenuated), as NumPy's
// g.max(axis=axis) and friends lay it out: C order over the two other
// axes. reverse marches from the high end of the axis (it matters to
// attenuated MIP only). The grid is read in memory order, in parallel
// slabs; the result is cached on g and must not be modified.
func Project(g *Grid, axis int, p Params, reverse bool) []float32 {
	if p.Mode != Attenuated {
		p.Lo, p.Hi, p.Attenuation, reverse = 0, 0, 0, false
	}
	p.Threshold, p.Linear, p.Step, p.Offset = 0, false, 0, Vec{}
	k := projKey{axis, reverse, p}
	g.mu.Lock()
	defer g.mu.Unlock()
	if out, ok := g.proj[k]; ok {
		return out
	}
	sh := g.Shape
	out := make([]float32, sh[0]*sh[1]*sh[2]/sh[axis])
	if g.U16 != nil {
		project(out, g.U16, sh, axis, p, reverse)
	} else {
		project(out, g.F32, sh, axis, p, reverse)
	}
	if g.proj == nil {
		g.proj = map[projKey][]float32{}
	}
	g.proj[k] = out
	return out
}

func project[T voxel](out []float32, data []T, sh [3]int, axis int, p Params, reverse bool) {
	nz, ny, nx := sh[0], sh[1], sh[2]
	nxy := ny * nx
	switch axis {
	case 0:
		// Lines along z: each worker takes a run of the plane and
		// streams it through every z plane.
		const run = 8192
		chunks := (nxy + run - 1) / run
		parallelRows(chunks, func(c int) {
			lo, hi := c*run, min((c+1)*run, nxy)
			reduceRuns(out[lo:hi], data, lo, nz, nxy, p, reverse)
		})
	case 1:
		parallelRows(nz, func(z int) {
			reduceRuns(out[z*nx:(z+1)*nx], data, z*nxy, ny, nx, p, reverse)
		})
	case 2:
		parallelRows(nz, func(z int) {
			for y := range ny {
				out[z*ny+y] = reduceLine(data[z*nxy+y*nx:][:nx], p, reverse)
			}
		})
	}
}

// reduceRuns reduces, for each i < len(out), the k lines
// data[base+j*stride+i], j < k, into out[i].
func reduceRuns[T voxel](out []float32, data []T, base, k, stride int, p Params, reverse bool) {
	n := len(out)
	switch p.Mode {
	case MIP, Min:
		// Reduce in the grid's own type (integer max for uint16 is
		// a few times faster than float32's NaN-aware max), one run
		// of 8192 at most at a time: it stays in L1.
		acc := make([]T, n)
		copy(acc, data[base:][:n])
		if p.Mode == MIP {
			for j := 1; j < k; j++ {
				row := data[base+j*stride:][:n]
				for i, v := range row {
					acc[i] = max(acc[i], v)
				}
			}
		} else {
			for j := 1; j < k; j++ {
				row := data[base+j*stride:][:n]
				for i, v := range row {
					acc[i] = min(acc[i], v)
				}
			}
		}
		for i, v := range acc {
			out[i] = float32(v)
		}
	case Average:
		acc := make([]float64, n)
		for j := range k {
			row := data[base+j*stride:][:n]
			for i, v := range row {
				acc[i] += float64(v)
			}
		}
		for i, s := range acc {
			out[i] = float32(s / float64(k))
		}
	case Attenuated:
		as := make([]attenuated, n)
		for i := range as {
			as[i] = attenuator(p)
		}
		for jj := range k {
			j := jj
			if reverse {
				j = k - 1 - jj
			}
			row := data[base+j*stride:][:n]
			for i, v := range row {
				as[i].add(float32(v))
			}
		}
		for i := range as {
			out[i] = as[i].result()
		}
	}
}

// reduceLine reduces one contiguous line.
func reduceLine[T voxel](line []T, p Params, reverse bool) float32 {
	switch p.Mode {
	case MIP:
		m := line[0]
		for _, v := range line[1:] {
			m = max(m, v)
		}
		return float32(m)
	case Min:
		m := line[0]
		for _, v := range line[1:] {
			m = min(m, v)
		}
		return float32(m)
	case Average:
		var s float64
		for _, v := range line {
			s += float64(v)
		}
		return float32(s / float64(len(line)))
	case Attenuated:
		a := attenuator(p)
		for i := range line {
			j := i
			if reverse {
				j = len(line) - 1 - i
			}
			a.add(float32(line[j]))
		}
		return a.result()
	}
	return float32(math.NaN())
}

// renderProjection draws a view along world axis axis (0 x, 1 y, 2 z;
// sign: which way the rays go) from the grid's projection: each pixel
// takes the projection at the nearest voxel to its ray, which is
// where the ray's samples would all lie.
func renderProjection(dst *Frame, g *Grid, r *ray, p Params, axis int, sign float64) {
	ga := 2 - axis // grid axis, z y x order
	proj := Project(g, ga, p, sign < 0)
	// The two other world axes, as (slow, fast) in the projection.
	var u, w int
	switch ga {
	case 0:
		u, w = 1, 0 // y rows, x columns
	case 1:
		u, w = 2, 0 // z rows, x columns
	case 2:
		u, w = 2, 1 // z rows, y columns
	}
	nu, nw := int(r.n[u]), int(r.n[w])
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	parallelRows(dst.H, func(j int) {
		row := r.o.add(r.dj.scale(float64(j)))
		for i := range dst.W {
			k := j*dst.W + i
			dst.Depth[k], dst.Shade[k] = inf, 1
			o := row.add(r.di.scale(float64(i)))
			a, b := o[u], o[w]
			if a < -0.5 || b < -0.5 || a > float64(nu)-0.5 || b > float64(nw)-0.5 {
				dst.Val[k] = nan
				continue
			}
			dst.Val[k] = proj[min(int(a+0.5), nu-1)*nw+min(int(b+0.5), nw-1)]
		}
	})
}
