package viewer

import (
	"math"
	"slices"

	"github.com/voxlab/voxlab/processing/points"
)

// pointEdit is one undoable change to a points layer: the states of the
// points it touched before and after.
type pointEdit struct {
	id            uint64
	idx           []int32
	before, after []pointState
}

// commit records an edit already applied to the store.
func (l *PointsLayer) commit(idx []int32, before, after []pointState) {
	if len(idx) == 0 {
		return
	}
	l.nextID++
	l.undo = append(l.undo, pointEdit{id: l.nextID, idx: idx, before: before, after: after})
	l.redo = nil
	l.changed()
}

// change applies new states to points idx as one undoable edit.
func (l *PointsLayer) change(idx []int32, after []pointState) {
	if len(idx) == 0 {
		return
	}
	before := l.store.states(idx)
	l.store.apply(idx, after)
	l.commit(idx, before, after)
}

// Undo reverts the last edit and reports whether there was one.
func (l *PointsLayer) Undo() bool {
	if len(l.undo) == 0 {
		return false
	}
	e := l.undo[len(l.undo)-1]
	l.undo = l.undo[:len(l.undo)-1]
	l.store.apply(e.idx, e.before)
	l.redo = append(l.redo, e)
	l.changed()
	return true
}

// Redo makes the last undone edit again and reports whether there was one.
func (l *PointsLayer) Redo() bool {
	if len(l.redo) == 0 {
		return false
	}
	e := l.redo[len(l.redo)-1]
	l.redo = l.redo[:len(l.redo)-1]
	l.store.apply(e.idx, e.after)
	l.undo = append(l.undo, e)
	l.changed()
	return true
}

// Modified reports whether the layer has edits its file does not hold.
func (l *PointsLayer) Modified() bool { return l.editID() != l.savedID }

func (l *PointsLayer) editID() uint64 {
	if len(l.undo) == 0 {
		return 0
	}
	return l.undo[len(l.undo)-1].id
}

// Points returns a copy of the layer's points, in their order.
func (l *PointsLayer) Points() []Point { return l.store.livePoints() }

// AddPoint adds p as an undoable edit and returns its index.
func (l *PointsLayer) AddPoint(p Point) int {
	i := l.store.reserve()
	l.change([]int32{i}, []pointState{{P: p}})
	return int(i)
}

// Point returns the point at index i and whether it exists.
func (l *PointsLayer) Point(i int) (Point, bool) {
	s := l.store
	s.mu.RLock()
	defer s.mu.RUnlock()
	if i < 0 || i >= len(s.pts) || s.dead[i] {
		return Point{}, false
	}
	return s.pts[i], true
}

// Selected returns the indices of the selected points, in order.
func (l *PointsLayer) Selected() []int {
	s := l.store
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]int, 0, s.nsel)
	for i, on := range s.sel {
		if on {
			out = append(out, i)
		}
	}
	return out
}

func (l *PointsLayer) selectedIdx() []int32 {
	sel := l.Selected()
	out := make([]int32, len(sel))
	for j, i := range sel {
		out[j] = int32(i)
	}
	return out
}

// NumSelected returns how many points are selected.
func (l *PointsLayer) NumSelected() int {
	l.store.mu.RLock()
	defer l.store.mu.RUnlock()
	return l.store.nsel
}

// SetSelected selects the points idx (live ones), replacing the
// selection, or adding to it with add. Selection is not an edit.
func (l *PointsLayer) SetSelected(add bool, idx ...int) {
	s := l.store
	s.mu.Lock()
	if !add {
		clear(s.sel)
		s.nsel = 0
	}
	if len(s.sel) < len(s.pts) {
		s.sel = append(s.sel, make([]bool, len(s.pts)-len(s.sel))...)
	}
	for _, i := range idx {
		if i >= 0 && i < len(s.pts) && !s.dead[i] && !s.sel[i] {
			s.sel[i] = true
			s.nsel++
		}
	}
	s.version++
	s.mu.Unlock()
	l.changed()
}

// toggleSelected adds point i to the selection or takes it out.
func (l *PointsLayer) toggleSelected(i int) {
	s := l.store
	s.mu.Lock()
	if i < len(s.sel) && s.sel[i] {
		s.sel[i] = false
		s.nsel--
		s.version++
		s.mu.Unlock()
		l.changed()
		return
	}
	s.mu.Unlock()
	l.SetSelected(true, i)
}

// DeleteSelected deletes the selected points as one edit.
func (l *PointsLayer) DeleteSelected() int {
	idx := l.selectedIdx()
	after := l.store.states(idx)
	for j := range after {
		after[j].Dead = true
	}
	l.change(idx, after)
	return len(idx)
}

// SetSelectedClass gives the selected points class c (the layer's own
// type name for it) as one edit, and counts them reviewed.
func (l *PointsLayer) SetSelectedClass(c points.Class) int {
	idx := l.selectedIdx()
	name := l.store.typeName(c)
	after := l.store.states(idx)
	var changed []int32
	var next []pointState
	for j, st := range after {
		l.markReviewed(idx[j])
		if st.P.Type != name {
			st.P.Type = name
			changed = append(changed, idx[j])
			next = append(next, st)
		}
	}
	l.change(changed, next)
	if len(changed) == 0 {
		l.changed()
	}
	return len(idx)
}

// MoveSelected moves the selected points by (dz, dy, dx) voxels as one
// edit.
func (l *PointsLayer) MoveSelected(dz, dy, dx float64) {
	idx := l.selectedIdx()
	after := l.store.states(idx)
	for j := range after {
		p := &after[j].P
		p.Z, p.Y, p.X = p.Z+dz, p.Y+dy, p.X+dx
	}
	l.change(idx, after)
}

// Counts returns the number of live points of each class.
func (l *PointsLayer) Counts() [points.NumClasses]int {
	l.store.mu.RLock()
	defer l.store.mu.RUnlock()
	return l.store.counts
}

// pick returns the live point drawn nearest to data position (row, col)
// of slice idx along axis a, within radius data pixels, among the planes
// shown (±n); points of the slice itself win over fainter ones. -1 when
// none is that near.
func (s *pointStore) pick(a Axis, idx, n int, row, col, radius float64) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	best, bestD := -1, math.Inf(1)
	planes := s.planes[a]
	for d := -n; d <= n; d++ {
		k := idx + d
		if k < 0 || k >= len(planes) {
			continue
		}
		for _, i := range planes[k] {
			_, r, c := coords(&s.pts[i], a)
			dist := math.Hypot(r-row, c-col)
			if dist > radius {
				continue
			}
			dist += math.Abs(float64(d)) * radius // the slice's own first
			if dist < bestD {
				best, bestD = int(i), dist
			}
		}
	}
	return best
}

// inBox returns the live points of the planes idx±n of axis a whose
// (row, col) lies in [r0, r1] x [c0, c1].
func (s *pointStore) inBox(dst []int, a Axis, idx, n int, r0, c0, r1, c1 float64) []int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	planes := s.planes[a]
	for d := -n; d <= n; d++ {
		k := idx + d
		if k < 0 || k >= len(planes) {
			continue
		}
		for _, i := range planes[k] {
			_, r, c := coords(&s.pts[i], a)
			if r >= r0 && r <= r1 && c >= c0 && c <= c1 {
				dst = append(dst, int(i))
			}
		}
	}
	slices.Sort(dst)
	return dst
}
