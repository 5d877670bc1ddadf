package roundtrip

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/processing/convert"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// TestCancelStores: a conversion to an OME-Zarr pyramid or an HDF5 file
// cancelled after its first slab leaves nothing: no store, no file, no
// temporary.
func TestCancelStores(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	info := volume.Info{Shape: [3]int{24, 16, 16}, DType: volume.Uint16}
	w, err := volume.Create(in, info)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteSlab(0, encode(info.DType, values(info.DType, int(info.Len()))))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		out   string
		flags map[string]any
	}{
		{"out.ome.zarr", map[string]any{"levels": 3, "chunks": "2,8,8"}},
		{"out5.zarr", map[string]any{"levels": 2, "ome-version": "0.5", "chunks": "2,8,8", "shards": "4,16,16"}},
		{"out.h5", map[string]any{"compression": "gzip", "chunks": "2,8,8"}},
	} {
		v := convert.Spec.Defaults()
		for k, x := range tc.flags {
			v[k] = x
		}
		j, err := convert.Spec.Open(pipeline.Request{Args: []string{in, filepath.Join(dir, tc.out)}, Values: v, Batch: 4})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		_, err = j.Run(ctx, job.NewProgress("convert", func(e job.Event) {
			if e.Done >= 4 {
				cancel()
			}
		}), pipeline.Device{Budget: plan.Budget{Host: 1 << 30, Shared: true}})
		cancel()
		j.Close()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", tc.out, err)
		}
		es, _ := os.ReadDir(dir)
		for _, e := range es {
			if e.Name() != "in.npy" {
				t.Errorf("%s: %s left behind", tc.out, e.Name())
			}
		}
	}
}
