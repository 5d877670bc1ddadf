package points_test

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/voxlab/voxlab/processing/detect"
	"github.com/voxlab/voxlab/processing/points"
)

// TestReadsDetectOutput: the CSV and XML that `voxlab detect` writes read
// back as its candidates (cells as cells, artifacts as non-cells), and
// writing what was read from its XML gives back the same bytes.
func TestReadsDetectOutput(t *testing.T) {
	cands := []detect.Candidate{{Z: 1, Y: 2, X: 3, Type: detect.Cell}, {Z: 4, Y: 5, X: 6, Type: detect.Artifact}, {Z: 7, Y: 8, X: 9, Type: detect.Cell}}
	var csv, xml bytes.Buffer
	if err := detect.WriteCSV(&csv, cands); err != nil {
		t.Fatal(err)
	}
	if err := detect.WriteXML(&xml, cands); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, buf := range map[string]*bytes.Buffer{"c.csv": &csv, "c.xml": &xml} {
		path := dir + "/" + name
		if err := writeFile(path, buf.Bytes()); err != nil {
			t.Fatal(err)
		}
		pts, err := points.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		want := cands
		if name == "c.xml" { // grouped by marker type: artifacts (1) first
			want = []detect.Candidate{cands[1], cands[0], cands[2]}
		}
		if len(pts) != len(want) {
			t.Fatalf("%s: %d points", name, len(pts))
		}
		for i, c := range want {
			p := pts[i]
			cls := points.Cell
			if c.Type == detect.Artifact {
				cls = points.NonCell
			}
			if p.Z != float64(c.Z) || p.Y != float64(c.Y) || p.X != float64(c.X) || points.ClassOf(p.Type) != cls {
				t.Errorf("%s point %d: %+v, want %+v", name, i, p, c)
			}
		}
		if name == "c.xml" {
			var again bytes.Buffer
			points.WriteXML(&again, pts)
			if !slices.Equal(again.Bytes(), xml.Bytes()) {
				t.Errorf("detect's XML written again differs:\n%s", again.String())
			}
		}
	}
}

func writeFile(path string, b []byte) error { return os.WriteFile(path, b, 0o644) }
