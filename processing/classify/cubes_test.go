package classify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
)

// TestWriteCubes writes the crop's cubes at the network's voxel size as
// cellfinder's training cubes and reads them back: cells/ and non_cells/
// for a set holding both (unclassified candidates with the non-cells,
// type 1 alike), files named pCellz{z}y{y}x{x}Ch{c}.tif, float32 pages
// along z whose values are the reference extractor's (its cube's
// sha256), a training.yaml naming the folders; a set of one class goes
// flat into the folder.
func TestWriteCubes(t *testing.T) {
	var g extractGolden
	readJSON(t, "extract_golden.json", &g)
	golden := g.Extract[0]
	if golden.Name != "equal" {
		t.Fatalf("golden configuration %s", golden.Name)
	}
	pts := candidates(t)
	sig, bg := cropVolumes(t)
	cfg := DefaultConfig()
	cfg.VoxelSize = [3]float64{5, 1, 1}
	dir := filepath.Join(t.TempDir(), "cubes")
	s, err := OpenCubes(cfg, Inputs{Signal: sig, Background: bg, Points: pts})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.WriteCubes(context.Background(), nil, dir, 2, 16)
	if err != nil {
		t.Fatal(err)
	}
	if res.Layout != "curation" || res.Written+res.Duplicate != len(s.Order) || res.Unknown != s.Unknown() {
		t.Fatalf("result %+v for %d candidates inside, %d unknown", res, len(s.Order), s.Unknown())
	}
	for i, p := range pts {
		sub := "non_cells"
		if points.ClassOf(p.Type) == points.Cell {
			sub = "cells"
		}
		path0 := filepath.Join(dir, sub, CubeFileName(p, 0))
		if !s.Inside[i] {
			if _, err := os.Stat(path0); err == nil {
				t.Errorf("candidate %d outside the volume has a cube", i)
			}
			continue
		}
		cube := make([]float32, s.cubeLen())
		for ch := range 2 {
			v, err := volume.Open(filepath.Join(dir, sub, CubeFileName(p, ch)))
			if err != nil {
				t.Fatal(err)
			}
			if v.Info.DType != volume.Float32 || v.Info.Shape != [3]int{20, 50, 50} {
				t.Fatalf("%s: %v %s, want 20x50x50 float32", CubeFileName(p, ch), v.Info.Shape, v.Info.DType)
			}
			data, err := v.ReadAll()
			v.Close()
			if err != nil {
				t.Fatal(err)
			}
			planes := f32(data)
			for z := range 20 {
				for y := range 50 {
					for x := range 50 {
						cube[((y*50+x)*20+z)*2+ch] = planes[(z*50+y)*50+x]
					}
				}
			}
		}
		if got := sha(float32Bytes(cube)); got != golden.Cubes[i].SHA256 {
			t.Errorf("candidate %d %v: the written cube's sha256 %s, reference %s", i, p, got, golden.Cubes[i].SHA256)
		}
	}
	y, err := os.ReadFile(filepath.Join(dir, "training.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cube_dir: " + filepath.Join(dir, "cells"), "type: cell", "cube_dir: " + filepath.Join(dir, "non_cells"), "type: no_cell", "bg_channel: 1"} {
		if !strings.Contains(string(y), want) {
			t.Errorf("training.yaml lacks %q:\n%s", want, y)
		}
	}

	// One class: flat, and the earlier run's folder is replaced.
	var cells []points.Point
	for _, p := range pts {
		if p.Type == "cell" {
			cells = append(cells, p)
		}
	}
	s, err = OpenCubes(cfg, Inputs{Signal: sig, Background: bg, Points: append(cells, cells[0])})
	if err != nil {
		t.Fatal(err)
	}
	res, err = s.WriteCubes(context.Background(), nil, dir, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	if res.Layout != "flat" || res.Duplicate != 1 {
		t.Errorf("one class: %+v", res)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2*res.Written+1 {
		t.Errorf("flat folder holds %d entries, want %d cubes x 2 channels and training.yaml", len(entries), res.Written)
	}

	// The signal alone: cellfinder's curation writes bg_channel -1
	// (NO_BACKGROUND_CHANNEL), which train_yaml.py reads for every entry.
	one := filepath.Join(t.TempDir(), "signal-only")
	s1, err := OpenCubes(cfg, Inputs{Signal: sig, Points: pts})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s1.WriteCubes(context.Background(), nil, one, 1, 5); err != nil {
		t.Fatal(err)
	}
	y1, err := os.ReadFile(filepath.Join(one, "training.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(y1), "bg_channel: -1\n"); n != 2 {
		t.Errorf("signal-only training.yaml has %d entries with bg_channel: -1, want 2:\n%s", n, y1)
	}
	if _, err := os.Stat(filepath.Join(one, "cells", CubeFileName(cells[0], 1))); !os.IsNotExist(err) {
		t.Errorf("signal-only cubes: a Ch1 file (%v)", err)
	}

	// A folder holding something else is not replaced.
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	if _, err := s.WriteCubes(context.Background(), nil, dir, 1, 5); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("a folder with the user's file replaced: %v", err)
	}
}
