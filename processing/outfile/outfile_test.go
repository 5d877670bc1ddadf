package outfile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// names lists a folder, hidden temporaries included.
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestFileCommitReplacesTargetOnlyAtCommit(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.raw")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(target)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("new contents"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "old" {
		t.Fatalf("target changed before Commit: %q", b)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new contents" {
		t.Fatalf("after Commit target holds %q", b)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out.raw"}) {
		t.Fatalf("folder holds %v, want only out.raw", got)
	}
	if err := f.Commit(); err == nil {
		t.Fatal("second Commit succeeded")
	}
	if err := f.Abort(); err != nil {
		t.Fatalf("Abort after Commit: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new contents" {
		t.Fatal("Abort after Commit removed the output")
	}
}

func TestFileAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.raw")
	f, err := Create(target)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("partial")
	if err := f.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Fatalf("Abort left %v", got)
	}
}

func TestCreateMissingFolder(t *testing.T) {
	target := filepath.Join(t.TempDir(), "no-such-folder", "out.raw")
	if _, err := Create(target); err == nil {
		t.Fatal("Create in a missing folder succeeded")
	}
}

func TestDirCommitKeepsOtherFiles(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "results")
	os.MkdirAll(target, 0o755)
	os.WriteFile(filepath.Join(target, "keep.txt"), []byte("k"), 0o644)
	os.WriteFile(filepath.Join(target, "cells.xml"), []byte("old"), 0o644)

	d, err := CreateDir(target)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(d.Path, "cells.xml"), []byte("new"), 0o644)
	os.WriteFile(filepath.Join(d.Path, "cells.csv"), []byte("csv"), 0o644)
	if b, _ := os.ReadFile(filepath.Join(target, "cells.xml")); string(b) != "old" {
		t.Fatal("target changed before Commit")
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := names(t, target); !slices.Equal(got, []string{"cells.csv", "cells.xml", "keep.txt"}) {
		t.Fatalf("target holds %v", got)
	}
	if b, _ := os.ReadFile(filepath.Join(target, "cells.xml")); string(b) != "new" {
		t.Fatalf("cells.xml holds %q after Commit", b)
	}
	if got := names(t, parent); !slices.Equal(got, []string{"results"}) {
		t.Fatalf("parent holds %v, want only results", got)
	}
}

