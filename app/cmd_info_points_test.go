package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const pointsData = "../processing/points/testdata/"

// TestInfoPoints: info on cellfinder's own XML gives its 56 cells and
// the extent; after a volume it counts the points outside that volume;
// a bad points file fails naming the file and the line.
func TestInfoPoints(t *testing.T) {
	code, out, errOut := runCmd("info", pointsData+"cellfinder_cell_classification.xml")
	flat := strings.Join(strings.Fields(out), " ")
	for _, w := range []string{"points: 56", "cell: 56", "non-cell: 0", "extent: z 10–19, y 110–492, x 49–630"} {
		if code != 0 || !strings.Contains(flat, w) {
			t.Errorf("exit %d, output lacks %q:\n%s%s", code, w, out, errOut)
		}
	}

	// A 3 x 4 x 5 volume and points of which two lie outside it.
	dir := t.TempDir()
	csv := filepath.Join(dir, "cells.csv")
	os.WriteFile(csv, []byte("z,y,x,type\n0,0,0,cell\n2,3,4,artifact\n3,0,0,cell\n1,1,-1,\n"), 0o644)
	vol := golden + "npy/f4be.npy"
	code, out, errOut = runCmd("info", "--json", vol, csv)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var ds []map[string]any
	if err := json.Unmarshal([]byte(out), &ds); err != nil || len(ds) != 2 {
		t.Fatalf("%v: %s", err, out)
	}
	p := ds[1]
	classes, _ := p["classes"].(map[string]any)
	if p["points"] != 4.0 || p["outside"] != 2.0 || classes["cell"] != 2.0 || classes["non-cell"] != 1.0 || classes["unknown"] != 1.0 {
		t.Errorf("points description %v", p)
	}

	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("z,y,x\n1,2,3\n1,,3\n"), 0o644)
	code, _, errOut = runCmd("info", bad)
	if code == 0 || !strings.Contains(errOut, bad+" line 3: y is missing") {
		t.Errorf("bad CSV: exit %d, %q", code, errOut)
	}
}
