package roundtrip

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// outputs are the formats whose files carry a voxel size, as File ▸
// Export layer and convert write them.
var voxelOutputs = []string{"out.ome.zarr", "out5.ome.zarr", "out.h5", "out.h5:/entry/data", "out.tif", "planes/", "out.mrc"}

// reopened opens out (an output of convert) and returns its voxel size.
func reopened(t *testing.T, out string) [3]float64 {
	t.Helper()
	v, err := volume.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	return v.VoxelSize
}

// TestVoxelSizeWritten: an input without a voxel size (NPY) converted
// with --voxel-size 5,2,2 reopens at 5,2,2 in every format that records
// one (OME-Zarr's coordinateTransformations, HDF5's voxel_size and
// element_size_um attributes, TIFF's resolution and ImageJ spacing, a
// folder of TIFF planes, MRC's cell), and the output of that converted
// again, without the flag, carries it on.
func TestVoxelSizeWritten(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	info := volume.Info{Shape: [3]int{4, 6, 8}, DType: volume.Uint16}
	w, err := volume.Create(in, info)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteSlab(0, encode(info.DType, values(info.DType, int(info.Len()))))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if vs := reopened(t, in); vs != [3]float64{} {
		t.Fatalf("the NPY input has voxel size %v", vs)
	}
	want := [3]float64{5, 2, 2}
	for _, name := range voxelOutputs {
		t.Run(strings.Trim(name, "/"), func(t *testing.T) {
			out := filepath.Join(dir, name)
			if strings.HasSuffix(name, "/") {
				out += "/"
			}
			flags := map[string]any{"voxel-size": want[:]}
			if strings.HasPrefix(name, "out5") {
				flags["ome-version"] = "0.5"
			}
			if err := run(in, out, 0, flags); err != nil {
				t.Fatal(err)
			}
			if got := reopened(t, out); got != want {
				t.Fatalf("reopened at %v, want %v", got, want)
			}
			again := filepath.Join(dir, "again-"+strings.NewReplacer("/", "", ":", "").Replace(name)+".ome.zarr")
			if err := run(out, again, 0, nil); err != nil {
				t.Fatal(err)
			}
			if got := reopened(t, again); got != want {
				t.Errorf("converted on, reopened at %v, want %v", got, want)
			}
		})
	}
}
