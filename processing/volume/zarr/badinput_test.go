package zarr

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// copyStore copies a golden store into a temporary folder.
func copyStore(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, r), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, r), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestBadInput: damaged or unsupported stores and bad specs give an
// error naming the store and the problem, at open or at the read of the
// damaged chunk.
func TestBadInput(t *testing.T) {
	edit := func(file string, f func([]byte) []byte) func(string) {
		return func(dir string) {
			p := filepath.Join(dir, filepath.FromSlash(file))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(p, f(b), 0o644)
		}
	}
	replace := func(file, old, new string) func(string) {
		return edit(file, func(b []byte) []byte {
			if !bytes.Contains(b, []byte(old)) {
				t.Fatalf("%s holds no %q", file, old)
			}
			return bytes.Replace(b, []byte(old), []byte(new), 1)
		})
	}
	truncate := func(file string) func(string) {
		return edit(file, func(b []byte) []byte { return b[:len(b)/2] })
	}
	flip := func(file string, at int) func(string) {
		return edit(file, func(b []byte) []byte {
			if at < 0 {
				at += len(b)
			}
			b[at] ^= 0x40
			return b
		})
	}
	for _, tc := range []struct {
		name, store, spec string
		damage            func(dir string)
		want              string
	}{
		{"no metadata", "v2/zstd_uint16.zarr", "", func(d string) { os.Remove(filepath.Join(d, ".zarray")) }, "not a Zarr store"},
		{"bad JSON", "v2/zstd_uint16.zarr", "", truncate(".zarray"), "not valid Zarr metadata"},
		{"unknown compressor", "v2/zstd_uint16.zarr", "", replace(".zarray", `"zstd"`, `"lzma"`), `compressor "lzma" is not supported`},
		{"filters", "v2/zstd_uint16.zarr", "", replace(".zarray", `"filters": null`, `"filters": [{"id": "delta"}]`), "filters"},
		{"int64", "v2/zstd_uint16.zarr", "", replace(".zarray", `"<u2"`, `"<i8"`), `dtype "<i8"`},
		{"chunks", "v2/zstd_uint16.zarr", "", replace(".zarray", "\"chunks\": [\n        2,", "\"chunks\": [\n        0,"), "must be positive"},
		{"v3 codec", "v3/zstd.zarr", "", replace("zarr.json", `"zstd"`, `"bz2"`), `"bz2" is not supported`},
		{"truncated zstd chunk", "v2/zstd_uint16.zarr", "", truncate("0.0.0"), "chunk 0.0.0"},
		{"truncated blosc chunk", "v2/blosc_lz4_shuffle.zarr", "", truncate("1.0.2"), "chunk 1.0.2"},
		{"damaged gzip chunk", "v2/gzip.zarr", "", flip("0.1.0", 12), "chunk 0.1.0"},
		{"crc32c", "v3/zstd_crc32c.zarr", "", flip("c/0/0/0", -6), "checksum"},
		{"shard index crc", "v3/shard_zstd.zarr", "", flip("c/0/0/0", -10), "index's crc32c"},
		{"truncated shard", "v3/shard_zstd.zarr", "", truncate("c/1/0/0"), "shard c/1/0/0"},
		{"channel out of range", "v2/ome.zarr", "/c=3", nil, "channel 3 is out of range: the image has 3"},
		{"bad selector", "v2/ome.zarr", "/z=1", nil, "selectors are c=N"},
		{"missing level", "v2/ome.zarr", "/7", nil, "not a Zarr store"},
		{"c on a plain array", "v2/zstd_uint16.zarr", "/c=1", nil, "no channel or time axis"},
		{"leaving the store", "v2/ome.zarr", "/../x", nil, "leaves the store"},
		{"group without image", "v2/ome.zarr", "", replace(".zattrs", `"multiscales"`, `"other"`), "name an array inside it (testdata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyStore(t, filepath.Join("testdata", tc.store))
			if tc.damage != nil {
				tc.damage(dir)
			}
			spec := dir
			if tc.spec != "" {
				spec += ":" + tc.spec
			}
			v, err := volume.Open(spec)
			if err == nil {
				_, err = v.ReadAll()
				v.Close()
			}
			if err == nil {
				t.Fatal("no error")
			}
			if want := strings.Replace(tc.want, "(testdata", "("+dir, 1); !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), want) {
				t.Errorf("error %q, want one naming %s and saying %q", err, dir, want)
			}
		})
	}
}

