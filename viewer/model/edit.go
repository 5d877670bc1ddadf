package model

import (
	"math"
	"slices"

	"github.com/voxlab/voxlab/processing/points"
)

// Commit records as one undoable edit a change already applied to the
// points idx (Preview): their states before and after.
func (m *PointSet) Commit(idx []int32, before, after []PointState) {
	if len(idx) == 0 {
		return
	}
	m.nextID++
	m.undo = append(m.undo, pointEdit{id: m.nextID, idx: idx, before: before, after: after})
	m.redo = nil
	m.changed()
}

// change applies new states to points idx as one undoable edit.
func (m *PointSet) change(idx []int32, after []PointState) {
	if len(idx) == 0 {
		return
	}
	before := m.s.states(idx)
	m.s.apply(idx, after)
	m.Commit(idx, before, after)
}

// States returns the current states of points idx.
func (m *PointSet) States(idx []int32) []PointState { return m.s.states(idx) }

// Preview sets the states of points idx without recording an edit or
// telling the observers: a drag shows the points moving, and Commit
// records the move when the drag ends.
func (m *PointSet) Preview(idx []int32, next []PointState) { m.s.apply(idx, next) }

// Undo reverts the last edit and reports whether there was one.
func (m *PointSet) Undo() bool { return m.step(&m.undo, &m.redo, false) }

// Redo makes the last undone edit again and reports whether there was one.
func (m *PointSet) Redo() bool { return m.step(&m.redo, &m.undo, true) }

// step moves the last edit of from to to, applying its states after
// (redo) or before (undo) it; false when from is empty.
func (m *PointSet) step(from, to *[]pointEdit, after bool) bool {
	if len(*from) == 0 {
		return false
	}
	e := (*from)[len(*from)-1]
	*from = (*from)[:len(*from)-1]
	st := e.before
	if after {
		st = e.after
	}
	m.s.apply(e.idx, st)
	*to = append(*to, e)
	m.changed()
	return true
}

// CanUndo and CanRedo report whether Undo and Redo have an edit to act on.
func (m *PointSet) CanUndo() bool { return len(m.undo) > 0 }

// CanRedo reports whether Redo has an undone edit to make again.
func (m *PointSet) CanRedo() bool { return len(m.redo) > 0 }

// Modified reports whether the layer has edits its file does not hold.
func (m *PointSet) Modified() bool { return m.editID() != m.savedID }

// MarkSaved records that the layer's file now holds its points as they
// are.
func (m *PointSet) MarkSaved() { m.savedID = m.editID() }

func (m *PointSet) editID() uint64 {
	if len(m.undo) == 0 {
		return 0
	}
	return m.undo[len(m.undo)-1].id
}

// AddPoint adds p as an undoable edit and returns its index.
func (m *PointSet) AddPoint(p Point) int {
	i := m.s.reserve()
	m.change([]int32{i}, []PointState{{P: p}})
	return int(i)
}

// Selected returns the indices of the selected points, in order.
func (m *PointSet) Selected() []int {
	s := &m.s
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

// SelectedIdx is Selected as the store's indices, for States and Preview.
func (m *PointSet) SelectedIdx() []int32 {
	sel := m.Selected()
	out := make([]int32, len(sel))
	for j, i := range sel {
		out[j] = int32(i)
	}
	return out
}

// NumSelected returns how many points are selected.
func (m *PointSet) NumSelected() int {
	m.s.mu.RLock()
	defer m.s.mu.RUnlock()
	return m.s.nsel
}

// SetSelected selects the points idx (live ones), replacing the
// selection, or adding to it with add. Selection is not an edit.
func (m *PointSet) SetSelected(add bool, idx ...int) {
	s := &m.s
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
	m.changed()
}

// ToggleSelected adds point i to the selection or takes it out.
func (m *PointSet) ToggleSelected(i int) {
	s := &m.s
	s.mu.Lock()
	if i >= 0 && i < len(s.sel) && s.sel[i] {
		s.sel[i] = false
		s.nsel--
		s.version++
		s.mu.Unlock()
		m.changed()
		return
	}
	s.mu.Unlock()
	m.SetSelected(true, i)
}

// DeleteSelected deletes the selected points as one edit and returns
// how many.
func (m *PointSet) DeleteSelected() int {
	idx := m.SelectedIdx()
	after := m.s.states(idx)
	for j := range after {
		after[j].Dead = true
	}
	m.change(idx, after)
	return len(idx)
}

// SetSelectedClass gives the selected points class c (the layer's own
// type name for it) as one edit, and counts them reviewed.
func (m *PointSet) SetSelectedClass(c points.Class) int {
	idx := m.SelectedIdx()
	name := m.TypeName(c)
	after := m.s.states(idx)
	var changed []int32
	var next []PointState
	for j, st := range after {
		m.MarkReviewed(int(idx[j]))
		if st.P.Type != name {
			st.P.Type = name
			changed = append(changed, idx[j])
			next = append(next, st)
		}
	}
	m.change(changed, next)
	if len(changed) == 0 {
		m.changed()
	}
	return len(idx)
}

// MoveSelected moves the selected points by (dz, dy, dx) voxels as one
// edit.
func (m *PointSet) MoveSelected(dz, dy, dx float64) {
	idx := m.SelectedIdx()
	after := m.s.states(idx)
	for j := range after {
		p := &after[j].P
		p.Z, p.Y, p.X = p.Z+dz, p.Y+dy, p.X+dx
	}
	m.change(idx, after)
}

// Pick returns the live point drawn nearest to data position (row, col)
// of slice idx along axis a, within radius data pixels, among the planes
// shown (±n); points of the slice itself win over fainter ones. -1 when
// none is that near.
func (m *PointSet) Pick(a Axis, idx, n int, row, col, radius float64) int {
	s := &m.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	best, bestD := -1, math.Inf(1)
	s.near(a, idx, n, func(i int32, d int, r, c float64) {
		dist := math.Hypot(r-row, c-col)
		if dist > radius {
			return
		}
		dist += math.Abs(float64(d)) * radius // the slice's own first
		if dist < bestD {
			best, bestD = int(i), dist
		}
	})
	return best
}

// InBox appends to dst the live points of the planes idx±n of axis a
// whose (row, col) lies in [r0, r1] x [c0, c1], sorted.
func (m *PointSet) InBox(dst []int, a Axis, idx, n int, r0, c0, r1, c1 float64) []int {
	s := &m.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	s.near(a, idx, n, func(i int32, _ int, r, c float64) {
		if r >= r0 && r <= r1 && c >= c0 && c <= c1 {
			dst = append(dst, int(i))
		}
	})
	slices.Sort(dst)
	return dst
}

// near calls f with each point of the planes idx±n of axis a, its
// plane's offset d from idx and its (row, col); the caller holds the
// lock.
func (s *store) near(a Axis, idx, n int, f func(i int32, d int, r, c float64)) {
	planes := s.planes[a]
	for d := -n; d <= n; d++ {
		k := idx + d
		if k < 0 || k >= len(planes) {
			continue
		}
		for _, i := range planes[k] {
			_, r, c := Coords(&s.pts[i], a)
			f(i, d, r, c)
		}
	}
}
