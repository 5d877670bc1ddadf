package model

import (
	"cmp"
	"fmt"
	"slices"
)

// Walk targets beside the classes (points.Class values): every point, or
// the points not reviewed yet.
const (
	WalkAll        = -1
	WalkUnreviewed = -2
)

// MarkReviewed counts point i reviewed.
func (m *PointSet) MarkReviewed(i int) {
	if i >= len(m.reviewed) {
		m.reviewed = append(m.reviewed, make([]bool, i+1-len(m.reviewed))...)
	}
	if !m.reviewed[i] {
		m.reviewed[i] = true
		m.nReviewed++
	}
}

func (m *PointSet) isReviewed(i int32) bool { return int(i) < len(m.reviewed) && m.reviewed[i] }

// ReviewStarted reports whether any point has been reviewed.
func (m *PointSet) ReviewStarted() bool { return m.nReviewed > 0 }

// Reviewed returns how many live points have been reviewed (visited by
// the walk or classed) and how many live points there are.
func (m *PointSet) Reviewed() (done, total int) {
	s := &m.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	for i, on := range m.reviewed {
		if on && !s.dead[i] {
			done++
		}
	}
	return done, s.live
}

// Progress is the review line: "37 of 412 reviewed".
func (m *PointSet) Progress() string {
	done, total := m.Reviewed()
	return fmt.Sprintf("%d of %d reviewed", done, total)
}

// WalkAt returns the point the walk stands on (-1: none).
func (m *PointSet) WalkAt() int { return int(m.walkAt) }

// SetWalkAt puts the walk on point i (-1: nowhere: the next step starts
// from the selection or the plane on show).
func (m *PointSet) SetWalkAt(i int) { m.walkAt = int32(i) }

// Next steps the curation walk to the next (dir > 0) or previous point
// of target walk (WalkAll, WalkUnreviewed or a points.Class): in the
// review order when the layer has one, else in plane, row, column order
// along axis from where the walk stands (its last point, else the first
// selected, else plane). The walk stands on the point found, which
// counts reviewed; -1 when there is none that way. The caller shows and
// selects it.
func (m *PointSet) Next(walk, dir int, axis Axis, plane int) int {
	var found int32
	if m.reviewOrder != nil {
		found = m.nextInReviewOrder(walk, dir)
	} else {
		found = m.nextInPlaneOrder(walk, dir, axis, plane)
	}
	if found < 0 {
		return -1
	}
	m.walkAt = found
	m.MarkReviewed(int(found))
	return int(found)
}

// walkKey orders points for the walk: by plane along the slicing axis,
// then row, then column.
type walkKey struct {
	s, r, c float64
	i       int32
}

func walkCmp(a, b walkKey) int {
	return cmp.Or(cmp.Compare(a.s, b.s), cmp.Compare(a.r, b.r), cmp.Compare(a.c, b.c), cmp.Compare(a.i, b.i))
}

// walkMatch reports whether point i is a target of the walk (WalkAll,
// WalkUnreviewed or a class); the caller holds the store's lock.
func (m *PointSet) walkMatch(walk int, i int32) bool {
	switch walk {
	case WalkAll:
		return true
	case WalkUnreviewed:
		return !m.isReviewed(i)
	}
	return int(m.s.cls[i]) == walk
}

// nextInPlaneOrder returns the next (dir > 0) or previous point of the
// walk target in plane, row, column order along axis after where the
// walk stands (its last point, else the first selected, else the plane
// on show); -1 when there is none that way.
func (m *PointSet) nextInPlaneOrder(walk, dir int, axis Axis, plane int) int32 {
	s := &m.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	key := func(i int32) walkKey {
		sl, r, c := Coords(&s.pts[i], axis)
		return walkKey{sl, r, c, i}
	}
	var at walkKey
	have := false
	if w := m.walkAt; w >= 0 && int(w) < len(s.pts) && !s.dead[w] {
		at, have = key(w), true
	} else if s.nsel > 0 {
		for i, on := range s.sel {
			if on {
				at, have = key(int32(i)), true
				break
			}
		}
	}
	if !have {
		at = walkKey{s: float64(plane) - 0.5, i: -1}
		if dir < 0 {
			at = walkKey{s: float64(plane) + 0.5, i: -1}
		}
	}
	planes := s.planes[axis]
	var buf []walkKey
	k0 := min(max(PlaneOf(at.s), 0), len(planes)-1)
	for k := k0; k >= 0 && k < len(planes); k += cmp.Compare(dir, 0) | 1 {
		buf = buf[:0]
		for _, i := range planes[k] {
			if m.walkMatch(walk, i) {
				buf = append(buf, key(i))
			}
		}
		slices.SortFunc(buf, walkCmp)
		if dir >= 0 {
			for _, wk := range buf {
				if walkCmp(wk, at) > 0 {
					return wk.i
				}
			}
		} else {
			for j := len(buf) - 1; j >= 0; j-- {
				if walkCmp(buf[j], at) < 0 {
					return buf[j].i
				}
			}
		}
	}
	return -1
}
