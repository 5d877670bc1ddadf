package iocheck

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheck runs every way an output can meet an input, and the near
// misses that must pass, on real files, folders and links.
func TestCheck(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(other, "scan.nxs"), nil, 0o644)
	at := func(p string) string { return filepath.Join(dir, p) }
	mk := func(p string) string {
		os.MkdirAll(filepath.Dir(at(p)), 0o755)
		if err := os.WriteFile(at(p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
		return at(p)
	}
	for _, p := range []string{"stack.tif", "darks.h5", "planes/plane_0000.tif", "brain.zarr/0/.zarray", "ee/l2.npy", "scan.nxs", "planes2/x.tif", "linked/real.tif"} {
		mk(p)
	}
	os.Symlink(at("stack.tif"), at("alias.tif"))
	os.Symlink(at("linked"), at("linkdir"))
	os.Symlink(at("out.csv"), at("dangling-to-out.csv"))
	if err := os.Link(at("stack.tif"), at("hard.tif")); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, at("stack.tif"))
	if err != nil {
		t.Fatal(err)
	}
	in := func(name, p string) Input { return Input{Name: name, Path: p} }
	file := func(p string) Output { return Output{Name: "output", Path: p, Kind: File} }
	folder := func(p string) Output { return Output{Name: "output folder", Path: p, Kind: Folder} }
	for _, tc := range []struct {
		name string
		in   Input
		out  Output
		how  string // "": no clash
	}{
		{"same path", in("input", at("stack.tif")), file(at("stack.tif")), "same"},
		{"same path, relative and absolute", in("input", rel), file(at("stack.tif")), "same"},
		{"same path, not clean", in("input", at("planes/../stack.tif")), file(at("./stack.tif")), "same"},
		{"--darks is the output", in("darks (--darks)", at("darks.h5")), file(at("darks.h5")), "same"},
		{"output is a symlink to the input", in("input", at("stack.tif")), file(at("alias.tif")), "symlink"},
		{"input is a symlink to the output", in("input", at("alias.tif")), file(at("stack.tif")), "symlink"},
		{"through a linked folder", in("input", at("linked/real.tif")), file(at("linkdir/real.tif")), "symlink"},
		{"input is a dangling link to the output to be", in("input", at("dangling-to-out.csv")), file(at("out.csv")), "symlink"},
		{"hard link", in("input", at("stack.tif")), file(at("hard.tif")), "hardlink"},
		{"output inside a folder of planes", in("input", at("planes")), file(at("planes/plane_0000.tif")), "inside-input"},
		{"new output inside a folder of planes", in("input", at("planes")), file(at("planes/cells.csv")), "inside-input"},
		{"output inside a linked input folder", in("input", at("linkdir")), file(at("linked/new.csv")), "inside-input"},
		{"output inside an input store", in("input", at("brain.zarr")+":/0"), file(at("brain.zarr/cells.csv")), "inside-input"},
		{"output store is the input store", in("input", at("brain.zarr")), folder(at("brain.zarr")), "same"},
		{"input inside an output folder replaced", in("ground truth", at("ee/l2.npy")), folder(at("ee")), "input-inside"},
		{"input folder inside an output folder replaced", in("input", at("planes")), folder(dir), "input-inside"},
		{"dataset spec of the output file", in("input", at("darks.h5")+":/data"), file(at("darks.h5")), "same"},
		{"dataset spec of a file to be", in("input", at("new.h5")+":/data"), file(at("new.h5")), ""},
		{"sibling folder with a longer name", in("input", at("planes")), file(at("planes2/x.tif")), ""},
		{"output beside the input", in("input", at("stack.tif")), file(at("cells.csv")), ""},
		{"input beside an output folder", in("input", at("stack.tif")), folder(at("ee")), ""},
		{"input file inside an output written into", in("input", at("ee/l2.npy")), Output{Name: "output folder", Path: at("ee"), Kind: Into, Files: []string{"corr.npy"}}, ""},
		{"input is a file written into a folder", in("input", at("ee/l2.npy")), Output{Name: "output folder", Path: at("ee"), Kind: Into, Files: []string{"l2.npy"}}, "same"},
		{"no output", in("input", at("stack.tif")), file(""), ""},
	} {
		err := Check(Paths{Inputs: []Input{in("other", filepath.Join(other, "scan.nxs")), tc.in}, Outputs: []Output{tc.out}})
		var c *Clash
		switch {
		case tc.how == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.how == "":
		case !errors.As(err, &c):
			t.Errorf("%s: no clash found (%v)", tc.name, err)
		case c.How != tc.how:
			t.Errorf("%s: clash %q, want %q: %v", tc.name, c.How, tc.how, err)
		case !strings.Contains(err.Error(), tc.in.Name) || !strings.Contains(err.Error(), tc.in.Path):
			t.Errorf("%s: the message does not name the input: %v", tc.name, err)
		}
	}
}

// The check changes nothing: inputs, outputs and links stay as they were.
func TestCheckOnlyReads(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.tif")
	os.WriteFile(p, []byte("x"), 0o644)
	if err := Check(Paths{Inputs: []Input{{Name: "input", Path: p}}, Outputs: []Output{{Name: "output", Path: p}}}); err == nil {
		t.Fatal("no clash")
	}
	es, _ := os.ReadDir(dir)
	if b, _ := os.ReadFile(p); len(es) != 1 || string(b) != "x" {
		t.Errorf("the folder holds %d entries, a.tif %q", len(es), b)
	}
}