func TestDirAbortAndBadTarget(t *testing.T) {
	parent := t.TempDir()
	d, err := CreateDir(filepath.Join(parent, "results"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(d.Path, "part"), []byte("x"), 0o644)
	if err := d.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := names(t, parent); len(got) != 0 {
		t.Fatalf("Abort left %v", got)
	}

	file := filepath.Join(parent, "plain")
	os.WriteFile(file, nil, 0o644)
	if _, err := CreateDir(file); err == nil {
		t.Fatal("CreateDir over a plain file succeeded")
	}
}

// write creates path holding s, failing the test on error.
func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// read returns what path holds, or "<missing>".
func read(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

// create starts an output file at target holding s.
func create(t *testing.T, target, s string) *File {
	t.Helper()
	f, err := Create(target)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestCommitAllReplacesEveryTarget(t *testing.T) {
	dir := t.TempDir()
	csv, xml := filepath.Join(dir, "cells.csv"), filepath.Join(dir, "cells.xml")
	write(t, csv, "old csv")
	a, b := create(t, csv, "new csv"), create(t, xml, "new xml")
	if err := CommitAll(a, b); err != nil {
		t.Fatal(err)
	}
	if read(csv) != "new csv" || read(xml) != "new xml" {
		t.Errorf("after CommitAll: %q and %q", read(csv), read(xml))
	}
	if got := names(t, dir); !slices.Equal(got, []string{"cells.csv", "cells.xml"}) {
		t.Errorf("folder holds %v", got)
	}
	if err := a.Abort(); err != nil || read(csv) != "new csv" {
		t.Errorf("Abort after CommitAll: %v, %q", err, read(csv))
	}
	if err := CommitAll(a); err == nil {
		t.Error("a second CommitAll succeeded")
	}
}

// When the second file cannot be renamed into place (its target is a
// folder), the first target keeps its previous contents (or stays
// missing) and no temporary file is left.
func TestCommitAllCommitsNothingWhenOneFails(t *testing.T) {
	for _, previous := range []bool{true, false} {
		dir := t.TempDir()
		csv, xml := filepath.Join(dir, "cells.csv"), filepath.Join(dir, "cells.xml")
		if previous {
			write(t, csv, "old csv")
		}
		if err := os.MkdirAll(filepath.Join(xml, "inside"), 0o755); err != nil {
			t.Fatal(err)
		}
		a, b := create(t, csv, "new csv"), create(t, xml, "new xml")
		if err := CommitAll(a, b); err == nil {
			t.Fatal("CommitAll onto a folder succeeded")
		}
		want := "<missing>"
		if previous {
			want = "old csv"
		}
		if got := read(csv); got != want {
			t.Errorf("previous %v: cells.csv holds %q, want %q", previous, got, want)
		}
		wantNames := []string{"cells.xml"}
		if previous {
			wantNames = []string{"cells.csv", "cells.xml"}
		}
		if got := names(t, dir); !slices.Equal(got, wantNames) {
			t.Errorf("previous %v: folder holds %v, want %v", previous, got, wantNames)
		}
	}
}

// distanceOwned is what a distance OUT_DIR holds.
func distanceOwned(name string) bool {
	switch filepath.Ext(name) {
	case ".npy", ".csv", ".png":
		return true
	}
	return name == "summary.json"
}

// A replaced folder holds exactly what was written: a rerun with fewer
// files leaves none of the earlier run's.
func TestReplaceDirLeavesOnlyWhatWasWritten(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "out")
	for run, files := range [][]string{{"l2.npy", "corr.npy", "fsc.npy", "summary.json"}, {"l2.npy", "summary.json"}} {
		d, err := ReplaceDir(target, distanceOwned)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			write(t, filepath.Join(d.Path, f), "run "+string(rune('1'+run)))
		}
		if run == 1 && len(names(t, target)) != 4 {
			t.Fatal("the target changed before Commit")
		}
		if err := d.Commit(); err != nil {
			t.Fatal(err)
		}
		want := slices.Sorted(slices.Values(files))
		if got := names(t, target); !slices.Equal(got, want) {
			t.Errorf("run %d: target holds %v, want %v", run+1, got, want)
		}
		if got := names(t, parent); !slices.Equal(got, []string{"out"}) {
			t.Errorf("run %d: parent holds %v, want only out", run+1, got)
		}
		if st, err := os.Stat(target); err != nil || st.Mode().Perm() != 0o755 {
			t.Errorf("run %d: target mode %v, %v", run+1, st.Mode(), err)
		}
	}
	if got := read(filepath.Join(target, "l2.npy")); got != "run 2" {
		t.Errorf("l2.npy holds %q", got)
	}
}

// A folder holding files this output does not write is never replaced
// (it would delete them): refused at ReplaceDir, and at Commit when they
// appeared during the run.
func TestReplaceDirRefusesAFolderOfOtherFiles(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "out")
	os.MkdirAll(target, 0o755)
	write(t, filepath.Join(target, "notes.txt"), "mine")
	if _, err := ReplaceDir(target, distanceOwned); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("ReplaceDir over a folder with notes.txt: %v", err)
	}
	if _, err := ReplaceDir(target, nil); err == nil {
		t.Error("ReplaceDir with no owned names over a non-empty folder succeeded")
	}
	os.Remove(filepath.Join(target, "notes.txt"))
	write(t, filepath.Join(target, "l2.npy"), "old")
	d, err := ReplaceDir(target, distanceOwned)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(d.Path, "l2.npy"), "new")
	write(t, filepath.Join(target, "notes.txt"), "mine") // while the job ran
	if err := d.Commit(); err == nil {
		t.Fatal("Commit replaced a folder holding notes.txt")
	}
	if read(filepath.Join(target, "notes.txt")) != "mine" || read(filepath.Join(target, "l2.npy")) != "old" {
		t.Error("the refused Commit changed the target")
	}
	if got := names(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Errorf("parent holds %v, want only out", got)
	}
	file := filepath.Join(parent, "plain")
	write(t, file, "")
	if _, err := ReplaceDir(file, distanceOwned); err == nil {
		t.Error("ReplaceDir over a plain file succeeded")
	}
}
