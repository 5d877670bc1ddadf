package h5

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
	"gonum.org/v1/hdf5"
)

// TestExportAttrs: ExportOptions.Attrs are written on the exported
// dataset beside voxel_size, and read back with the library directly.
func TestExportAttrs(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.h5")
	info := volume.Info{Shape: [3]int{2, 3, 4}, DType: volume.Float32, VoxelSize: [3]float64{6.5, 6.5, 6.5}}
	w, err := createExport(p, "", info, volume.ExportOptions{Attrs: map[string]any{"center": 69.25, "filter": "hann", "kernel": 5}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteLevel(0, 0, make([]byte, info.Bytes())); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	hf, err := hdf5.OpenFile(p, hdf5.F_ACC_RDONLY)
	if err != nil {
		t.Fatal(err)
	}
	defer hf.Close()
	ds, err := hf.OpenDataset("/data")
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	var centre float64
	var filter string
	var kernel int64
	var voxel [3]float64
	for _, r := range []struct {
		name string
		ptr  any
		t    *hdf5.Datatype
	}{{"center", &centre, hdf5.T_NATIVE_DOUBLE}, {"filter", &filter, nil}, {"kernel", &kernel, hdf5.T_NATIVE_INT64}, {"voxel_size", &voxel, hdf5.T_NATIVE_DOUBLE}} {
		a, err := ds.OpenAttribute(r.name)
		if err != nil {
			t.Fatalf("attribute %s: %v", r.name, err)
		}
		if err := a.Read(r.ptr, r.t); err != nil {
			t.Fatalf("attribute %s: %v", r.name, err)
		}
		a.Close()
	}
	if centre != 69.25 || filter != "hann" || kernel != 5 || voxel != [3]float64{6.5, 6.5, 6.5} {
		t.Errorf("attributes %v %q %v %v", centre, filter, kernel, voxel)
	}
}

// TestNumberAttr: volume.NumberAttr reads back the numbers Attrs
// recorded (a float, an int, a list), says a missing one is missing,
// and refuses a string one naming it.
func TestNumberAttr(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.h5")
	info := volume.Info{Shape: [3]int{1, 2, 2}, DType: volume.Float32}
	attrs := map[string]any{"center": 69.25, "kernel": 5, "sweep": []float64{10, 10.5, 11}, "filter": "hann"}
	w, err := createExport(p, "", info, volume.ExportOptions{Attrs: attrs})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteLevel(0, 0, make([]byte, info.Bytes())); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{p, p + ":/data"} {
		for name, want := range map[string][]float64{"center": {69.25}, "kernel": {5}, "sweep": {10, 10.5, 11}} {
			got, ok, err := volume.NumberAttr(spec, name)
			if err != nil || !ok || !slices.Equal(got, want) {
				t.Errorf("%s: %s = %v (%v, %v), want %v", spec, name, got, ok, err, want)
			}
		}
	}
	if got, ok, err := volume.NumberAttr(p, "none"); ok || err != nil {
		t.Errorf("missing attribute: %v, %v, %v", got, ok, err)
	}
	if _, _, err := volume.NumberAttr(p, "filter"); err == nil || !strings.Contains(err.Error(), "filter") {
		t.Errorf("a string attribute read as a number: %v", err)
	}
}
