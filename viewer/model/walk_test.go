package model

import (
	"cmp"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/voxlab/voxlab/processing/points"
)

// naiveWalk is the plane-order walk written out: every target point
// sorted by (slice, row, column, index) along axis.
func naiveWalk(pts []Point, axis Axis, target func(i int) bool) []int {
	var idx []int
	for i := range pts {
		if target(i) {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int {
		sa, ra, ca := Coords(&pts[a], axis)
		sb, rb, cb := Coords(&pts[b], axis)
		return cmp.Or(cmp.Compare(sa, sb), cmp.Compare(ra, rb), cmp.Compare(ca, cb), cmp.Compare(a, b))
	})
	return idx
}

// walkAll steps the walk from plane until it stops, at most n steps.
func walkAll(m *PointSet, walk, dir int, axis Axis, plane, n int) []int {
	var got []int
	for range n {
		i := m.Next(walk, dir, axis, plane)
		if i < 0 {
			break
		}
		got = append(got, i)
	}
	return got
}

// TestWalkPlaneOrder: along each axis the walk visits every point in
// plane, row, column order (against a sort of all points), forwards and
// back, and counts each one reviewed.
func TestWalkPlaneOrder(t *testing.T) {
	var pts []Point
	for i := range 40 {
		pts = append(pts, pt(float64(i*7%9), float64(i*5%11), float64(i*3%13), []string{"cell", "non-cell", "unknown"}[i%3]))
	}
	for _, axis := range []Axis{Z, Y, X} {
		m := NewPointSet(pts)
		want := naiveWalk(pts, axis, func(int) bool { return true })
		if got := walkAll(m, WalkAll, +1, axis, 0, 100); !slices.Equal(got, want) {
			t.Errorf("axis %v: walk %v, want %v", axis, got, want)
		}
		if done, _ := m.Reviewed(); done != len(pts) {
			t.Errorf("axis %v: %d reviewed after the whole walk", axis, done)
		}
		back := walkAll(m, WalkAll, -1, axis, 0, 100)
		slices.Reverse(want)
		if !slices.Equal(back, want[1:]) {
			t.Errorf("axis %v: back %v, want %v", axis, back, want[1:])
		}
	}
}

// TestWalkTargets: a class walk skips the other classes; the unreviewed
// walk skips what was classed or visited; with nothing selected the walk
// starts at the plane on show; from a selection it starts there.
func TestWalkTargets(t *testing.T) {
	pts := []Point{pt(9, 40, 70, "unknown"), pt(2, 30, 20, "unknown"), pt(9, 10, 10, "cell"), pt(2, 5, 60, "unknown"), pt(15, 50, 5, "unknown")}
	m := NewPointSet(pts)
	if got := walkAll(m, int(points.Unknown), +1, Z, 0, 10); !slices.Equal(got, []int{3, 1, 0, 4}) {
		t.Errorf("unknown walk %v, want [3 1 0 4]", got)
	}
	m = NewPointSet(pts)
	if got := walkAll(m, WalkAll, +1, Z, 5, 10); !slices.Equal(got, []int{2, 0, 4}) {
		t.Errorf("walk from plane 5: %v, want [2 0 4]", got)
	}
	if got := walkAll(m, WalkUnreviewed, +1, Z, 0, 10); len(got) != 0 {
		t.Errorf("unreviewed after the walk stood on the last point: %v", got)
	}
	m.SetWalkAt(-1)
	if got := walkAll(m, WalkUnreviewed, +1, Z, 0, 10); !slices.Equal(got, []int{3, 1}) {
		t.Errorf("unreviewed from plane 0: %v, want [3 1]", got)
	}
	m = NewPointSet(pts)
	m.SetSelected(false, 1)
	m.SetSelectedClass(points.Cell)
	if got := walkAll(m, WalkUnreviewed, +1, Z, 0, 10); !slices.Equal(got, []int{2, 0, 4}) {
		t.Errorf("unreviewed from the selected point 1: %v, want [2 0 4]", got)
	}
	if m.WalkAt() != 4 {
		t.Errorf("walk stands on %d, want 4", m.WalkAt())
	}
	if got := walkAll(m, WalkAll, -1, Z, 0, 10); !slices.Equal(got, []int{0, 2, 1, 3}) {
		t.Errorf("back from 4: %v, want [0 2 1 3]", got)
	}
}

// TestReviewOrderAgainstRanks: ReviewOrder puts non-cells first by
// probability falling, then cells by probability rising, then the
// points without one in input order; checked against the rule written
// as a comparison of (group, key) on random probabilities.
func TestReviewOrderAgainstRanks(t *testing.T) {
	var cls []points.Class
	var p []float64
	for i := range 60 {
		cls = append(cls, points.Class(i%3))
		v := float64(i*37%60) / 60
		if i%7 == 0 {
			v = math.NaN()
		}
		p = append(p, v)
	}
	order := ReviewOrder(cls, p)
	group := func(i int) int {
		switch {
		case math.IsNaN(p[i]) || cls[i] == points.Unknown:
			return 2
		case cls[i] == points.NonCell:
			return 0
		}
		return 1
	}
	if len(order) != len(cls) {
		t.Fatalf("%d in the order, want %d", len(order), len(cls))
	}
	for k := 1; k < len(order); k++ {
		a, b := order[k-1], order[k]
		ga, gb := group(a), group(b)
		switch {
		case ga > gb:
			t.Errorf("%d (group %d) before %d (group %d)", a, ga, b, gb)
		case ga == gb && ga == 0 && p[a] < p[b]:
			t.Errorf("non-cells %d (%.2f) before %d (%.2f): want falling", a, p[a], b, p[b])
		case ga == gb && ga == 1 && p[a] > p[b]:
			t.Errorf("cells %d (%.2f) before %d (%.2f): want rising", a, p[a], b, p[b])
		case ga == gb && ga == 2 && a > b:
			t.Errorf("unranked %d before %d: want input order", a, b)
		}
	}
}

// TestReadReviewWalk: a classified CSV read with ReviewOf makes the
// points without a probability unknown, and the walk on a set with
// that order visits non-cells, most probable first, then cells, least
// probable first, then the unknown, whatever their planes; a class walk
// keeps that order; a plain CSV gives no order.
func TestReadReviewWalk(t *testing.T) {
	csv := "z,y,x,type,probability\n" +
		"1,10,10,2,0.9\n" + // 0 cell
		"2,20,20,1,0.1\n" + // 1 non-cell
		"3,30,30,1,0.45\n" + // 2 non-cell
		"4,40,40,1,\n" + // 3 unknown
		"5,50,50,2,0.55\n" + // 4 cell
		"0,5,5,1,0.3\n" // 5 non-cell
	dir := t.TempDir()
	path := filepath.Join(dir, "classified.csv")
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	pts, err := points.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	order, prob := ReviewOf(ReadProbabilities(path), pts)
	m := NewPointSet(pts)
	m.SetReviewOrder(order)
	m.SetProbabilities(prob)
	if c := m.Counts(); c[points.Cell] != 2 || c[points.NonCell] != 3 || c[points.Unknown] != 1 {
		t.Errorf("counts %v, want 2 cells, 3 non-cells, 1 unknown", c)
	}
	if got, want := walkAll(m, WalkAll, +1, Z, 0, 10), []int{2, 5, 1, 4, 0, 3}; !slices.Equal(got, want) {
		t.Errorf("walk %v, want %v", got, want)
	}
	if got := walkAll(m, WalkAll, -1, Z, 0, 1); !slices.Equal(got, []int{0}) {
		t.Errorf("back from the last: %v, want [0]", got)
	}
	m.SetWalkAt(-1)
	if got := walkAll(m, int(points.Cell), +1, Z, 0, 10); !slices.Equal(got, []int{4, 0}) {
		t.Errorf("walk over the cells %v, want [4 0]", got)
	}
	if p, ok := m.Probability(4); !ok || p != 0.55 {
		t.Errorf("probability of point 4: %v %v", p, ok)
	}
	if _, ok := m.Probability(3); ok {
		t.Error("point 3 has no probability, got one")
	}
	m.SetSelected(false, 4)
	if m.UnderReview() != 4 {
		t.Errorf("under review %d, want the only selected 4", m.UnderReview())
	}
	plain := filepath.Join(dir, "cells.csv")
	if err := os.WriteFile(plain, []byte("z,y,x,type\n3,1,1,cell\n1,1,1,cell\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pp, err := points.Read(plain)
	if err != nil {
		t.Fatal(err)
	}
	if order, prob := ReviewOf(ReadProbabilities(plain), pp); order != nil || prob != nil {
		t.Errorf("plain CSV: order %v, probabilities %v", order, prob)
	}
}
