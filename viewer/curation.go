package viewer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/viewer/model"
)

// Walk targets beside the classes (points.Class values): every point, or
// the points not reviewed yet.
const (
	WalkAll        = model.WalkAll
	WalkUnreviewed = model.WalkUnreviewed
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

// Curation is the curation walk through the selected points layer as
// the application and the walk buttons drive it: which points it visits
// and the step to the next or previous one. Use it on the UI goroutine.
type Curation struct{ v *Viewer }

// Curation returns the viewer's curation walk.
func (v *Viewer) Curation() Curation { return Curation{v} }

// SetWalk chooses which points Next visits: a points.Class, WalkAll or
// WalkUnreviewed.
func (c Curation) SetWalk(t int) { c.v.edit.walk = t }

// Next moves the curation walk to the next (dir > 0) or previous point
// of the walk target in the selected points layer, in plane, row,
// column order along the slicing axis: it shows the point's plane,
// centres the view on it, selects it and counts it reviewed. It reports
// false, saying so in the status bar, when there is none that way.
func (c Curation) Next(dir int) bool {
	v := c.v
	pl := v.edit.layer(nil)
	if pl == nil {
		return false
	}
	found := pl.Next(v.edit.walk, dir, v.at.Axis(), v.at.Slice())
	if found < 0 {
		v.bar.status.SetText(fmt.Sprintf("%s: no more points that way (%s)", pl.Name(), pl.Progress()))
		return false
	}
	p, _ := pl.Point(found)
	sl, r, col := model.Coords(&p, v.at.Axis())
	v.Batch(func() {
		v.Dims().SetSlice(model.PlaneOf(sl))
		c.centreOn(r, col)
		pl.SetSelected(false, found)
	})
	return true
}

// centreOn pans so that data (row, col) is at the centre of the first
// panel showing the selected layer.
func (c Curation) centreOn(row, col float64) {
	v := c.v
	for _, p := range v.panels {
		if p.group != nil && !slices.Contains(p.group, v.stack.Selected()) {
			continue
		}
		sz := p.Size()
		if sz.IsZero() {
			return
		}
		x, y := p.xf().ToScreen(col+0.5, row+0.5, float64(sz.Width), float64(sz.Height))
		v.Panels().setNav(v.nav.Pan(float64(sz.Width)/2-x, float64(sz.Height)/2-y))
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
	if n := l.Outside(e); n > 0 {
		s += fmt.Sprintf(", %d outside the volume", n)
	}
	if l.ReviewStarted() {
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
	i := l.UnderReview()
	if i < 0 {
		return ""
	}
	t := fmt.Sprintf("point %d: %s", i+1, l.Class(i))
	if p, ok := l.Probability(i); ok {
		t += fmt.Sprintf(", probability %.3f", p)
	}
	return t
}

// imageExtent is the extent of the image layers of layers (the volume
// the points belong to), zero without one.
func imageExtent(layers []Layer) [3]int {
	var e [3]int
	for _, l := range layers {
		if il, ok := imageLayer(l); ok && il.fixed == nil {
			x := il.extent()
			for a := range e {
				e[a] = max(e[a], x[a])
			}
		}
	}
	return e
}
