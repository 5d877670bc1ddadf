package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A distance OUT_DIR is replaced as a whole: a rerun with one metric into
// the OUT_DIR of a run with three leaves that one metric's files and the
// summary, none of the other two's. A folder holding files a distance run
// does not write is refused, not deleted.
func TestDistanceRerunReplacesOutDir(t *testing.T) {
	gt, sub, mask := distDemo(t)
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	for _, metrics := range []string{"l2,corr,fsc", "corr"} {
		if code, _, stderr := runCmd("distance", gt, sub, out, "--mask", mask, "--backend", "cpu", "--metrics", metrics, "--quiet"); code != 0 {
			t.Fatalf("--metrics %s: exit %d: %s", metrics, code, stderr)
		}
	}
	if got, want := onlyFiles(t, out), []string{"corr.csv", "corr.npy", "corr.png", "summary.json"}; !slices.Equal(got, want) {
		t.Errorf("after the rerun OUT_DIR holds %v, want %v", got, want)
	}
	if got := onlyFiles(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Errorf("beside OUT_DIR: %v, want nothing but out", got)
	}

	notes := filepath.Join(out, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd("distance", gt, sub, out, "--mask", mask, "--backend", "cpu", "--metrics", "l2", "--quiet")
	if code == 0 || !strings.Contains(stderr, "notes.txt") {
		t.Errorf("OUT_DIR with notes.txt: exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "mine" {
		t.Errorf("notes.txt after the refused run: %q, %v", b, err)
	}
	if got := onlyFiles(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Errorf("beside OUT_DIR after the refused run: %v", got)
	}
}

// When the cellfinder XML cannot be written after the CSV was (its path
// is taken by a folder), the CSV of the previous run is kept as it was.
func TestDetectXMLFailureKeepsThePreviousCSV(t *testing.T) {
	in, _ := smallBrain(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "cells.csv")
	const old = "z,y,x,type\n1,2,3,cell\n"
	if err := os.WriteFile(out, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "cells.xml", "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := detectRun(context.Background(), in, out, "--xml", "--backend", "cpu", "--quiet")
	if code == 0 {
		t.Fatal("detect succeeded though cells.xml is a folder")
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != old {
		t.Errorf("the previous CSV holds %q (%v) after the failed run: %s", b, err, stderr)
	}
	if got := onlyFiles(t, dir); !slices.Equal(got, []string{"cells.csv", "cells.xml"}) {
		t.Errorf("output folder holds %v", got)
	}
}
