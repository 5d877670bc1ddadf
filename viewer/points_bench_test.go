package viewer

import (
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/viewer/model"
)

// millionPoints spreads 10^6 points over planes z planes of 2048 x 2048,
// half cells, half non-cells.
func millionPoints(planes int) []Point {
	pts := make([]Point, 1_000_000)
	for i := range pts {
		pts[i] = Point{Z: float64(i % planes), Y: float64(i * 7 % 2048), X: float64(i * 13 % 2048), Type: []string{"cell", "non-cell"}[i%2]}
	}
	return pts
}

// BenchmarkPoints1MLayer builds a points layer of 10^6 points (indexing
// them by plane along z, y and x): napari takes about 90 s to add as
// many (napari #6275).
func BenchmarkPoints1MLayer(b *testing.B) {
	pts := millionPoints(1000)
	for b.Loop() {
		newPointsLayer("cells", pts, PointsOptions{}, 0)
	}
}

func benchOpen(b *testing.B, ext string) {
	path := filepath.Join(b.TempDir(), "cells"+ext)
	if err := points.Save(path, millionPoints(1000)); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		pts, err := points.Read(path)
		if err != nil {
			b.Fatal(err)
		}
		if l := newPointsLayer("cells", pts, PointsOptions{}, 0); l.Len() != 1_000_000 {
			b.Fatal(l.Len())
		}
	}
}

// BenchmarkPoints1MOpenCSV reads a CSV of 10^6 points into a layer.
func BenchmarkPoints1MOpenCSV(b *testing.B) { benchOpen(b, ".csv") }

// BenchmarkPoints1MOpenXML reads a cellfinder XML of 10^6 points into a
// layer.
func BenchmarkPoints1MOpenXML(b *testing.B) { benchOpen(b, ".xml") }

func benchDraw(b *testing.B, planes int) {
	l := newPointsLayer("cells", millionPoints(planes), PointsOptions{}, 0)
	l.SetSelected(false, 0, 1000, 2000)
	var f frame
	t := xform{CX: 1024, CY: 1024, Scale: 1}
	for b.Loop() {
		f.reset(2048, 2048)
		drawPoints(&f, l.PointSet, Z, false, planes/2, 3, &l.style, 8, 1, t, 2048, 2048, 1)
	}
}

// BenchmarkPoints1MDraw redraws a 2048 x 2048 view of a layer of 10^6
// points over 1000 planes (a whole brain's candidates: 1000 per plane,
// ±3 planes shown, 7000 markers).
func BenchmarkPoints1MDraw(b *testing.B) { benchDraw(b, 1000) }

// BenchmarkPoints1MDrawDense is the same view with the 10^6 points in
// 100 planes (10^4 per plane, 70000 markers drawn).
func BenchmarkPoints1MDrawDense(b *testing.B) { benchDraw(b, 100) }

// BenchmarkPoints1MBoxSelect selects, with a box over a whole plane, the
// 10^4 points of that plane of a layer of 10^6 points in 100 planes.
func BenchmarkPoints1MBoxSelect(b *testing.B) {
	l := newPointsLayer("cells", millionPoints(100), PointsOptions{}, 0)
	var got []int
	for b.Loop() {
		got = l.InBox(got[:0], Z, 50, 0, 0, 0, 2048, 2048)
		l.SetSelected(false, got...)
	}
	if l.NumSelected() != 10_000 {
		b.Fatalf("%d selected", l.NumSelected())
	}
}

// BenchmarkPoints1MMove10k moves 10^4 selected points of a layer of 10^6
// by one voxel (one step of a drag).
func BenchmarkPoints1MMove10k(b *testing.B) {
	l := newPointsLayer("cells", millionPoints(100), PointsOptions{}, 0)
	l.SetSelected(false, l.InBox(nil, Z, 50, 0, 0, 0, 2048, 2048)...)
	idx := l.SelectedIdx()
	from := l.States(idx)
	next := make([]model.PointState, len(from))
	for i := 0; b.Loop(); i++ {
		for j, st := range from {
			st.P.X += float64(i % 2)
			next[j] = st
		}
		l.Preview(idx, next)
	}
}
