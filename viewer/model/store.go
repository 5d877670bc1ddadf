package model

import (
	"math"
	"sync"

	"github.com/voxlab/voxlab/processing/points"
)

// Point is one point of a points layer: its position in voxels (z, y, x;
// fractional positions allowed) and a type name, whose class (cell,
// non-cell, unknown) chooses its symbol.
type Point = points.Point

// PointState is what an edit changes of a point: where it is, its type,
// and whether it exists (deleted points, and added points undone, stay
// in the store as tombstones so that indices never move).
type PointState struct {
	P    Point
	Dead bool
}

// store holds a layer's points with, per axis, the indices of the live
// points of each plane, so drawing a slice, picking and box selection
// touch only the points near it (10^6 points stay fast). Safe for
// concurrent use: a job appends detections while the UI draws.
type store struct {
	mu     sync.RWMutex
	pts    []Point
	dead   []bool
	cls    []points.Class // ClassOf(pts[i].Type), cached for drawing
	planes [3][][]int32   // planes[axis][round(coord)] = live point indices
	extent [3]int         // max rounded coordinate + 1 per axis
	live   int
	counts [points.NumClasses]int
	// names holds, per class, the first type name seen of it: setting a
	// point's class reuses the layer's own name ("artifact" from a
	// detection CSV, "non-cell" from cellfinder XML).
	names [points.NumClasses]string
	// sel marks the selected points (indices past its end are not).
	sel  []bool
	nsel int
	// mark is scratch for apply.
	mark    []bool
	version uint64 // bumped on every change
}

// add appends points and indexes them.
func (s *store) add(pts []Point) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pts = append(s.pts, pts...)
	for i := len(s.pts) - len(pts); i < len(s.pts); i++ {
		c := points.ClassOf(s.pts[i].Type)
		s.cls = append(s.cls, c)
		s.dead = append(s.dead, false)
		s.noteName(c, s.pts[i].Type)
		s.counts[c]++
		s.index(int32(i))
	}
	s.live += len(pts)
	s.version++
}

func (s *store) noteName(c points.Class, typ string) {
	if s.names[c] == "" && typ != "" {
		s.names[c] = typ
	}
}

// PlaneOf returns the plane index of coordinate c, or -1 when it has
// none (negative or NaN: such points are kept and counted, not drawn).
func PlaneOf(c float64) int {
	k := math.Round(c)
	if !(k >= 0) || k > math.MaxInt32 {
		return -1
	}
	return int(k)
}

// index adds live point i to its planes.
func (s *store) index(i int32) {
	p := &s.pts[i]
	for ax, c := range [3]float64{p.Z, p.Y, p.X} {
		k := PlaneOf(c)
		if k < 0 {
			continue
		}
		if k >= len(s.planes[ax]) {
			grow := make([][]int32, k+1+k/2)
			copy(grow, s.planes[ax])
			s.planes[ax] = grow
		}
		s.planes[ax][k] = append(s.planes[ax][k], i)
		s.extent[ax] = max(s.extent[ax], k+1)
	}
}

// reserve appends a dead point for an edit to bring to life: its index
// is taken under the lock, so detections appended meanwhile by a job
// cannot take it.
func (s *store) reserve() int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pts = append(s.pts, Point{})
	s.dead = append(s.dead, true)
	s.cls = append(s.cls, points.Unknown)
	return int32(len(s.pts) - 1)
}

// apply sets the states of points idx and reindexes them: the planes
// they leave are filtered once each, so moving 10^4 selected points
// costs one pass over the planes involved, not one per point.
func (s *store) apply(idx []int32, next []PointState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.mark) < len(s.pts) {
		s.mark = make([]bool, len(s.pts)+len(s.pts)/4)
	}
	type key struct{ ax, k int }
	leave := map[key]struct{}{}
	for _, i := range idx {
		if s.dead[i] {
			continue
		}
		s.mark[i] = true
		p := s.pts[i]
		for ax, c := range [3]float64{p.Z, p.Y, p.X} {
			if k := PlaneOf(c); k >= 0 {
				leave[key{ax, k}] = struct{}{}
			}
		}
	}
	for pk := range leave {
		list := s.planes[pk.ax][pk.k]
		kept := list[:0]
		for _, j := range list {
			if !s.mark[j] {
				kept = append(kept, j)
			}
		}
		s.planes[pk.ax][pk.k] = kept
	}
	for j, i := range idx {
		s.mark[i] = false
		if !s.dead[i] {
			s.live--
			s.counts[s.cls[i]]--
		}
		st := next[j]
		s.pts[i], s.dead[i] = st.P, st.Dead
		s.cls[i] = points.ClassOf(st.P.Type)
		if !st.Dead {
			s.live++
			s.counts[s.cls[i]]++
			s.noteName(s.cls[i], st.P.Type)
			s.index(i)
		} else if int(i) < len(s.sel) && s.sel[i] {
			s.sel[i] = false
			s.nsel--
		}
	}
	s.version++
}

// states returns the current states of points idx.
func (s *store) states(idx []int32) []PointState {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]PointState, len(idx))
	for j, i := range idx {
		if int(i) < len(s.pts) {
			out[j] = PointState{s.pts[i], s.dead[i]}
		} else {
			out[j] = PointState{Dead: true}
		}
	}
	return out
}

// liveWith returns the live points and, when prob (a value per stored
// point) is not nil, each one's probability (NaN for a point added
// since).
func (s *store) liveWith(prob []float64) ([]Point, []float64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	pts := make([]Point, 0, s.live)
	var out []float64
	if prob != nil {
		out = make([]float64, 0, s.live)
	}
	for i, p := range s.pts {
		if s.dead[i] {
			continue
		}
		pts = append(pts, p)
		if out != nil {
			v := math.NaN()
			if i < len(prob) {
				v = prob[i]
			}
			out = append(out, v)
		}
	}
	return pts, out
}
