package roundtrip

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/convert"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
	_ "github.com/voxlab/voxlab/processing/volume/h5"
	_ "github.com/voxlab/voxlab/processing/volume/zarr"
)

func run(in, out string, batch int, flags map[string]any) error {
	v := convert.Spec.Defaults()
	for k, x := range flags {
		if _, ok := v[k]; !ok {
			panic("no parameter " + k)
		}
		v[k] = x
	}
	j, err := convert.Spec.Open(pipeline.Request{Args: []string{in, out}, Values: v, Batch: batch})
	if err != nil {
		return err
	}
	defer j.Close()
	_, err = j.Run(context.Background(), job.NewProgress("convert"), pipeline.Device{Budget: plan.Budget{Host: 1 << 30, Shared: true}})
	return err
}

func readAll(t testing.TB, spec string) (volume.Info, []byte) {
	t.Helper()
	v, err := volume.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	b, err := v.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return v.Info, b
}

// values spans a type: its extremes, zero, and distinct values between
// (fractions for float types).
func values(dt volume.DType, n int) []float64 {
	lo, hi := dt.MinValue(), dt.MaxValue()
	out := make([]float64, n)
	for i := range out {
		switch i % 5 {
		case 0:
			out[i] = lo
		case 1:
			out[i] = hi
		case 2:
			out[i] = 0
		default:
			out[i] = math.Round(lo/2 + (hi/2-lo/2)*float64(i%97)/97)
			if dt.IsFloat() {
				out[i] = float64(i) - 0.375
			}
		}
	}
	return out
}

// encode stores float64 values as dt (they fit it exactly).
func encode(dt volume.DType, vals []float64) []byte {
	b := make([]byte, len(vals)*dt.Size())
	for i, v := range vals {
		o := b[i*dt.Size():]
		switch dt {
		case volume.Uint8:
			o[0] = uint8(v)
		case volume.Int8:
			o[0] = uint8(int8(v))
		case volume.Uint16:
			volume.Uint16s(o[:2])[0] = uint16(v)
		case volume.Int16:
			volume.Int16s(o[:2])[0] = int16(v)
		case volume.Uint32:
			volume.Uint32s(o[:4])[0] = uint32(v)
		case volume.Int32:
			volume.Int32s(o[:4])[0] = int32(v)
		case volume.Float32:
			volume.Float32s(o[:4])[0] = float32(v)
		case volume.Float64:
			volume.Float64s(o[:8])[0] = v
		}
	}
	return b
}

// inputs are the files of dt a round trip starts from: written by
// voxlab's own writers, and the golden files of the field's tools
// (h5py, tifffile, zarr-python, zarrita) under the readers' testdata.
func inputs(t *testing.T, dt volume.DType) []string {
	dir := t.TempDir()
	info := volume.Info{Shape: [3]int{5, 6, 7}, DType: dt, VoxelSize: [3]float64{2, 0.5, 0.5}}
	data := encode(dt, values(dt, int(info.Len())))
	var out []string
	names := []string{"in.npy", "in.tif", "in-planes/", "in.h5:/vol", "in.zarr"}
	if dt == volume.Float32 || dt == volume.Uint16 {
		names = append(names, "in.mrc")
	}
	for _, n := range names {
		p := filepath.Join(dir, n)
		if strings.HasSuffix(n, "/") {
			p += "/"
		}
		w, err := volume.Create(p, info)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteSlab(0, data); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	// An OME-Zarr 0.5 store, sharded, written by convert itself.
	z5 := filepath.Join(dir, "in5.zarr")
	if err := run(out[0], z5, 0, map[string]any{"ome-version": "0.5", "chunks": "2,2,3", "shards": "4,4,6"}); err != nil {
		t.Fatal(err)
	}
	out = append(out, z5)
	golden := []string{
		"../../volume/h5/testdata/dtypes.h5:/" + dt.String(),
		"../../volume/zarr/testdata/v2/zstd_" + dt.String() + ".zarr",
		"../../volume/zarr/testdata/v3/gzip_" + dt.String() + ".zarr",
		"../../volume/testdata/types/" + dt.String() + "_le.tif",
	}
	for _, g := range golden {
		p, _ := volume.SplitSpec(g)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("golden input %s: %v", g, err)
		}
		out = append(out, g)
	}
	return out
}

// output is a format and the options a round trip writes.
type output struct {
	name  string
	flags map[string]any
}

var outputs = []output{
	{"out.npy", nil},
	{"out.tif", nil},
	{"out-planes/", nil},
	{"out.mrc", nil},
	{"out.h5", nil},
	{"out.h5:/a/b", map[string]any{"compression": "gzip", "chunks": "2,3,4"}},
	{"out.hdf5", map[string]any{"compression": "lz4", "chunks": "1,6,7"}},
	{"out.h5", map[string]any{"compression": "blosc", "chunks": "3,2,5"}},
	{"out.ome.zarr", nil},
	{"out.zarr", map[string]any{"compression": "blosc", "chunks": "2,4,3"}},
	{"out.zarr", map[string]any{"compression": "gzip", "chunks": "3,5,5"}},
	{"out.zarr", map[string]any{"compression": "none"}},
	{"out.zarr", map[string]any{"ome-version": "0.5"}},
	{"out.zarr", map[string]any{"ome-version": "0.5", "compression": "blosc", "chunks": "2,2,2", "shards": "4,4,4"}},
}

// TestRoundTrips: every readable input of every pixel type, converted to
// every writable format with its codecs, reads back bit for bit, with
// its shape and type.
func TestRoundTrips(t *testing.T) {
	for _, dt := range volume.DTypes {
		t.Run(dt.String(), func(t *testing.T) {
			for _, in := range inputs(t, dt) {
				ref, want := readAll(t, in)
				for i, o := range outputs {
					if o.name == "out.mrc" && dt != volume.Float32 && dt != volume.Uint16 {
						continue
					}
					dir := t.TempDir()
					out := filepath.Join(dir, o.name)
					if strings.HasSuffix(o.name, "/") {
						out += "/"
					}
					name := fmt.Sprintf("%s -> %d:%s %v", in, i, o.name, o.flags)
					if err := run(in, out, 0, o.flags); err != nil {
						t.Errorf("%s: %v", name, err)
						continue
					}
					got, b := readAll(t, out)
					if got.Shape != ref.Shape || got.DType != ref.DType {
						t.Errorf("%s: %v %s, want %v %s", name, got.Shape, got.DType, ref.Shape, ref.DType)
					}
					if !bytes.Equal(b, want) {
						t.Errorf("%s: the data differ", name)
					}
				}
			}
		})
	}
}
