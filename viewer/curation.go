package viewer

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/voxlab/voxlab/processing/points"
)

// Walk targets beside the classes (points.Class values): every point, or
// the points not reviewed yet.
const (
	WalkAll        = -1
	WalkUnreviewed = -2
)

// walkNames are the walk targets in the order the controls offer them.
var walkNames = []struct {
	name string
	t    int
}{
	{"all points", WalkAll},
	{"not reviewed", WalkUnreviewed},
	{"unknown", int(points.Unknown)},
	{"cells", int(points.Cell)},
	{"non-cells", int(points.NonCell)},
}

// SetWalk chooses which points Next and Previous visit: a points.Class,
// WalkAll or WalkUnreviewed.
func (v *Viewer) SetWalk(t int) { v.edit.walk = t }

// Walk returns the walk target.
func (v *Viewer) Walk() int { return v.edit.walk }

// markReviewed counts point i reviewed.
func (l *PointsLayer) markReviewed(i int32) {
	if int(i) >= len(l.reviewed) {
		l.reviewed = append(l.reviewed, make([]bool, int(i)+1-len(l.reviewed))...)
	}
	if !l.reviewed[i] {
		l.reviewed[i] = true
		l.nReviewed++
	}
}

func (l *PointsLayer) isReviewed(i int32) bool { return int(i) < len(l.reviewed) && l.reviewed[i] }

// Reviewed returns how many live points have been reviewed (visited by
// the walk or classed) and how many live points there are.
func (l *PointsLayer) Reviewed() (done, total int) {
	s := l.store
	s.mu.RLock()
	defer s.mu.RUnlock()
	for i, on := range l.reviewed {
		if on && !s.dead[i] {
			done++
		}
	}
	return done, s.live
}

