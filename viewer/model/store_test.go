package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/voxlab/voxlab/processing/points"
)

// checkIndex holds the store's per-plane index, counts and box query
// against a naive scan of every point.
func checkIndex(t *testing.T, step string, m *PointSet) {
	t.Helper()
	s := &m.s
	var counts [points.NumClasses]int
	live := 0
	for ax := range 3 {
		want := map[int][]int32{}
		for i, p := range s.pts {
			if s.dead[i] {
				continue
			}
			if k := PlaneOf([3]float64{p.Z, p.Y, p.X}[ax]); k >= 0 {
				want[k] = append(want[k], int32(i))
			}
		}
		for k := range max(len(s.planes[ax]), 1) {
			var got []int32
			if k < len(s.planes[ax]) {
				got = slices.Sorted(slices.Values(s.planes[ax][k]))
			}
			if !slices.Equal(got, want[k]) {
				t.Fatalf("%s: axis %d plane %d holds %v, want %v", step, ax, k, got, want[k])
			}
			delete(want, k)
		}
		if len(want) > 0 {
			t.Fatalf("%s: axis %d: planes %v not indexed", step, ax, want)
		}
	}
	for i, p := range s.pts {
		if !s.dead[i] {
			live++
			counts[points.ClassOf(p.Type)]++
		}
	}
	if live != s.live || counts != s.counts {
		t.Fatalf("%s: %d live %v, want %d %v", step, s.live, s.counts, live, counts)
	}
	// Box on plane 3 (±1) of z against a scan.
	got := m.InBox(nil, Z, 3, 1, 5, 5, 25, 30)
	var want []int
	for i, p := range s.pts {
		if !s.dead[i] && math.Abs(math.Round(p.Z)-3) <= 1 && p.Y >= 5 && p.Y <= 25 && p.X >= 5 && p.X <= 30 {
			want = append(want, i)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s: box %v, want %v", step, got, want)
	}
}

// TestStoreAgainstNaive makes random adds, moves (also off the volume, to
// negative coordinates), deletes, class changes, undos and redos, and
// checks the index after each against a scan; undoing everything gives
// back the points as loaded.
func TestStoreAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	types := []string{"cell", "artifact", "", "unknown"}
	var pts []Point
	for range 300 {
		pts = append(pts, Point{Z: float64(r.IntN(8)), Y: float64(r.IntN(40)), X: r.Float64() * 40, Type: types[r.IntN(4)]})
	}
	l := NewPointSet(pts)
	checkIndex(t, "loaded", l)
	for range 200 {
		var sel []int
		for range 1 + r.IntN(20) {
			sel = append(sel, r.IntN(len(l.s.pts)))
		}
		l.SetSelected(false, sel...)
		switch op := r.IntN(6); op {
		case 0:
			l.AddPoint(Point{Z: float64(r.IntN(8)), Y: float64(r.IntN(40)), X: float64(r.IntN(40)), Type: "cell"})
		case 1:
			l.MoveSelected(float64(r.IntN(5)-2), float64(r.IntN(9)-4), r.Float64()*6-3)
		case 2:
			l.DeleteSelected()
		case 3:
			l.SetSelectedClass(points.Class(r.IntN(3)))
		case 4:
			l.Undo()
		case 5:
			l.Redo()
		}
		checkIndex(t, "step", l)
	}
	for l.Undo() {
	}
	checkIndex(t, "all undone", l)
	if got := l.Points(); !slices.Equal(got, pts) {
		t.Errorf("undoing everything: %d points, not the %d loaded", len(got), len(pts))
	}
	if l.Modified() {
		t.Error("all undone, still modified")
	}
}
