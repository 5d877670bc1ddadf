package viewer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
)

// TestClassifiedReviewOrder: a classified CSV (z,y,x,type,probability,
// as voxlab classify writes it) opens with its points without a
// probability as unknown, and the walk visits the non-cells first, most
// probable cell first, then the cells, least probable first, then the
// unknown — whatever their planes; with a class chosen, only that class
// in that order.
func TestClassifiedReviewOrder(t *testing.T) {
	csv := "z,y,x,type,probability\n" +
		"1,10,10,2,0.9\n" + // 0 cell
		"2,20,20,1,0.1\n" + // 1 non-cell
		"3,30,30,1,0.45\n" + // 2 non-cell
		"4,40,40,1,\n" + // 3 unknown
		"5,50,50,2,0.55\n" + // 4 cell
		"0,5,5,1,0.3\n" // 5 non-cell
	path := filepath.Join(t.TempDir(), "classified.csv")
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	h.v.edit.addShortcuts()
	h.v.AddImage("img", memVolume(t, volume.Uint8, [3]int{8, 60, 60}, func(z, y, x int) float64 { return 0 }), ImageOptions{})
	l, err := h.v.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	pl := l.(*PointsLayer)
	h.settle()
	if c := pl.Counts(); c[points.Cell] != 2 || c[points.NonCell] != 3 || c[points.Unknown] != 1 {
		t.Errorf("counts %v, want 2 cells, 3 non-cells, 1 unknown", c)
	}
	walk := func() []int {
		var got []int
		for h.v.Curation().Next(+1) {
			h.settle()
			got = append(got, pl.Selected()...)
			if len(got) > 10 {
				break
			}
		}
		return got
	}
	h.v.Curation().SetWalk(WalkAll)
	if got, want := walk(), []int{2, 5, 1, 4, 0, 3}; !slices.Equal(got, want) {
		t.Errorf("walk %v, want %v", got, want)
	}
	if pl.Selected()[0] != 3 || !h.v.Curation().Next(-1) || pl.Selected()[0] != 0 {
		t.Errorf("back from the last: selected %v, want [0]", pl.Selected())
	}
	if h.v.Dims().Slice() != 1 {
		t.Errorf("slice %d, want the point's plane 1", h.v.Dims().Slice())
	}
	pl.SetWalkAt(-1)
	h.v.Curation().SetWalk(int(points.Cell))
	if got, want := walk(), []int{4, 0}; !slices.Equal(got, want) {
		t.Errorf("walk over the cells %v, want %v", got, want)
	}
}

// TestPlainCSVKeepsPlaneOrder: a CSV without a probability column keeps
// the walk in plane order.
func TestPlainCSVKeepsPlaneOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cells.csv")
	if err := os.WriteFile(path, []byte("z,y,x,type\n3,1,1,cell\n1,1,1,cell\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	h.v.AddImage("img", memVolume(t, volume.Uint8, [3]int{8, 60, 60}, func(z, y, x int) float64 { return 0 }), ImageOptions{})
	l, err := h.v.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	pl := l.(*PointsLayer)
	if pl.HasReviewOrder() {
		t.Error("a review order for a CSV without probabilities")
	}
}

// TestScoredXMLReviewOrder: cellfinder's XML has no probability column,
// so a classify run's output opened with the run's probabilities
// (OpenScored, as the panel does) is reviewed as the CSV is: the point
// the run did not score is unknown (the XML wrote it as a non-cell), the
// walk visits the non-cell first, and the selected point shows its
// probability.
func TestScoredXMLReviewOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ch0-classified.xml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	err = points.WriteXML(f, []points.Point{
		{Z: 1, Y: 10, X: 10, Type: points.TypeCell},    // cell, 0.9
		{Z: 2, Y: 20, X: 20, Type: points.TypeNonCell}, // non-cell, 0.2
		{Z: 3, Y: 30, X: 30, Type: points.TypeUnknown}, // not scored
	})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	h.v.edit.addShortcuts()
	h.v.AddImage("img", memVolume(t, volume.Uint8, [3]int{8, 60, 60}, func(z, y, x int) float64 { return 0 }), ImageOptions{})
	plain, err := h.v.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if c := plain.(*PointsLayer).Counts(); c[points.Unknown] != 0 || plain.(*PointsLayer).HasReviewOrder() {
		t.Fatalf("the XML alone: counts %v, review order %v; want no unknown (XML writes them as non-cells) and plane order",
			c, plain.(*PointsLayer).HasReviewOrder())
	}
	h.v.RemoveLayer(plain)
	score := map[[3]float64]float64{{1, 10, 10}: 0.9, {2, 20, 20}: 0.2}
	pl, err := h.v.OpenScored(path, func(z, y, x float64) (float64, bool) {
		p, ok := score[[3]float64{z, y, x}]
		return p, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	if c := pl.Counts(); c[points.Cell] != 1 || c[points.NonCell] != 1 || c[points.Unknown] != 1 {
		t.Errorf("counts %v, want 1 cell, 1 non-cell, 1 unknown", c)
	}
	h.v.Curation().SetWalk(WalkAll)
	// The XML groups its markers by type: look the points up by place.
	if !h.v.Curation().Next(+1) || len(pl.Selected()) != 1 {
		t.Fatalf("first of the walk: selected %v, want one point", pl.Selected())
	}
	if p, _ := pl.Point(pl.Selected()[0]); p.Z != 2 || p.Y != 20 {
		t.Fatalf("first of the walk: point %+v, want the non-cell at 2,20,20", p)
	}
	h.settle()
	if got, want := pointText(pl), "probability 0.200"; !strings.Contains(got, want) {
		t.Errorf("point text %q, want it to say %q", got, want)
	}
}
