package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// TestConvertNeXusProjections: a NeXus scan named by its bare path is its
// projections in convert as in the viewer: convert writes the 6
// projections of scan.nxs (13 frames: 2 darks, 5 flats), says what it
// left out and how to name every frame; named so, it writes all 13.
func TestConvertNeXusProjections(t *testing.T) {
	scan := golden + "../h5/testdata/scan.nxs"
	dir := t.TempDir()
	out := filepath.Join(dir, "proj.npy")
	code, stdout, stderr := runCmd("convert", "--backend", "cpu", scan, out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	whole := scan + ":/entry1/tomo_entry/data/data"
	if want := "wrote 6 projections; left out 2 darks and 5 flats (image_key): give " + whole + " for every frame"; !strings.Contains(stdout+stderr, want) {
		t.Errorf("convert does not say %q:\n%s%s", want, stdout, stderr)
	}
	for _, tc := range []struct {
		path   string
		frames int
	}{{out, 6}, {filepath.Join(dir, "all.npy"), 13}} {
		if tc.frames == 13 {
			if code, _, stderr := runCmd("convert", "--backend", "cpu", "--quiet", whole, tc.path); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
		}
		v, err := volume.Open(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		v.Close()
		if v.Shape[0] != tc.frames {
			t.Errorf("%s: %d frames, want %d", tc.path, v.Shape[0], tc.frames)
		}
	}
}
