package zarr

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// TestExportAttrs: ExportOptions.Attrs are written in the group's
// attributes beside the OME metadata, in OME-Zarr 0.4 (.zattrs) and 0.5
// (zarr.json), read back from the JSON, and the store still opens with
// its voxel size.
func TestExportAttrs(t *testing.T) {
	info := volume.Info{Shape: [3]int{2, 3, 4}, DType: volume.Float32, VoxelSize: [3]float64{6.5, 6.5, 6.5}}
	for _, tc := range []struct{ version, meta string }{{"0.4", ".zattrs"}, {"0.5", "zarr.json"}} {
		p := filepath.Join(t.TempDir(), "out.ome.zarr")
		o := volume.ExportOptions{OMEVersion: tc.version, Attrs: map[string]any{"center": 69.25, "filter": "hann", "sweep": []float64{10, 10.5, 11}}}
		w, err := createImage(p, "", info, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteLevel(0, 0, make([]byte, info.Bytes())); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(p, tc.meta))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if tc.version == "0.5" {
			m, _ = m["attributes"].(map[string]any)
		}
		if m["center"] != 69.25 || m["filter"] != "hann" {
			t.Errorf("%s %s: attributes %v", tc.version, tc.meta, m)
		}
		for name, want := range map[string][]float64{"center": {69.25}, "sweep": {10, 10.5, 11}} {
			got, ok, err := volume.NumberAttr(p, name)
			if err != nil || !ok || !slices.Equal(got, want) {
				t.Errorf("%s: NumberAttr %s = %v (%v, %v), want %v", tc.version, name, got, ok, err, want)
			}
		}
		if got, ok, err := volume.NumberAttr(p, "none"); ok || err != nil {
			t.Errorf("%s: missing attribute: %v, %v, %v", tc.version, got, ok, err)
		}
		if _, _, err := volume.NumberAttr(p, "filter"); err == nil {
			t.Errorf("%s: a string attribute read as a number", tc.version)
		}
		v, err := volume.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if v.VoxelSize != info.VoxelSize {
			t.Errorf("%s: voxel size %v", tc.version, v.VoxelSize)
		}
		v.Close()
	}
}
