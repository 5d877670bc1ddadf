package outfile

import (
	"os"
	"path/filepath"
	"slices"
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