// Progress is the review line: "37 of 412 reviewed".
func (l *PointsLayer) Progress() string {
	done, total := l.Reviewed()
	return fmt.Sprintf("%d of %d reviewed", done, total)
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

// WalkNext moves the curation walk to the next (dir > 0) or previous
// point of the walk target in the selected points layer, in plane, row,
// column order along the slicing axis: it shows the point's plane,
// centres the view on it, selects it and counts it reviewed. It reports
// false, saying so in the status bar, when there is none that way.
func (v *Viewer) WalkNext(dir int) bool {
	pl := v.editLayer(nil)
	if pl == nil {
		return false
	}
	var found int32
	if pl.reviewOrder != nil {
		found = pl.nextInReviewOrder(v.edit.walk, dir)
	} else {
		found = pl.nextInPlaneOrder(v.edit.walk, dir, v.axis, v.index[v.axis])
	}
	if found < 0 {
		v.bar.status.SetText(fmt.Sprintf("%s: no more points that way (%s)", pl.Name(), pl.Progress()))
		return false
	}
	pl.walkAt = found
	pl.markReviewed(found)
	p, _ := pl.Point(int(found))
	sl, r, c := coords(&p, v.axis)
	v.Batch(func() {
		v.SetSlice(planeOf(sl))
		v.centreOn(r, c)
		pl.SetSelected(false, int(found))
	})
	return true
}

// walkMatch reports whether point i is a target of the walk (WalkAll,
// WalkUnreviewed or a class); the caller holds the store's lock.
func (pl *PointsLayer) walkMatch(walk int, i int32) bool {
	switch walk {
	case WalkAll:
		return true
	case WalkUnreviewed:
		return !pl.isReviewed(i)
	}
	return int(pl.store.cls[i]) == walk
}

// nextInPlaneOrder returns the next (dir > 0) or previous point of the
// walk target in plane, row, column order along axis after where the
// walk stands (its last point, else the first selected, else the plane
// on show); -1 when there is none that way.
func (pl *PointsLayer) nextInPlaneOrder(walk, dir int, axis Axis, plane int) int32 {
	s := pl.store
	s.mu.RLock()
	key := func(i int32) walkKey {
		sl, r, c := coords(&s.pts[i], axis)
		return walkKey{sl, r, c, i}
	}
	// Where the walk stands: its last point, else the first selected,
	// else before the plane on show.
	var at walkKey
	have := false
	if w := pl.walkAt; w >= 0 && int(w) < len(s.pts) && !s.dead[w] {
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
	found := int32(-1)
	var buf []walkKey
	k0 := min(max(planeOf(at.s), 0), len(planes)-1)
	for k := k0; k >= 0 && k < len(planes) && found < 0; k += cmp.Compare(dir, 0) | 1 {
		buf = buf[:0]
		for _, i := range planes[k] {
			if pl.walkMatch(walk, i) {
				buf = append(buf, key(i))
			}
		}
		slices.SortFunc(buf, walkCmp)
		if dir >= 0 {
			for _, wk := range buf {
				if walkCmp(wk, at) > 0 {
					found = wk.i
					break
				}
			}
		} else {
			for j := len(buf) - 1; j >= 0; j-- {
				if walkCmp(buf[j], at) < 0 {
					found = buf[j].i
					break
				}
			}
		}
	}
	s.mu.RUnlock()
	return found
}

// centreOn pans so that data (row, col) is at the centre of the first
// panel showing the selected layer.
func (v *Viewer) centreOn(row, col float64) {
	for _, p := range v.panels {
		if p.group != nil && !slices.Contains(p.group, v.stack.sel) {
			continue
		}
		sz := p.Size()
		if sz.IsZero() {
			return
		}
		x, y := p.xf().toScreen(col+0.5, row+0.5, float64(sz.Width), float64(sz.Height))
		v.setNav(v.nav.pan(float64(sz.Width)/2-x, float64(sz.Height)/2-y))
		return
	}
}

// countsText writes counts per class, naming only the classes present:
// "300 cell, 100 non-cell".
func countsText(c [points.NumClasses]int) string {
	var parts []string
	for _, cl := range []points.Class{points.Cell, points.NonCell, points.Unknown} {
		if c[cl] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c[cl], cl))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// statusText is the layer's part of the status bar: the points of the
// slice in view and of the layer, per class, those outside the volume of
// extent e, and the review progress once the walk has started.
func (l *PointsLayer) statusText(e [3]int) string {
	s := fmt.Sprintf("%s: %d in view (%s) of %d (%s)", l.Name(), l.InView(), countsText(l.inView), l.Len(), countsText(l.Counts()))
	if n := l.outside(e); n > 0 {
		s += fmt.Sprintf(", %d outside the volume", n)
	}
	if l.nReviewed > 0 {
		s += ", " + l.Progress()
	}
	return s
}

// shortStatus is statusText cut to the counts, for a status bar that
// has to fit several points layers: "cells.xml: 14/56 in view".
func shortStatus(l *PointsLayer) string {
	return fmt.Sprintf("%s: %d/%d in view", l.Name(), l.InView(), l.Len())
}

// pointText describes the point under review: the one the walk stands
// on, or the only one selected: its number, class and, for a
// classifier's points, the cell probability ("" when none is).
func pointText(l *PointsLayer) string {
	s := l.store
	s.mu.RLock()
	defer s.mu.RUnlock()
	i := -1
	switch w := int(l.walkAt); {
	case w >= 0 && w < len(s.sel) && s.sel[w] && !s.dead[w]:
		i = w
	case s.nsel == 1:
		i = slices.Index(s.sel, true)
	}
	if i < 0 || i >= len(s.pts) {
		return ""
	}
	t := fmt.Sprintf("point %d: %s", i+1, s.cls[i])
	if i < len(l.prob) && !math.IsNaN(l.prob[i]) {
		t += fmt.Sprintf(", probability %.3f", l.prob[i])
	}
	return t
}

// outside counts the layer's live points outside the extent e of the
// image layers (none when e is empty).
func (l *PointsLayer) outside(e [3]int) int {
	if e == [3]int{} {
		return 0
	}
	s := l.store
	s.mu.RLock()
	defer s.mu.RUnlock()
	if e == l.outExt && s.version == l.outVer {
		return l.outN
	}
	n := 0
	for i, p := range s.pts {
		if !s.dead[i] && !points.Inside(p, e) {
			n++
		}
	}
	l.outN, l.outExt, l.outVer = n, e, s.version
	return n
}

// imageExtent is the extent of the image layers (the volume the points
// belong to), zero without one.
func (v *Viewer) imageExtent() [3]int {
	var e [3]int
	for _, l := range v.stack.layers {
		if il, ok := l.(*ImageLayer); ok && il.fixed == nil {
			x := il.extent()
			for a := range e {
				e[a] = max(e[a], x[a])
			}
		}
	}
	return e
}
