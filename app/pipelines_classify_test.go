package main

// End-to-end tests of voxlab classify and voxlab cubes through the
// generic command path (flags from the spec, the backend and budget it
// opens, the outputs' checks, tasks and merge), against the classify
// package's own run on the same files.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer"
)

// classifyReference runs the classify package directly on the example's
// files: what the command must write.
func classifyReference(t *testing.T, sig, bg, cands, model string) *classify.Result {
	t.Helper()
	s, err := volume.Open(sig)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, err := volume.Open(bg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pts, err := points.Read(cands)
	if err != nil {
		t.Fatal(err)
	}
	cfg := classify.DefaultConfig()
	cfg.Model, cfg.VoxelSize, cfg.CubeSize, cfg.NetworkDepth = model, [3]float64{5, 1, 1}, classify.ExampleCubeSize, classify.ExampleDepth
	ses, err := classify.Open(cfg, classify.Inputs{Signal: s, Background: b, Points: pts})
	if err != nil {
		t.Fatal(err)
	}
	be := gpu.NewCPUWorkers(1)
	res, err := ses.Run(context.Background(), job.NewProgress("reference"), be, plan.Budget{Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// classifyArgs returns the example's command line with out in place of
// its output.
func classifyArgs(t *testing.T, dir, out string) []string {
	t.Helper()
	args, err := classify.Spec.Example(dir)
	if err != nil {
		t.Fatal(err)
	}
	args[2] = out
	return args
}

// readClassifiedCSV reads z,y,x,type,probability rows.
func readClassifiedCSV(t *testing.T, path string) [][]string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(string(fileBytes(t, path))), "\n")
	if lines[0] != "z,y,x,type,probability" {
		t.Fatalf("%s: header %q", path, lines[0])
	}
	var rows [][]string
	for _, l := range lines[1:] {
		rows = append(rows, strings.Split(l, ","))
	}
	return rows
}

// TestClassifyCommand: voxlab classify on the example writes the CSV
// the package's own run gives (the same float32 probabilities, whatever
// the batch and workers), with the candidate near the edge kept as
// unknown (type 1, no probability) and counted; the XML output holds the
// cells as type 2 and the rest as type 1; a split into three tasks
// merged writes the same bytes as one run.
func TestClassifyCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "classified.csv")
	args := classifyArgs(t, dir, out)
	stdout := mustRun(t, append([]string{"classify", "--backend", "cpu", "--json", "--batch-size", "4"}, args...)...)
	var s classify.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	ref := classifyReference(t, args[0], args[4], args[1], args[6])
	rows := readClassifiedCSV(t, out)
	if len(rows) != len(ref.Candidates) {
		t.Fatalf("%d rows, %d candidates", len(rows), len(ref.Candidates))
	}
	for i, c := range ref.Candidates {
		r := rows[i]
		wantType := "1"
		if c.Class == points.Cell {
			wantType = "2"
		}
		if r[3] != wantType {
			t.Errorf("row %d: type %s, the package's run %s (%v)", i, r[3], wantType, c.Class)
		}
		if c.Class == points.Unknown {
			if r[4] != "" {
				t.Errorf("row %d: unknown with probability %q", i, r[4])
			}
			continue
		}
		p, err := strconv.ParseFloat(r[4], 32)
		if err != nil || float32(p) != c.P {
			t.Errorf("row %d: probability %q, the package's run %v", i, r[4], c.P)
		}
	}
	if ref.Unknown != 1 || ref.Cells == 0 || ref.NonCells == 0 {
		t.Errorf("the example gives %d cells, %d non-cells, %d unknown: want some of each and one unknown", ref.Cells, ref.NonCells, ref.Unknown)
	}
	if s.Cells != ref.Cells || s.NonCells != ref.NonCells || s.Unknown != ref.Unknown || s.Batch != 4 || s.Depth != 18 || s.Backend != "cpu" {
		t.Errorf("summary %+v, the package's run %d/%d/%d", s, ref.Cells, ref.NonCells, ref.Unknown)
	}
	// No --network-depth: the model file's 18 layers, said so.
	if s.Classified != ref.Cells+ref.NonCells || s.Candidates != len(ref.Candidates) || s.DepthFrom != "model file" {
		t.Errorf("summary: %d classified of %d, depth from %q; want %d of %d, from the model file", s.Classified, s.Candidates, s.DepthFrom, ref.Cells+ref.NonCells, len(ref.Candidates))
	}

	xargs := append([]string(nil), args...)
	xargs[2] = filepath.Join(dir, "classified.xml")
	mustRun(t, append([]string{"classify", "--backend", "cpu", "--quiet"}, xargs...)...)
	got, err := points.Read(xargs[2])
	if err != nil {
		t.Fatal(err)
	}
	cells := 0
	for _, p := range got {
		if points.ClassOf(p.Type) == points.Cell {
			cells++
		}
	}
	if len(got) != len(ref.Candidates) || cells != ref.Cells {
		t.Errorf("XML: %d markers, %d of type 2; want %d and %d", len(got), cells, len(ref.Candidates), ref.Cells)
	}

	split := append([]string(nil), args...)
	split[2] = filepath.Join(dir, "split.csv")
	runSplit(t, "classify", 3, append([]string{"--backend", "cpu", "--quiet", "--batch-size", "2"}, split...)...)
	if a, b := fileBytes(t, out), fileBytes(t, split[2]); string(a) != string(b) {
		t.Errorf("three tasks merged differ from one run:\n%s\n%s", b, a)
	}
}

