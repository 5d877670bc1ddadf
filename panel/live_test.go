package panel

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/viewer"
)

// TestClassifiedXMLKeepsTheRunsProbabilities: a classify run in the
// window writes cellfinder's XML by default, which holds classes only;
// the layer the run's output opens as keeps the probabilities the run
// sent (the review's order and its status text need them), and shows
// the candidate the run did not classify as unknown, not as the
// non-cell the XML wrote it as.
func TestClassifiedXMLKeepsTheRunsProbabilities(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	hl := viewer.NewHeadless(w)
	defer hl.Close()
	w.Resize(fyne.NewSize(1280, 800))
	out := filepath.Join(t.TempDir(), "ch0-classified.xml")
	spec := &pipeline.Spec{Name: "classify-like",
		Args: []pipeline.Param{{Name: "out", Kind: pipeline.Output}},
		Live: pipeline.Live{Kind: pipeline.LivePoints, Result: func(args []string) string { return args[0] }}}
	live := NewLive(hl.Viewer, spec, []string{out})
	// Candidates at fractional voxels, as a CSV of candidates may give
	// them: the XML rounds them.
	live.Partial(job.Event{Partial: pipeline.Points{
		{Z: 1, Y: 10.2, X: 10, Type: points.TypeCell, Probability: 0.9, Scored: true},
		{Z: 2, Y: 20, X: 19.8, Type: points.TypeNonCell, Probability: 0.2, Scored: true},
	}})
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	err = points.WriteXML(f, []points.Point{
		{Z: 1, Y: 10.2, X: 10, Type: points.TypeCell},
		{Z: 2, Y: 20, X: 19.8, Type: points.TypeNonCell},
		{Z: 3, Y: 30, X: 30, Type: points.TypeUnknown},
	})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	hl.Drain()
	live.Done(nil)
	var res *viewer.PointsLayer
	if err := hl.Until(time.Minute, func() bool {
		for _, l := range hl.Layers() {
			if pl, ok := l.(*viewer.PointsLayer); ok && pl.Path() == out {
				res = pl
			}
		}
		return res != nil
	}); err != nil {
		t.Fatalf("the output never opened: %v", err)
	}
	if c := res.Counts(); c[points.Cell] != 1 || c[points.NonCell] != 1 || c[points.Unknown] != 1 {
		t.Errorf("counts %v, want 1 cell, 1 non-cell and the unclassified one unknown", c)
	}
	hl.Curation().SetWalk(viewer.WalkAll)
	if !hl.Curation().Next(+1) || len(res.Selected()) != 1 {
		t.Fatalf("walk: selected %v, want one point", res.Selected())
	}
	if p, _ := res.Point(res.Selected()[0]); p.Z != 2 {
		t.Errorf("the walk starts at %+v, want the non-cell (the classifier's order)", p)
	}
}
