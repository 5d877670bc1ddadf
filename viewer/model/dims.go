package model

// Dims is where the view stands in the data: the slicing axis, the
// plane shown along each axis, and the map shown of stack layers (their
// fourth dimension). It keeps, per axis, the plane last asked for, so
// that hiding a deep layer clamps the plane and showing it again comes
// back to it (Clamp), and which axes were sliced along: one not sliced
// along before starts at its middle, as napari's dims do. Ranges are
// the caller's (the extent of the layers on show), passed in.
type Dims struct {
	axis        Axis
	index, want [3]int
	seen        [3]bool
	mapIdx      int
	mapWant     int
}

// Axis returns the slicing axis.
func (d *Dims) Axis() Axis { return d.axis }

// Slice returns the plane shown along the slicing axis.
func (d *Dims) Slice() int { return d.index[d.axis] }

// Index returns the plane shown along axis a.
func (d *Dims) Index(a Axis) int { return d.index[a] }

// Point returns the plane shown along z, y and x: the point the
// orthogonal views go through.
func (d *Dims) Point() [3]int { return d.index }

// Map returns the map shown of stack layers.
func (d *Dims) Map() int { return d.mapIdx }

// SetAxis slices along a, keeping each axis's own plane; an axis not
// sliced along before starts at the middle of extent. It reports
// whether the axis changed.
func (d *Dims) SetAxis(a Axis, extent [3]int) bool {
	if a == d.axis {
		return false
	}
	d.seen[d.axis] = true
	if !d.seen[a] {
		mid := extent[a] / 2
		d.index[a], d.want[a] = mid, mid
		d.seen[a] = true
	}
	d.axis = a
	return true
}

// SetSlice shows plane i along the slicing axis, clamped to [0, n), and
// remembers it as asked for. It reports whether the plane shown changed.
func (d *Dims) SetSlice(i, n int) bool {
	i = min(max(i, 0), max(n-1, 0))
	d.want[d.axis] = i
	d.seen[d.axis] = true
	if i == d.index[d.axis] {
		return false
	}
	d.index[d.axis] = i
	return true
}

// StepTarget returns the plane k planes on from the one shown along the
// slicing axis, of n, wrapping round at the ends when wrap is set
// (clamping is SetSlice's); -1 when n is 0.
func (d *Dims) StepTarget(k, n int, wrap bool) int {
	if n == 0 {
		return -1
	}
	i := d.index[d.axis] + k
	if wrap {
		i = ((i % n) + n) % n
	}
	return i
}

// SetPoint shows plane zyx[a] along every axis a, clamped to extent.
func (d *Dims) SetPoint(zyx, extent [3]int) {
	for a := range 3 {
		i := min(max(zyx[a], 0), max(extent[a]-1, 0))
		d.index[a], d.want[a] = i, i
		d.seen[a] = true
	}
}

// Centre shows the middle plane of extent along every axis: where the
// first volume opened starts.
func (d *Dims) Centre(extent [3]int) {
	for a := range 3 {
		d.index[a], d.want[a] = extent[a]/2, extent[a]/2
	}
}

// ShowAll readies the orthogonal views, which slice along every axis at
// once: an axis other than the slicing one that was never sliced along
// and stands at 0 moves to the middle of extent.
func (d *Dims) ShowAll(extent [3]int) {
	for a := range 3 {
		if Axis(a) != d.axis && !d.seen[a] && d.index[a] == 0 {
			d.index[a] = extent[a] / 2
		}
		d.seen[a] = true
	}
	d.want = d.index
}

// Clamp puts the plane along the slicing axis back to the one last asked
// for, clamped to [0, n): the range changed (a layer shown or hidden).
func (d *Dims) Clamp(n int) { d.index[d.axis] = min(d.want[d.axis], max(n-1, 0)) }

// SetMap shows map i of stack layers, clamped to [0, maps), and
// remembers it as asked for. It reports whether the map shown changed.
func (d *Dims) SetMap(i, maps int) bool {
	i = min(max(i, 0), max(maps-1, 0))
	d.mapWant = i
	if i == d.mapIdx {
		return false
	}
	d.mapIdx = i
	return true
}

// ClampMap puts the map back to the one last asked for, clamped to
// [0, maps).
func (d *Dims) ClampMap(maps int) { d.mapIdx = min(d.mapWant, max(maps-1, 0)) }
