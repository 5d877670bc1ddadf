package reconstruct

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// captured is what the test format's exporter was asked to write.
var captured struct {
	sync.Mutex
	info volume.Info
	opts volume.ExportOptions
}

// npyLevels writes level 0 of the test format as NPY.
type npyLevels struct{ w volume.Writer }

func (n npyLevels) WriteLevel(_, z0 int, src []byte) error { return n.w.WriteSlab(z0, src) }
func (n npyLevels) Align(int) int                          { return 1 }
func (n npyLevels) Commit() error                          { return n.w.Commit() }
func (n npyLevels) Abort() error                           { return n.w.Abort() }

// The ".attrtest" format records the info and options it is created
// with and writes NPY: the run's metadata as the HDF5 and Zarr writers
// receive it, without linking them here.
func init() {
	create := func(path, _ string, info volume.Info) (volume.Writer, error) { return volume.CreateNPY(path, info) }
	// NumberAttr reads the attributes the last output was created with,
	// as HDF5's and Zarr's read theirs back.
	attr := func(_, _, name string) ([]float64, bool, error) {
		captured.Lock()
		defer captured.Unlock()
		switch x := captured.opts.Attrs[name].(type) {
		case []float64:
			return x, true, nil
		case float64:
			return []float64{x}, true, nil
		}
		return nil, false, nil
	}
	volume.RegisterFormat(&volume.Format{Name: "attrtest", Extensions: []string{".attrtest"}, Create: create, NumberAttr: attr})
	volume.RegisterExporter("attrtest", &volume.Exporter{Create: func(path, ds string, info volume.Info, o volume.ExportOptions) (volume.LevelWriter, error) {
		captured.Lock()
		captured.info, captured.opts = info, o
		captured.Unlock()
		w, err := create(path, ds, info)
		if err != nil {
			return nil, err
		}
		return npyLevels{w}, nil
	}})
}

// TestRunMetadata: the output's metadata hold the voxel size (the
// --pixel-size given, else 1 for a scan that has none; read back from a
// TIFF) and the parameters used — the centre found by --center auto as
// the report prints it, the algorithm, filter, stripes and dezinging.
func TestRunMetadata(t *testing.T) {
	dir := t.TempDir()
	e := defaultExample
	proj, darks, flats, err := e.write(dir)
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string]any{"darks": darks, "flats": flats, "center": "auto", "filter": "hann", "stripes": "sorting",
		"dezing": true, "kernel": 5, "dif": 300.0}
	rep, err := runSpec(t, proj, filepath.Join(dir, "slices.attrtest"), 0, flags)
	if err != nil {
		t.Fatal(err)
	}
	sum := rep.Summary.(Summary)
	if sum.Dezing == nil || *sum.Dezing != (DezingParams{Kernel: 5, Dif: 300}) || sum.VoxelSize != 1 {
		t.Errorf("report: dezing %v, voxel size %g", sum.Dezing, sum.VoxelSize)
	}
	captured.Lock()
	info, a := captured.info, captured.opts.Attrs
	captured.Unlock()
	if info.VoxelSize != [3]float64{1, 1, 1} {
		t.Errorf("voxel size %v, want 1 (the scan has none)", info.VoxelSize)
	}
	for k, want := range map[string]any{
		"reconstruct_center": sum.Center, "reconstruct_center_from": "auto (Vo's method)",
		"reconstruct_algorithm": "fbp", "reconstruct_filter": "hann", "reconstruct_stripes": "sorting",
		"reconstruct_paganin": false, "reconstruct_dezing": true, "reconstruct_dezing_kernel": 5,
		"reconstruct_dezing_dif": 300.0, "reconstruct_voxel_size_um": 1.0,
	} {
		if a[k] != want {
			t.Errorf("attribute %s = %v (%T), want %v", k, a[k], a[k], want)
		}
	}
	if r, ok := a["reconstruct_rows"].([]int); !ok || r[0] != 0 || r[1] != e.rows {
		t.Errorf("reconstruct_rows = %v", a["reconstruct_rows"])
	}
	tif := filepath.Join(dir, "slices.tif")
	if _, err := runSpec(t, proj, tif, 0, map[string]any{"darks": darks, "flats": flats, "pixel-size": 6.5}); err != nil {
		t.Fatal(err)
	}
	v, err := volume.Open(tif)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.VoxelSize != [3]float64{6.5, 6.5, 6.5} {
		t.Errorf("%s: voxel size %v, want 6.5 µm (--pixel-size)", tif, v.VoxelSize)
	}
}
