package detect

import "math"

// point is a voxel, z, y, x.
type point struct{ z, y, x int32 }

// detector groups centre voxels into 6-connected structures plane by plane
// (cellfinder's CellDetector): a voxel joins the structures of its
// neighbours at x−1, y−1 and the same (y, x) of the previous plane, merging
// them (union-find). A structure that gained no voxel in a plane can never
// grow again, so it is handed out as soon as the next plane is done.
type detector struct {
	h, w      int
	prev, cur []int32 // labels of the previous and current plane (0: none)
	prevSet   []int32 // indices set in prev, to clear it
	curSet    []int32
	parent    []int32
	pts       [][]point
	lastZ     []int32
}

func newDetector(h, w int) *detector {
	return &detector{h: h, w: w, prev: make([]int32, h*w), cur: make([]int32, h*w),
		parent: []int32{0}, pts: [][]point{nil}, lastZ: []int32{-1}}
}

func (d *detector) find(l int32) int32 {
	r := l
	for d.parent[r] != r {
		r = d.parent[r]
	}
	for d.parent[l] != r {
		d.parent[l], l = r, d.parent[l]
	}
	return r
}

// union merges the structures of roots a and b and returns the new root,
// moving the smaller list of voxels into the larger.
func (d *detector) union(a, b int32) int32 {
	if a == b {
		return a
	}
	if len(d.pts[a]) < len(d.pts[b]) {
		a, b = b, a
	}
	d.parent[b] = a
	d.pts[a] = append(d.pts[a], d.pts[b]...)
	d.pts[b] = nil
	d.lastZ[a] = max(d.lastZ[a], d.lastZ[b])
	return a
}

// plane adds the centre voxels (non-zero bytes of flags, an h x w plane)
// of plane z, which must follow the previous call's plane, and returns
// the structures finished by it.
func (d *detector) plane(z int, flags []byte) [][]point {
	for _, i := range d.curSet {
		d.cur[i] = 0
	}
	d.curSet = d.curSet[:0]
	forSetBytes(flags, func(i int) {
		y, x := i/d.w, i%d.w
		var root int32
		join := func(l int32) {
			if l == 0 {
				return
			}
			r := d.find(l)
			if root == 0 {
				root = r
			} else {
				root = d.union(root, r)
			}
		}
		if x > 0 {
			join(d.cur[i-1])
		}
		if y > 0 {
			join(d.cur[i-d.w])
		}
		join(d.prev[i])
		if root == 0 {
			root = int32(len(d.parent))
			d.parent = append(d.parent, root)
			d.pts = append(d.pts, nil)
			d.lastZ = append(d.lastZ, -1)
		}
		d.cur[i] = root
		d.curSet = append(d.curSet, int32(i))
		d.pts[root] = append(d.pts[root], point{int32(z), int32(y), int32(x)})
		d.lastZ[root] = int32(z)
	})
	var done [][]point
	for _, i := range d.prevSet {
		r := d.find(d.prev[i])
		if d.lastZ[r] < int32(z) && d.pts[r] != nil {
			done = append(done, d.pts[r])
			d.pts[r] = nil
		}
		d.prev[i] = 0
	}
	d.prev, d.cur = d.cur, d.prev
	d.prevSet, d.curSet = d.curSet, d.prevSet
	return done
}

// flush returns every structure not yet handed out.
func (d *detector) flush() [][]point {
	var done [][]point
	for _, i := range d.prevSet {
		r := d.find(d.prev[i])
		if d.pts[r] != nil {
			done = append(done, d.pts[r])
			d.pts[r] = nil
		}
	}
	for r, p := range d.pts {
		if p != nil {
			done = append(done, p)
			d.pts[r] = nil
		}
	}
	return done
}

// forSetBytes calls fn with the index of each non-zero byte, skipping
// zero words eight bytes at a time.
func forSetBytes(b []byte, fn func(i int)) {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if b[i]|b[i+1]|b[i+2]|b[i+3]|b[i+4]|b[i+5]|b[i+6]|b[i+7] == 0 {
			continue
		}
		for k := i; k < i+8; k++ {
			if b[k] != 0 {
				fn(k)
			}
		}
	}
	for ; i < len(b); i++ {
		if b[i] != 0 {
			fn(i)
		}
	}
}

// centre is the rounded mean of the voxels, rounding half to even as
// numpy's round does (cellfinder's get_structure_centre).
func centre(pts []point) (z, y, x int) {
	var sz, sy, sx int64
	for _, p := range pts {
		sz += int64(p.z)
		sy += int64(p.y)
		sx += int64(p.x)
	}
	n := float64(len(pts))
	r := func(s int64) int { return int(math.RoundToEven(float64(s) / n)) }
	return r(sz), r(sy), r(sx)
}
