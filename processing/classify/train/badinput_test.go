package train

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// TestBadTrainingData: a YAML naming a missing folder, an empty cube
// folder, one class only, a cube of another size and a missing channel
// file are each refused before training, the error naming the file and
// the problem.
func TestBadTrainingData(t *testing.T) {
	arch := resnet.Arch{Depth: 18, Input: [4]int{20, 20, 8, 2}}
	dir := t.TempDir()
	good, err := WriteExampleCubes(filepath.Join(dir, "good"), 2, 20, 20, 8)
	if err != nil {
		t.Fatal(err)
	}
	cells := filepath.Join(dir, "good", "cells")
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	big, err := WriteExampleCubes(filepath.Join(dir, "big"), 1, 24, 20, 8)
	if err != nil {
		t.Fatal(err)
	}
	lone := filepath.Join(dir, "lone")
	if err := os.Mkdir(lone, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(cells, "pCellz0y0x0Ch0.tif"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lone, "pCellz0y0x0Ch0.tif"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := func(name string, entries ...string) string {
		p := filepath.Join(dir, name+".yaml")
		s := "data:\n"
		for i := 0; i < len(entries); i += 2 {
			s += "- cube_dir: " + entries[i] + "\n  type: " + entries[i+1] + "\n  signal_channel: 0\n  bg_channel: 1\n"
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name, yaml string
		want       []string
	}{
		{"missing folder", yaml("missing", filepath.Join(dir, "nowhere"), "cell", cells, "no_cell"), []string{"missing.yaml", "nowhere", "no such file"}},
		{"empty folder", yaml("empty", empty, "cell", cells, "no_cell"), []string{"empty.yaml", empty, "holds no cubes"}},
		{"one class", yaml("oneclass", cells, "cell"), []string{"oneclass.yaml", "one type (cell)", "cells and non-cells"}},
		{"bad type", yaml("badtype", cells, "soma"), []string{"badtype.yaml", `"soma"`, "cell and no_cell"}},
		{"wrong size", filepath.Clean(big), []string{"pCellz0y0x0Ch0.tif", "8x24x20", "8x20x20"}},
		{"missing channel", yaml("lone", lone, "cell", filepath.Join(dir, "good", "non_cells"), "no_cell"), []string{filepath.Join(lone, "pCellz0y0x0Ch1.tif")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, err := ReadYAML(c.yaml)
			var samples []Sample
			if err == nil {
				samples, err = ListSamples(src, false)
			}
			if err == nil {
				err = checkCubes(samples, arch)
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	if _, err := ReadYAML(good); err != nil {
		t.Errorf("the good YAML: %v", err)
	}
}
