package main

// Zarr through the commands: a dezinging run into an OME-Zarr store
// (from the command line and the panel), detection on an OME-Zarr input.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/demo"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer"
)

// TestDezingZarrOutput: an OUT ending in .zarr gets the same projections,
// dark and flat as the HDF5 output, as an OME-Zarr image with one
// projection per chunk, and nothing is left beside it.
func TestDezingZarrOutput(t *testing.T) {
	scan, _ := dezingScan(t)
	dir := t.TempDir()
	h5out, zout := filepath.Join(dir, "out.h5"), filepath.Join(dir, "out.ome.zarr")
	mustRun(t, "dezing", scan, h5out, "--backend", "cpu", "--batch-size", "7")
	mustRun(t, "dezing", scan, zout, "--backend", "cpu", "--batch-size", "5")
	for _, ds := range []string{"data", "dark", "flat"} {
		zs := zout + ":/" + ds
		if ds == "data" {
			zs = zout
		}
		hi, h := testutil.ReadVolume(t, h5out+":/"+ds)
		zi, z := testutil.ReadVolume(t, zs)
		if hi.Shape != zi.Shape || hi.DType != zi.DType || !bytes.Equal(h, z) {
			t.Errorf("%s: zarr %v %s differs from HDF5 %v %s", ds, zi.Shape, zi.DType, hi.Shape, hi.DType)
		}
	}
	out := mustRun(t, "info", zout)
	if !strings.Contains(out, "OME-Zarr 0.4") || !strings.Contains(out, "zstd") || !strings.Contains(out, "chunk shape: [1 ") {
		t.Errorf("info:\n%s", out)
	}
	if got := onlyFiles(t, dir); len(got) != 2 {
		t.Errorf("folder holds %v, want the two outputs", got)
	}
	// A rerun replaces the store; a folder of someone else's is refused.
	mustRun(t, "dezing", scan, zout, "--backend", "cpu")
	other := filepath.Join(dir, "mine.zarr")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("keep"), 0o644)
	if code, _, stderr := runCmd("dezing", scan, other, "--backend", "cpu"); code == 0 || !strings.Contains(stderr, "notes.txt") {
		t.Errorf("dezing into a foreign .zarr folder: exit %d, %s", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(other, "notes.txt")); err != nil || string(b) != "keep" {
		t.Errorf("the foreign folder was changed: %v", err)
	}
}

// TestDetectZarr: detect reads an OME-Zarr (written by volume.Create)
// and finds the same cells as in the TIFF planes it was made from.
func TestDetectZarr(t *testing.T) {
	planes, _ := smallBrain(t)
	dir := t.TempDir()
	info, data := testutil.ReadVolume(t, planes)
	store := filepath.Join(dir, "brain.ome.zarr")
	w, err := volume.Create(store, info)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSlab(0, data); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "tiff.csv"), filepath.Join(dir, "zarr.csv")
	mustRun(t, "detect", planes, a, "--backend", "cpu")
	mustRun(t, "detect", store+":/0", b, "--backend", "cpu")
	ca, cb := fileBytes(t, a), fileBytes(t, b)
	if len(bytes.Split(ca, []byte("\n"))) < 3 || !bytes.Equal(ca, cb) {
		t.Errorf("cells from the Zarr store differ from the TIFF planes':\n%s\nvs\n%s", cb, ca)
	}
}

// TestGUIDezingZarrOutput: a dezinging run from the panel into a .zarr
// store ends with the store shown as the result layer.
func TestGUIDezingZarrOutput(t *testing.T) {
	h := newGUIHarness(t)
	out := filepath.Join(h.dir, "tomo", "scan-dezinged.ome.zarr")
	h.choose("dezing", map[string]string{"out": out, "batch-size": "30"})
	finished(t, h.runToEnd())
	res := h.layer("scan-dezinged.ome.zarr")
	if res == nil || !res.Visible() {
		t.Fatalf("no visible result layer; layers %v", names(h.hl.Layers()))
	}
	il, ok := res.(*viewer.ImageLayer)
	if !ok || il.Volume().Shape[0] != demo.TomoLayoutFor(demo.Small).Projections {
		t.Errorf("result layer %v", res)
	}
}