// TestClassifyBadInput: a missing model, a text file passed as a model,
// a model that does not match the data's channels (two-channel model,
// no background) and an output of another kind are refused with a
// non-zero exit and a message naming the file; nothing is written.
func TestClassifyBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "classified.csv")
	args := classifyArgs(t, dir, out)
	text := filepath.Join(dir, "resnet50_tv.h5")
	if err := os.WriteFile(text, []byte("not weights\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	with := func(flag, value string) []string {
		a := append([]string(nil), args...)
		for i := 3; i+1 < len(a); i++ {
			if a[i] == flag {
				a[i+1] = value
				return a
			}
		}
		t.Fatalf("no %s in %q", flag, a)
		return nil
	}
	noBackground := append(append([]string(nil), args[:3]...), args[5:]...)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"missing model", with("--model", filepath.Join(dir, "nope.h5")), []string{"nope.h5", "no such file"}},
		{"text as model", with("--model", text), []string{text, "not a Keras weight file"}},
		{"channels", noBackground, []string{args[6], "channel"}},
		{"depth", append(append([]string(nil), args...), "--network-depth", "50"), []string{args[6], "ResNet-18", "asked is 50", "auto"}},
		{"output", append([]string{args[0], args[1], filepath.Join(dir, "out.txt")}, args[3:]...), []string{"out.txt", ".csv"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCmd(append([]string{"classify", "--backend", "cpu"}, tc.args...)...)
			if code == 0 {
				t.Fatal("exit 0")
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not say %q", stderr, w)
				}
			}
			for _, o := range []string{out, filepath.Join(dir, "out.txt")} {
				if _, err := os.Stat(o); err == nil {
					t.Errorf("%s written", o)
				}
			}
		})
	}
}

// TestCubesCommand: voxlab cubes writes a cube file per channel of every
// candidate inside the volume (the unknown one skipped and counted) and
// cellfinder's training.yaml; the plan lists the plane ring.
func TestCubesCommand(t *testing.T) {
	dir := t.TempDir()
	args, err := classify.CubesSpec.Example(dir)
	if err != nil {
		t.Fatal(err)
	}
	var s classify.CubesSummary
	if err := json.Unmarshal([]byte(mustRun(t, append([]string{"cubes", "--backend", "cpu", "--json"}, args...)...)), &s); err != nil {
		t.Fatal(err)
	}
	names := onlyFiles(t, args[2])
	tifs := 0
	for _, n := range names {
		if strings.HasPrefix(n, "pCellz") && strings.HasSuffix(n, ".tif") {
			tifs++
		}
	}
	if s.Written != 11 || s.Unknown != 1 || tifs != 2*s.Written || !strings.Contains(strings.Join(names, " "), "training.yaml") {
		t.Errorf("summary %+v; files %v", s, names)
	}
	cube, err := volume.Open(filepath.Join(args[2], "pCellz6y24x24Ch0.tif"))
	if err != nil {
		t.Fatal(err)
	}
	defer cube.Close()
	if cube.Info.Shape != [3]int{8, 20, 20} || cube.Info.DType != volume.Float32 {
		t.Errorf("cube %v %v, want 8x20x20 float32", cube.Info.Shape, cube.Info.DType)
	}
}

