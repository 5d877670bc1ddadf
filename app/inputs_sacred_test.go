package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/volume"
)

// snapshot records every entry under dir: its kind and, for files, a
// hash of its bytes; links as their targets.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			to, err := os.Readlink(p)
			snap[rel] = "link " + to
			return err
		case d.IsDir():
			snap[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			snap[rel] = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// sameTree fails unless dir holds exactly what snapshot before saw.
func sameTree(t *testing.T, what, dir string, before map[string]string) {
	t.Helper()
	after := snapshot(t, dir)
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s: %s changed or went missing", what, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: %s appeared", what, p)
		}
	}
}

// writeVolume writes a small uint16 volume (z planes of 16×16) to spec.
func writeVolume(t *testing.T, spec string, z int, seed byte) {
	t.Helper()
	info := volume.Info{Shape: [3]int{z, 16, 16}, DType: volume.Uint16}
	w, err := volume.Create(spec, info)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, info.Len()*2)
	for i := range buf {
		buf[i] = byte(i*7) + seed
	}
	if err := w.WriteSlab(0, buf); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestOutputsNeverOverwriteInputs runs, as commands, every way the fault
// campaign found (and the others the check covers) for an output to meet
// an input: the --darks file as the output, an output in the input's
// folder of planes, the input as its own output, an input in the OUT_DIR
// that distance replaces, through a symbolic or a hard link, a dataset
// spec of the output file, an output inside an input store, an input
// inside an output store; in a run, a task, a merge, a plan and a
// submission. Each is refused with a message naming the input, exit 1,
// and leaves every file as it was (byte for byte) and nothing new.
func TestOutputsNeverOverwriteInputs(t *testing.T) {
	t.Setenv(cluster.EnvShared, "")
	dir := t.TempDir()
	at := func(p string) string { return filepath.Join(dir, p) }
	scan, _ := dezingScan(t)
	if err := os.Rename(scan, at("scan.nxs")); err != nil {
		t.Fatal(err)
	}
	planes, _ := smallBrain(t)
	if err := os.Rename(planes, at("planes")); err != nil {
		t.Fatal(err)
	}
	writeVolume(t, at("proj.npy"), 6, 1)
	writeVolume(t, at("darks.h5")+":/data", 3, 2)
	writeVolume(t, at("stack.tif"), 20, 3)
	gt, sub, _ := distDemo(t)
	os.MkdirAll(at("ee"), 0o755)
	for src, dst := range map[string]string{gt: "ee/l2.npy", sub: "sub.npy"} {
		if err := os.WriteFile(at(dst), fileBytes(t, src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A store to read: a dezinging run's OME-Zarr output.
	mustRun(t, "dezing", at("proj.npy"), at("store.zarr"), "--darks", at("darks.h5"), "--backend", "cpu", "--quiet")
	if err := os.Symlink(at("scan.nxs"), at("alias.h5")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(at("stack.tif"), at("hard.csv")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(at("old.zarr"), 0o755)
	if err := os.WriteFile(at("old.zarr/proj.npy"), fileBytes(t, at("proj.npy")), 0o644); err != nil {
		t.Fatal(err)
	}
	cpu := []string{"--backend", "cpu", "--quiet"}
	// The campaign's command lines, in the folder of their files.
	t.Chdir(dir)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"--darks as the output", []string{"dezing", "proj.npy", "darks.h5", "--darks", "darks.h5"}, "output darks.h5 is the darks (--darks) darks.h5"},
		{"output in the input's planes", []string{"detect", "planes", "planes/plane_0000.tif"}, "output planes/plane_0000.tif is inside the input planes"},
		{"input as its own output", []string{"detect", "stack.tif", "stack.tif"}, "output stack.tif is the input stack.tif"},
		{"input in the OUT_DIR replaced", []string{"distance", "ee/l2.npy", "sub.npy", "ee"}, "the ground truth ee/l2.npy is inside output folder ee"},
		{"new output in the input's planes", []string{"detect", at("planes"), at("planes/cells.csv")}, "is inside the input " + at("planes")},
		{"relative and absolute", []string{"detect", "./planes/../stack.tif", at("stack.tif")}, "is the input ./planes/../stack.tif"},
		{"mask in the OUT_DIR replaced", []string{"distance", "sub.npy", "sub.npy", "ee", "--mask", "ee/l2.npy"}, "the mask (--mask) ee/l2.npy is inside output folder ee"},
		{"output is a symbolic link to the input", []string{"dezing", "scan.nxs", "alias.h5"}, "output alias.h5 is the input scan.nxs (through a symbolic link)"},
		{"output is a hard link to the input", []string{"detect", "stack.tif", "hard.csv"}, "output hard.csv is a hard link to the input stack.tif"},
		{"dataset spec of the output", []string{"dezing", "proj.npy", "darks.h5", "--darks", "darks.h5:/data"}, "output darks.h5 is the darks (--darks) darks.h5:/data"},
		{"output inside the input store", []string{"dezing", "store.zarr:/0", "store.zarr/out.h5"}, "output store.zarr/out.h5 is inside the input store.zarr:/0"},
		{"output store is the input store", []string{"dezing", "store.zarr", "store.zarr/"}, "output store.zarr/ is the input store.zarr"},
		{"input inside the output store", []string{"dezing", "old.zarr/proj.npy", "old.zarr"}, "the input old.zarr/proj.npy is inside output old.zarr"},
		{"a task", []string{"detect", "stack.tif", "stack.tif", "--task", "0/2"}, "output stack.tif is the input stack.tif"},
		{"a merge", []string{"merge", "detect", "stack.tif", "stack.tif", "--tasks", "2"}, "output stack.tif is the input stack.tif"},
		{"a plan", []string{"plan", "detect", "planes", "planes/cells.csv"}, "output planes/cells.csv is inside the input planes"},
		{"a submission", []string{"submit", "slurm", "distance", "ee/l2.npy", "sub.npy", "ee", "--tasks", "2", "--dry-run", "--shared", "shared"}, "the ground truth ee/l2.npy is inside output folder ee"},
	} {
		before := snapshot(t, dir)
		code, _, stderr := runCmd(append(tc.args, cpu...)...)
		if code != 1 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "choose another") {
			t.Errorf("%s: exit %d, want 1 and %q: %s", tc.name, code, tc.want, stderr)
		}
		sameTree(t, tc.name, dir, before)
	}
	// A task writes its part beside the output: an input there is safe
	// too.
	part := cluster.PartPath(cluster.PartsDir(at("cells.csv")), "detect", cluster.Task{Index: 1, Count: 2})
	os.MkdirAll(filepath.Dir(part), 0o755)
	if err := os.WriteFile(part, fileBytes(t, at("stack.tif")), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	code, _, stderr := runCmd("detect", part, "cells.csv", "--task", "1/2", "--backend", "cpu", "--quiet")
	if code != 1 || !strings.Contains(stderr, "task part") {
		t.Errorf("a task part that is the input: exit %d: %s", code, stderr)
	}
	sameTree(t, "a task part that is the input", dir, before)

	// Near misses run: an output beside the input whose name starts
	// like the input folder's.
	mustRun(t, append([]string{"detect", "planes", "planes.csv"}, cpu...)...)
	mustRun(t, append([]string{"detect", "stack.tif", "stack.csv", "--xml"}, cpu...)...)
}
