package train

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCellDef: an entry's cell_def keeps only the cubes of its cube_dir
// at a position it names, as train_yaml.py's get_tiff_files does through
// brainglobe-utils' find_relevant_tiffs — from a cells XML (any type,
// positions not matching a cube ignored), a folder of files whose names
// carry positions (hidden files aside) and brainglobe's cells YAML, a
// relative cell_def taken from the YAML's folder; a missing cell_def and
// one matching no cube are errors naming it.
func TestCellDef(t *testing.T) {
	dir := t.TempDir()
	if _, err := WriteExampleCubes(dir, 4, 20, 20, 8); err != nil {
		t.Fatal(err)
	}
	// Cube k of each folder is at z k, y 10k, x 7k.
	xml := `<?xml version="1.0" encoding="UTF-8"?><CellCounter_Marker_File><Image_Properties><Image_Filename>placeholder.tif</Image_Filename></Image_Properties><Marker_Data><Current_Type>1</Current_Type>` +
		`<Marker_Type><Type>1</Type><Marker><MarkerX>7</MarkerX><MarkerY>10</MarkerY><MarkerZ>1</MarkerZ></Marker><Marker><MarkerX>5</MarkerX><MarkerY>5</MarkerY><MarkerZ>5</MarkerZ></Marker></Marker_Type>` +
		`<Marker_Type><Type>2</Type><Marker><MarkerX>21</MarkerX><MarkerY>30</MarkerY><MarkerZ>3</MarkerZ></Marker></Marker_Type></Marker_Data></CellCounter_Marker_File>`
	write(t, filepath.Join(dir, "defs", "curated.xml"), xml)
	picked := filepath.Join(dir, "picked")
	write(t, filepath.Join(picked, "pCellz2y20x14Ch0.tif"), "")
	write(t, filepath.Join(picked, "pCellz2y20x14Ch1.tif"), "")
	write(t, filepath.Join(picked, ".DS_Store"), "")
	write(t, filepath.Join(dir, "defs", "cells.yml"), "CellCounter_Marker_File: true\ncandidate_cells:\n- {x: 0, y: 0, z: 0, type: 2, metadata: {}}\n- {x: 21.0, y: 30.0, z: 3.0, type: 1, metadata: {}}\n")
	y := filepath.Join(dir, "def.yaml")
	write(t, y, "data:\n"+
		"- {cube_dir: cells, cell_def: defs/curated.xml, type: cell, signal_channel: 0, bg_channel: 1}\n"+
		"- {cube_dir: non_cells, cell_def: "+picked+", type: no_cell, signal_channel: 0, bg_channel: 1}\n"+
		"- {cube_dir: cells, cell_def: defs/cells.yml, type: cell, signal_channel: 0, bg_channel: -1}\n"+
		"- {cube_dir: non_cells, cell_def: '', type: no_cell, signal_channel: 0, bg_channel: -1}\n")
	src, err := ReadYAML(y)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := ListSamples(src, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range samples {
		var names []string
		for _, f := range s.Files {
			rel, _ := filepath.Rel(dir, f)
			names = append(names, rel)
		}
		got = append(got, strings.Join(names, "+")+" "+[]string{"no_cell", "cell"}[s.Label])
	}
	want := []string{
		"cells/pCellz1y10x7Ch0.tif+cells/pCellz1y10x7Ch1.tif cell",
		"cells/pCellz3y30x21Ch0.tif+cells/pCellz3y30x21Ch1.tif cell",
		"non_cells/pCellz2y20x14Ch0.tif+non_cells/pCellz2y20x14Ch1.tif no_cell",
		"cells/pCellz0y0x0Ch0.tif cell",
		"cells/pCellz3y30x21Ch0.tif cell",
		"non_cells/pCellz0y0x0Ch0.tif no_cell",
		"non_cells/pCellz1y10x7Ch0.tif no_cell",
		"non_cells/pCellz2y20x14Ch0.tif no_cell",
		"non_cells/pCellz3y30x21Ch0.tif no_cell",
	}
	if !slices.Equal(got, want) {
		t.Errorf("samples\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	for _, c := range []struct{ def, msg string }{
		{"defs/missing.xml", "missing.xml"},
		{"empty", "holds no cube at a position of its cell_def"},
	} {
		write(t, filepath.Join(dir, "empty", "pCellz9y9x9Ch0.tif"), "")
		bad := filepath.Join(dir, "bad.yaml")
		write(t, bad, "data:\n- {cube_dir: cells, cell_def: "+c.def+", type: cell, signal_channel: 0, bg_channel: 1}\n- {cube_dir: non_cells, type: no_cell, signal_channel: 0, bg_channel: 1}\n")
		src, err := ReadYAML(bad)
		if err == nil {
			_, err = ListSamples(src, false)
		}
		if err == nil || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "bad.yaml") {
			t.Errorf("cell_def %s: %v, want an error naming bad.yaml and %q", c.def, err, c.msg)
		}
	}
}

// TestPositionFromName: the last x, y and z tags of a name, case aside,
// as pos_from_file_name reads them.
func TestPositionFromName(t *testing.T) {
	for name, want := range map[string]position{
		"pCellz10y522x392Ch0.tif": {392, 522, 10},
		"Cell_z358_y564_x4056":    {4056, 564, 358},
		"PCELLZ1Y2X3CH1.TIF":      {3, 2, 1},
	} {
		if got, ok := positionFromName(name); !ok || got != want {
			t.Errorf("%s: %v %v, want %v", name, got, ok, want)
		}
	}
	if _, ok := positionFromName("notes.txt"); ok {
		t.Error("notes.txt: a position, want none")
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