// TestWriteRoundTrip: volume.Create writes an OME-Zarr that this reader
// and the volume's own description agree on, under a temporary name
// until Commit.
func TestWriteRoundTrip(t *testing.T) {
	for _, dt := range volume.DTypes {
		in := volume.Info{Shape: [3]int{3, 5, 4}, DType: dt, VoxelSize: [3]float64{2, 0.5, 0.5}}
		data := make([]byte, in.Bytes())
		for i := range data {
			data[i] = byte(i*31 + 7)
		}
		path := filepath.Join(t.TempDir(), "out.zarr")
		w, err := volume.Create(path, in)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteSlab(0, data[:in.PlaneBytes()]); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteSlab(1, data[in.PlaneBytes():]); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); err == nil {
			t.Fatal("the store is in place before Commit")
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		v, err := volume.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := v.ReadAll()
		if err != nil || !bytes.Equal(got, data) || v.Info != in {
			t.Errorf("%s: read back %v (%v), want %v", dt, v.Info, err, in)
		}
		if chunks, _ := filepath.Glob(filepath.Join(path, "0", "*", "0", "0")); len(chunks) != 3 {
			t.Errorf("%s: %d plane chunks, want 3", dt, len(chunks))
		}
		v.Close()
	}
}

// TestFolderFormats: a folder ending in .zarr is a Zarr store, any other
// folder (even one named like a file format) a folder of TIFF planes.
func TestFolderFormats(t *testing.T) {
	if f := volume.FormatFor("testdata/v2/zstd_uint16.zarr"); f == nil || f.Name != "zarr" {
		t.Errorf("a .zarr folder: format %v", f)
	}
	in := volume.Info{Shape: [3]int{2, 3, 4}, DType: volume.Uint16}
	dir := filepath.Join(t.TempDir(), "planes.tif")
	w, err := volume.CreatePlaneDir(dir, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSlab(0, make([]byte, in.Bytes())); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	v, err := volume.Open(dir)
	if err != nil || v.Shape != in.Shape {
		t.Fatalf("a folder of planes named .tif: %v", err)
	}
	v.Close()
}

// TestInspectGroup: info on a plain group lists its arrays (from
// zarr-python's golden stores put in a group) instead of failing, and a
// path inside it opens the array.
func TestInspectGroup(t *testing.T) {
	root := filepath.Join(t.TempDir(), "g.zarr")
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(filepath.Join(root, ".zgroup"), []byte(`{"zarr_format": 2}`), 0o644)
	os.WriteFile(filepath.Join(root, "sub", ".zgroup"), []byte(`{"zarr_format": 2}`), 0o644)
	a := copyStore(t, "testdata/v2/zstd_int32.zarr")
	b := copyStore(t, "testdata/v2/planes_zstd.zarr")
	os.Rename(a, filepath.Join(root, "a"))
	os.Rename(b, filepath.Join(root, "sub", "b"))
	d, err := volume.Inspect(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range d.Tree {
		got = append(got, fmt.Sprintf("%s %s %v %s", n.Path, n.Kind, n.Shape, n.DType))
	}
	want := []string{"/ group [] ", "/a dataset [5 6 7] int32", "/sub group [] ", "/sub/b dataset [5 6 7] uint16"}
	if fmt.Sprint(got) != fmt.Sprint(want) || d.Volume {
		t.Errorf("tree %q (volume %v), want %q", got, d.Volume, want)
	}
	if _, err := volume.Open(root); err == nil || !strings.Contains(err.Error(), root+":/a") {
		t.Errorf("opening the group: %v, want the arrays named", err)
	}
	got2, want2 := openPair(t, root+":/sub/b", "testdata/v2/planes_zstd.npy")
	sameVoxels(t, "sub/b", got2, want2)
}