// TestExportTrainingCubesAction: a spec with a PointsAction (cubes:
// "Export training cubes…") is offered on the viewer's points layers;
// the action chooses the pipeline in the panel with the layer's file as
// its points, or a copy of its points when it has unsaved edits, and the
// panel's run writes cells/ and non_cells/ with cellfinder's
// training.yaml.
func TestExportTrainingCubesAction(t *testing.T) {
	dir := t.TempDir()
	args, err := classify.CubesSpec.Example(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A curated layer: the example's candidates, half of them cells.
	pts, err := points.Read(args[1])
	if err != nil {
		t.Fatal(err)
	}
	for i := range pts {
		pts[i].Type = []string{"cell", "non-cell"}[i%2]
	}
	curated := filepath.Join(dir, "curated.xml")
	if err := points.Save(curated, pts); err != nil {
		t.Fatal(err)
	}
	hl, p := newRegisteredPanel(t)
	addPointsActions(hl.Viewer, p)
	const action = "Export training cubes…"
	if !slices.Contains(hl.Viewer.Actions().Points(), action) {
		t.Fatalf("points actions %q lack %q", hl.Viewer.Actions().Points(), action)
	}
	l, err := hl.Viewer.Open(curated)
	if err != nil {
		t.Fatal(err)
	}
	pl := l.(*viewer.PointsLayer)
	if !hl.Viewer.Actions().RunPoints(action, pl) {
		t.Fatal("the action did not run")
	}
	req, _ := p.Request()
	if req.Command != "cubes" || len(req.Args) < 2 || req.Args[1] != curated {
		t.Fatalf("the panel's request %q %q, want cubes on %s", req.Command, req.Args, curated)
	}
	// Edited: a copy of the layer's points.
	first, _ := pl.Point(0)
	flip := points.Cell
	if points.ClassOf(first.Type) == points.Cell {
		flip = points.NonCell
	}
	pl.SetSelected(false, 0)
	pl.SetSelectedClass(flip)
	hl.Viewer.Actions().RunPoints(action, pl)
	req, _ = p.Request()
	if req.Args[1] == curated {
		t.Fatal("an edited layer's file was used, not its points")
	}
	defer os.Remove(req.Args[1])
	got, err := points.Read(req.Args[1])
	if err != nil || len(got) != len(pts) || points.ClassOf(got[0].Type) != flip {
		t.Fatalf("the copy: %v, %d points, first %v", err, len(got), got)
	}
	// The run, as the panel's Run button starts it.
	out := filepath.Join(dir, "training")
	for name, v := range map[string]string{"in": args[0], "out": out, "background": args[4], "voxel-size": "5,1,1", "cube-size": "20,20,8"} {
		if err := p.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	req, err = p.Request()
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	prog := job.NewProgress("cubes", func(e job.Event) {
		if e.Kind == job.Note {
			notes = append(notes, e.Message)
		}
	})
	if err := runRequest(context.Background(), classify.CubesSpec, req, prog); err != nil {
		t.Fatal(err)
	}
	// The report's counts reach the panel's job: 11 cubes written, the
	// candidate at the corner left unknown.
	if len(notes) == 0 || !strings.Contains(notes[0], "11 cubes written of 12 candidates; 1 left unknown (their cube leaves the volume)") {
		t.Errorf("the job's notes %q", notes)
	}
	for _, sub := range []string{"cells", "non_cells", "training.yaml"} {
		if _, err := os.Stat(filepath.Join(out, sub)); err != nil {
			t.Error(err)
		}
	}
}
