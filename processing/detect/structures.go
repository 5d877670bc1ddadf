package detect

import (
	"math"
	"unsafe"

	"github.com/voxlab/voxlab/processing/plan"
)

// point is a voxel, z, y, x.
type point struct{ z, y, x int32 }

// Bytes a voxel of a voxel list and a voxel list's header take.
const (
	pointBytes = int64(unsafe.Sizeof(point{}))
	listBytes  = int64(unsafe.Sizeof([]point(nil)))
)

// detector groups centre voxels into 6-connected structures plane by plane
// (cellfinder's CellDetector): a voxel joins the structures of its
// neighbours at x−1, y−1 and the same (y, x) of the previous plane, merging
// them (union-find). A structure that gained no voxel in a plane can never
// grow again, so it is handed out as soon as the next plane is done.
// Labels are renumbered once most of them belong to structures already
// handed out, so that the union-find arrays hold the open structures, not
// every structure of the volume.
type detector struct {
	h, w      int
	prev, cur []int32 // labels of the previous and current plane (0: none)
	prevSet   []int32 // indices set in prev, to clear it
	curSet    []int32
	parent    []int32
	pts       [][]point
	lastZ     []int32
	remap     []int32 // scratch of compact: new label by old root
	// mem counts the label planes (label) and, as they grow, the voxel
	// lists, sets and union-find arrays (label + " (open structures)");
	// vcap is the voxel lists' capacity, held the bytes counted for them.
	mem   *plan.Tracker
	label string
	vcap  int64
	held  int64
}

// newDetector returns a detector of h x w planes whose memory is counted
// in mem (nil: not counted) under label.
func newDetector(h, w int, mem *plan.Tracker, label string) *detector {
	mem.Add(label, labelPlanesBytes(h, w))
	return &detector{h: h, w: w, prev: make([]int32, h*w), cur: make([]int32, h*w),
		parent: []int32{0}, pts: [][]point{nil}, lastZ: []int32{-1}, mem: mem, label: label}
}

// labelPlanesBytes is the size of a detector's two label planes.
func labelPlanesBytes(h, w int) int64 { return 2 * 4 * int64(h) * int64(w) }

// release stops counting the detector's memory.
func (d *detector) release() {
	d.mem.Add(d.label, -labelPlanesBytes(d.h, d.w))
	d.mem.Add(d.label+" (open structures)", -d.held)
	d.held = 0
}

// account counts the growth of the structures' memory since the last
// call: once a plane, never per voxel.
func (d *detector) account() {
	if d.mem == nil {
		return
	}
	n := pointBytes*d.vcap + listBytes*int64(cap(d.pts)) +
		4*int64(cap(d.prevSet)+cap(d.curSet)+cap(d.remap)+cap(d.parent)+cap(d.lastZ))
	d.mem.Add(d.label+" (open structures)", n-d.held)
	d.held = n
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

// appendPoints appends q to the voxel list of root r, keeping vcap.
func (d *detector) appendPoints(r int32, q ...point) {
	c := cap(d.pts[r])
	d.pts[r] = append(d.pts[r], q...)
	d.vcap += int64(cap(d.pts[r]) - c)
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
	d.appendPoints(a, d.pts[b]...)
	d.vcap -= int64(cap(d.pts[b]))
	d.pts[b] = nil
	d.lastZ[a] = max(d.lastZ[a], d.lastZ[b])
	return a
}

// handOut removes root r's voxel list from the detector and returns it.
func (d *detector) handOut(r int32) []point {
	p := d.pts[r]
	d.pts[r] = nil
	d.vcap -= int64(cap(p))
	return p
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
		d.appendPoints(root, point{int32(z), int32(y), int32(x)})
		d.lastZ[root] = int32(z)
	})
	var done [][]point
	for _, i := range d.prevSet {
		r := d.find(d.prev[i])
		if d.lastZ[r] < int32(z) && d.pts[r] != nil {
			done = append(done, d.handOut(r))
		}
		d.prev[i] = 0
	}
	d.prev, d.cur = d.cur, d.prev
	d.prevSet, d.curSet = d.curSet, d.prevSet
	d.compact()
	d.account()
	return done
}

// compact renumbers the labels of the last plane 1, 2, ... when most
// labels belong to structures already handed out, so the union-find
// arrays stay the size of the open structures. Labels only name
// structures: renumbering changes no result.
func (d *detector) compact() {
	if len(d.parent) <= 2*len(d.prevSet)+1024 {
		return
	}
	if cap(d.remap) < len(d.parent) {
		d.remap = make([]int32, len(d.parent))
	}
	remap := d.remap[:len(d.parent)]
	clear(remap)
	parent, pts, lastZ := []int32{0}, [][]point{nil}, []int32{-1}
	for _, i := range d.prevSet {
		r := d.find(d.prev[i])
		if remap[r] == 0 {
			remap[r] = int32(len(parent))
			parent = append(parent, remap[r])
			pts = append(pts, d.pts[r])
			lastZ = append(lastZ, d.lastZ[r])
		}
		d.prev[i] = remap[r]
	}
	d.parent, d.pts, d.lastZ = parent, pts, lastZ
}

// flush returns every structure not yet handed out.
func (d *detector) flush() [][]point {
	var done [][]point
	for _, i := range d.prevSet {
		r := d.find(d.prev[i])
		if d.pts[r] != nil {
			done = append(done, d.handOut(r))
		}
	}
	for r, p := range d.pts {
		if p != nil {
			done = append(done, d.handOut(int32(r)))
		}
	}
	d.account()
	return done
}

// reset empties the detector for another volume of the same plane size,
// keeping its memory.
func (d *detector) reset() {
	for _, i := range d.prevSet {
		d.prev[i] = 0
	}
	for _, i := range d.curSet {
		d.cur[i] = 0
	}
	d.prevSet, d.curSet = d.prevSet[:0], d.curSet[:0]
	for r := range d.pts {
		if d.pts[r] != nil {
			d.handOut(int32(r))
		}
	}
	d.parent, d.pts, d.lastZ = d.parent[:1], d.pts[:1], d.lastZ[:1]
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
