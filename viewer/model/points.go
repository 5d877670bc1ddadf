package model

import (
	"math"
	"slices"

	"github.com/voxlab/voxlab/processing/points"
)

// PointSet is a points layer's data: the points, their classes and the
// classifier's probabilities, the selection, the undoable edits and the
// curation walk's state. Edits and selection are made on the UI
// goroutine and tell the observers; Append, the queries and the drawing
// visits are safe from any goroutine (a job appends detections while the
// UI draws).
type PointSet struct {
	s store
	// history of edits: undo holds the edits made (last on top), redo
	// those undone; nextID numbers them, and savedID is the edit the
	// layer's file holds (0: as loaded).
	undo, redo []pointEdit
	nextID     uint64
	savedID    uint64
	// reviewed marks the points the curation walk visited or the user
	// classed; walkAt is the point the walk stands on (-1: none).
	reviewed  []bool
	nReviewed int
	walkAt    int32
	// reviewOrder, when set, is the walk's order (order.go).
	reviewOrder []int32
	// prob is the classifier's cell probability of each point as read
	// (NaN: none; nil: a file without them), shown during review.
	prob []float64
	// outN counts the points outside the volume of extent outExt at
	// store version outVer (counting 10^6 points on every pointer move
	// would cost milliseconds).
	outN   int
	outExt [3]int
	outVer uint64

	observers []func()
}

// pointEdit is one undoable change to a points layer: the states of the
// points it touched before and after.
type pointEdit struct {
	id            uint64
	idx           []int32
	before, after []PointState
}

// NewPointSet returns a layer's points model holding pts, unedited.
func NewPointSet(pts []Point) *PointSet {
	m := &PointSet{walkAt: -1}
	m.s.add(pts)
	return m
}

// Watch has f called after every edit, undo, redo and selection change
// (on the goroutine that made it: the UI's).
func (m *PointSet) Watch(f func()) { m.observers = append(m.observers, f) }

func (m *PointSet) changed() {
	for _, f := range m.observers {
		f()
	}
}

// Extend adds points, not as edits: they are not undone and do not mark
// the layer modified (detections arriving plane by plane). Safe from any
// goroutine; it tells no observer (the caller asks for a redraw).
func (m *PointSet) Extend(pts ...Point) { m.s.add(pts) }

// Len returns the number of live points.
func (m *PointSet) Len() int {
	m.s.mu.RLock()
	defer m.s.mu.RUnlock()
	return m.s.live
}

// Points returns a copy of the live points, in their order.
func (m *PointSet) Points() []Point {
	pts, _ := m.s.liveWith(nil)
	return pts
}

// Point returns the point at index i and whether it exists.
func (m *PointSet) Point(i int) (Point, bool) {
	s := &m.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	if i < 0 || i >= len(s.pts) || s.dead[i] {
		return Point{}, false
	}
	return s.pts[i], true
}

// Counts returns the number of live points of each class.
func (m *PointSet) Counts() [points.NumClasses]int {
	m.s.mu.RLock()
	defer m.s.mu.RUnlock()
	return m.s.counts
}

// Extent returns, per axis, the largest rounded coordinate of a point
// ever stored plus one.
func (m *PointSet) Extent() [3]int {
	m.s.mu.RLock()
	defer m.s.mu.RUnlock()
	return m.s.extent
}

// Version is bumped on every change of the points or the selection.
func (m *PointSet) Version() uint64 {
	m.s.mu.RLock()
	defer m.s.mu.RUnlock()
	return m.s.version
}

// TypeName returns the type name to give points of class c: the first
// name of that class the layer holds ("artifact" from a detection CSV,
// "non-cell" from cellfinder XML), else the class's own.
func (m *PointSet) TypeName(c points.Class) string {
	m.s.mu.RLock()
	defer m.s.mu.RUnlock()
	if n := m.s.names[c]; n != "" {
		return n
	}
	return c.String()
}

// EachLive calls f with every live point and its class, in order, under
// the store's read lock (f must not call back into m).
func (m *PointSet) EachLive(f func(p Point, c points.Class)) {
	s := &m.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	for i, p := range s.pts {
		if !s.dead[i] {
			f(p, s.cls[i])
		}
	}
}

// VisitPlane calls f with each live point of plane k along axis a: its
// index, the point, its class and whether it is selected, under the
// store's read lock (f must not call back into m). It is how a view
// draws a slice without touching the points of other planes.
func (m *PointSet) VisitPlane(a Axis, k int, f func(i int32, p *Point, c points.Class, sel bool)) {
	s := &m.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	planes := s.planes[a]
	if k < 0 || k >= len(planes) {
		return
	}
	for _, i := range planes[k] {
		f(i, &s.pts[i], s.cls[i], int(i) < len(s.sel) && s.sel[i])
	}
}

// Outside counts the live points outside the extent e of the image
// layers (none when e is empty).
func (m *PointSet) Outside(e [3]int) int {
	if e == [3]int{} {
		return 0
	}
	s := &m.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	if e == m.outExt && s.version == m.outVer {
		return m.outN
	}
	n := 0
	for i, p := range s.pts {
		if !s.dead[i] && !points.Inside(p, e) {
			n++
		}
	}
	m.outN, m.outExt, m.outVer = n, e, s.version
	return n
}

// SetProbabilities gives the points as read their classifier's cell
// probabilities (NaN: none), shown during review and saved with them.
func (m *PointSet) SetProbabilities(p []float64) { m.prob = p }

// Probability returns point i's cell probability and whether it has one.
func (m *PointSet) Probability(i int) (float64, bool) {
	if i < 0 || i >= len(m.prob) || math.IsNaN(m.prob[i]) {
		return 0, false
	}
	return m.prob[i], true
}

// HasProbabilities reports whether the points came with probabilities.
func (m *PointSet) HasProbabilities() bool { return m.prob != nil }

// LiveWithProbabilities returns the live points and, when the layer has
// probabilities, each one's (NaN for a point added since), so that a
// reviewed classify CSV saved keeps its probability column and reopens
// in review order.
func (m *PointSet) LiveWithProbabilities() ([]Point, []float64) { return m.s.liveWith(m.prob) }

// UnderReview returns the point under review: the one the walk stands on
// when selected, else the only one selected; -1 when none is.
func (m *PointSet) UnderReview() int {
	s := &m.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	i := -1
	switch w := int(m.walkAt); {
	case w >= 0 && w < len(s.sel) && s.sel[w] && !s.dead[w]:
		i = w
	case s.nsel == 1:
		i = slices.Index(s.sel, true)
	}
	if i >= len(s.pts) {
		return -1
	}
	return i
}

// Class returns the class of stored point i (live or not).
func (m *PointSet) Class(i int) points.Class {
	m.s.mu.RLock()
	defer m.s.mu.RUnlock()
	return m.s.cls[i]
}
