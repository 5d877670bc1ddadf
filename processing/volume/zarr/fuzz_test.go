package zarr

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzMetadata: any .zarray, zarr.json or OME attributes either parse
// into an array whose grid is sound or give an error; never a panic.
func FuzzMetadata(f *testing.F) {
	for _, g := range []string{"testdata/v2/*.zarr/.zarray", "testdata/v3/*.zarr/zarr.json", "testdata/v*/ome.zarr/*/.zarray", "testdata/v*/ome.zarr/zarr.json", "testdata/v2/ome.zarr/.zattrs",
		"testdata/n5/*.n5/attributes.json", "testdata/n5/hand_*.n5/data/attributes.json", "testdata/n5/bdv.n5/setup0/timepoint0/s*/attributes.json"} {
		files, _ := filepath.Glob(g)
		for _, p := range files {
			b, _ := os.ReadFile(p)
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, parse := range []func(string, string, []byte) (*array, error){parseV2, parseV3} {
			a, err := parse("d", "d", b)
			if err != nil {
				if !strings.HasPrefix(err.Error(), "d") {
					t.Fatalf("error %q does not name the store", err)
				}
				continue
			}
			if err := a.checkGrid(); err != nil || len(a.fill) != a.dtype.Size() {
				t.Fatalf("parsed an unsound array: %v", err)
			}
			_ = a.chain.describe()
		}
		if ms, _, err := multiscales(b); err == nil && ms != nil && len(ms.Datasets) == 0 {
			t.Fatal("multiscales without datasets accepted")
		}
		var attrs n5Attrs
		if json.Unmarshal(b, &attrs) == nil {
			if a, err := parseN5("d", "d", attrs); err != nil {
				if !strings.HasPrefix(err.Error(), "d") {
					t.Fatalf("error %q does not name the dataset", err)
				}
			} else if a.checkGrid() != nil || a.chunkBytes() > maxChunkBytes || len(a.fill) != a.dtype.Size() {
				t.Fatal("parsed an unsound N5 dataset")
			}
		}
	})
}

// chunkCases are stores whose first stored object FuzzChunk replaces.
var chunkCases = []struct{ store, key string }{
	{"testdata/v2/zstd_uint16.zarr", "0.0.0"},
	{"testdata/v2/blosc_lz4_bitshuffle.zarr", "0.0.0"},
	{"testdata/v2/blosc_zstd_shuffle.zarr", "0.0.0"},
	{"testdata/v2/gzip.zarr", "0.0.0"},
	{"testdata/v2/zlib.zarr", "0.0.0"},
	{"testdata/v2/none.zarr", "0.0.0"},
	{"testdata/v3/zstd_crc32c.zarr", "c/0/0/0"},
	{"testdata/v3/shard_zstd.zarr", "c/0/0/0"},
	{"testdata/v3/shard_start_blosc.zarr", "c/0/0/0"},
	// One plane per chunk: decoded straight into the slab.
	{"testdata/v2/planes_zstd.zarr", "0.0.0"},
	{"testdata/v2/planes_blosc_lz4.zarr", "0.0.0"},
	{"testdata/v2/planes_gzip.zarr", "0.0.0"},
	{"testdata/v3/planes_zstd_crc32c.zarr", "c/0/0/0"},
	// Blosc frames followed by z5py's padding.
	{"testdata/padded_blosc.zarr", "0.0.0"},
	// N5 blocks: a header, then big-endian elements.
	{"testdata/n5/gzip.n5", "0/0/0"},
	{"testdata/n5/raw.n5", "0/0/0"},
	{"testdata/n5/blosc_lz4.n5", "0/0/0"},
	{"testdata/n5/bzip2.n5", "0/0/0"},
	{"testdata/n5/xz.n5", "0/0/0"},
	{"testdata/n5/zstd.n5", "0/0/0"},
	{"testdata/n5/planes_gzip.n5", "0/0/0"},
}

// FuzzChunk: any bytes stored as a chunk (or a shard) either decode, or
// the read fails with an error naming the store; never a panic or a
// read of the wrong size. Each input writes a store, so runs are slow
// (about 1,000 inputs/s here) and minimizing a new input takes the
// default 60 s of the run: run it with
//
//	go test -run XXX -fuzz FuzzChunk -fuzztime 60s -fuzzminimizetime 5x ./processing/volume/zarr/
func FuzzChunk(f *testing.F) {
	for i, c := range chunkCases {
		b, err := os.ReadFile(filepath.Join(c.store, filepath.FromSlash(c.key)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), b)
		if len(b) > 8 {
			f.Add(uint8(i), b[:len(b)/2])
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		c := chunkCases[int(which)%len(chunkCases)]
		meta, open := ".zarray", Open
		if strings.Contains(c.store, "/v3/") {
			meta = "zarr.json"
		}
		if strings.HasSuffix(c.store, ".n5") {
			meta, open = "attributes.json", OpenN5
		}
		m, err := os.ReadFile(filepath.Join(c.store, meta))
		if err != nil {
			t.Fatal(err)
		}
		st := filepath.Join(dir, filepath.Base(c.store))
		os.RemoveAll(st)
		p := filepath.Join(st, filepath.FromSlash(c.key))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(filepath.Join(st, meta), m, 0o644)
		os.WriteFile(p, b, 0o644)
		v, err := open(st, "")
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, v.Bytes())
		if err := v.ReadSlab(0, v.Shape[0], buf); err != nil && !strings.Contains(err.Error(), st) {
			t.Fatalf("error %q does not name the store", err)
		}
	})
}
