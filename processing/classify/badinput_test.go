package classify

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/points"
)

// TestOutputs writes both outputs and reads them back: the XML holds
// cells as type 2 and non-cells and unknown candidates as type 1, the
// CSV z,y,x,type,probability with no probability for the unknown, and
// the report counts the unknown.
func TestOutputs(t *testing.T) {
	c := netGolden(t)[0]
	sig, bg := cropVolumes(t)
	pts := candidates(t)
	res := classify(t, configFor(c, c.Tag), Inputs{Signal: sig, Background: bg, Points: pts}, gpu.NewCPU(), netModel(t, c))
	if res.Unknown == 0 || res.Cells == 0 || res.NonCells == 0 {
		t.Fatalf("%d cells, %d non-cells, %d unknown: the test needs all three", res.Cells, res.NonCells, res.Unknown)
	}
	dir := t.TempDir()
	xml, csv := filepath.Join(dir, "out.xml"), filepath.Join(dir, "out.csv")
	for _, p := range []string{xml, csv} {
		if err := res.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	got, err := points.Read(xml)
	if err != nil {
		t.Fatal(err)
	}
	// cellfinder's XML lists the points by type: compare as sets.
	want := map[[3]int]int{}
	for i, c := range res.Candidates {
		if c.Class == points.Cell {
			p := pts[i]
			want[[3]int{int(math.Round(p.Z)), int(math.Round(p.Y)), int(math.Round(p.X))}]++ // the XML rounds
		}
	}
	cells := 0
	for _, p := range got {
		if points.ClassOf(p.Type) != points.Cell {
			continue
		}
		cells++
		k := [3]int{int(p.Z), int(p.Y), int(p.X)}
		if want[k] == 0 {
			t.Errorf("XML: %v is a cell, the result says not", p)
		}
		want[k]--
	}
	if cells != res.Cells || len(got) != len(pts) {
		t.Errorf("XML: %d points, %d cells; want %d, %d", len(got), cells, len(pts), res.Cells)
	}
	b, _ := os.ReadFile(csv)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "z,y,x,type,probability" || len(lines) != len(pts)+1 {
		t.Fatalf("CSV header %q, %d lines", lines[0], len(lines))
	}
	empty := 0
	for i, l := range lines[1:] {
		f := strings.Split(l, ",")
		want := "1"
		if res.Candidates[i].Class == points.Cell {
			want = "2"
		}
		if len(f) != 5 || f[3] != want {
			t.Errorf("CSV line %q: want type %s", l, want)
		}
		if f[4] == "" {
			empty++
		}
	}
	if empty != res.Unknown {
		t.Errorf("%d rows without a probability, %d unknown", empty, res.Unknown)
	}
	var rep strings.Builder
	res.Report(&rep)
	if !strings.Contains(rep.String(), "unknown") {
		t.Errorf("report %q does not count the unknown", rep.String())
	}
	if err := res.Write(filepath.Join(dir, "out.txt")); err == nil {
		t.Error("a .txt output was written")
	}
}

// TestCancel: a run cancelled once its first batch is classified stops
// with the context's error and returns no result.
func TestCancel(t *testing.T) {
	c := netGolden(t)[0]
	sig, bg := cropVolumes(t)
	cfg := configFor(c, c.Tag)
	cfg.BatchSize = 4
	s, err := OpenModel(cfg, Inputs{Signal: sig, Background: bg, Points: candidates(t)}, netModel(t, c))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelled atomic.Bool
	prog := job.NewProgress("classify", func(e job.Event) {
		if e.Stage == "classify" && e.Done > 0 && cancelled.CompareAndSwap(false, true) {
			cancel()
		}
	})
	done := make(chan error, 1)
	go func() {
		res, err := s.Run(ctx, prog, gpu.NewCPU(), plan.Budget{Shared: true})
		if res != nil {
			err = errors.New("a result")
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled run returned %v", err)
		}
	case <-time.After(120 * time.Second):
		t.Fatal("the cancelled run did not stop (hang)")
	}
}

// TestMemoryPlan holds what a run allocates (device buffers of the CPU
// backend and the host arrays, counted by name) against the plan's
// prediction: never above it, and within a tenth of it. Under -race
// -short the first 64 candidates only (one batch).
func TestMemoryPlan(t *testing.T) {
	c := netGolden(t)[2] // depth 18 on cellfinder's cubes: the largest arrays
	sig, bg := cropVolumes(t)
	tr := plan.NewTracker()
	cfg := configFor(c, c.Tag)
	cfg.Memory = tr
	be := gpu.NewCPU()
	be.CountHost(tr)
	pts := candidates(t)
	if raceShort() {
		// One batch (62 of these are inside the crop; the plan is
		// made for them), not 64 then 25: the peak is the first batch's
		// (the plain pass runs all 89).
		pts = pts[:64]
	}
	res := classify(t, cfg, Inputs{Signal: sig, Background: bg, Points: pts}, be, netModel(t, c))
	peak, want := tr.Peak(), res.Plan.PeakRAM
	t.Logf("peak %d bytes counted, plan %d (batch %d)", peak, want, res.Batch)
	if peak > want || float64(peak) < 0.9*float64(want) {
		t.Errorf("peak %d bytes, plan %d: %v", peak, want, tr.PeakBreakdown())
	}
}

// TestPlanBudget: a host budget too small for a batch of 64 gets the
// largest batch that fits, whose run stays within it; a budget too small
// for one cube is an error saying so, before anything runs. Under -race
// -short the run within the budget classifies the first 30 candidates
// (a few batches of 8, planned for them); the plain pass runs them all.
func TestPlanBudget(t *testing.T) {
	c := netGolden(t)[2]
	sig, bg := cropVolumes(t)
	cfg := configFor(c, c.Tag)
	m := netModel(t, c)
	pts := candidates(t)
	s, err := OpenModel(cfg, Inputs{Signal: sig, Background: bg, Points: pts}, m)
	if err != nil {
		t.Fatal(err)
	}
	full, err := s.MakePlan(plan.Budget{Shared: true}, "cpu", 2)
	if err != nil || full.Block() != 64 {
		t.Fatalf("unbounded plan: batch %v, %v", full, err)
	}
	at8 := s.Phases("cpu", 2)[0].UsageAt(8).RAM(true)
	b := plan.Budget{Host: int64(float64(at8)/plan.DefaultMargin) + 1, Shared: true}
	if raceShort() {
		if s, err = OpenModel(cfg, Inputs{Signal: sig, Background: bg, Points: pts[:30]}, m); err != nil {
			t.Fatal(err)
		}
	}
	p, err := s.MakePlan(b, "cpu", 2)
	if err != nil || p.Block() != 8 {
		t.Fatalf("budget for 8 cubes: batch %d, %v", p.Block(), err)
	}
	tr := plan.NewTracker()
	s.Cfg.Memory = tr
	be := gpu.NewCPUWorkers(2)
	be.CountHost(tr)
	res, err := s.Run(context.Background(), job.NewProgress("classify"), be, b)
	if err != nil {
		t.Fatal(err)
	}
	if res.Batch != 8 || tr.Peak() > p.PeakRAM {
		t.Errorf("batch %d, peak %d, plan %d", res.Batch, tr.Peak(), p.PeakRAM)
	}
	if _, err := s.MakePlan(plan.Budget{Host: 100 << 20, Shared: true}, "cpu", 2); err == nil {
		t.Error("a 100 MiB budget planned")
	}
}
