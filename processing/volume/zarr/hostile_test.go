package zarr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/processing/volume/fileio"
	"github.com/voxlab/voxlab/processing/volume/fileio/memtest"
)

// writeFile writes a file under dir, making its folders.
func writeFile(t *testing.T, dir, name string, b []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// mallocs returns the heap allocations f makes.
func mallocs(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.Mallocs - a.Mallocs
}

// TestSparseStoreCostsWhatIsReturned: a store of one-voxel chunks with
// almost nothing stored reads a plane of a million chunks in a number of
// allocations that does not grow with the chunks not stored (the store
// is listed once; the plane is filled, then the few stored chunks
// placed), with the right values; so does a sharded store of one-voxel
// inner chunks with no shard stored.
func TestSparseStoreCostsWhatIsReturned(t *testing.T) {
	const n = 1024
	v2 := filepath.Join(t.TempDir(), "sparse.zarr")
	writeFile(t, v2, ".zarray", []byte(fmt.Sprintf(`{"zarr_format": 2, "shape": [2, %d, %d], "chunks": [1, 1, 1], "dtype": "<u2",
		"compressor": null, "fill_value": 7, "order": "C", "filters": null}`, n, n)))
	stored := map[[2]int]uint16{{0, 0}: 100, {5, 9}: 200, {n - 1, n - 1}: 300}
	for yx, val := range stored {
		writeFile(t, v2, fmt.Sprintf("0.%d.%d", yx[0], yx[1]), binary.LittleEndian.AppendUint16(nil, val))
	}
	v3 := filepath.Join(t.TempDir(), "sparse-shards.zarr")
	writeFile(t, v3, "zarr.json", []byte(fmt.Sprintf(`{"zarr_format": 3, "node_type": "array", "shape": [2, %d, %d], "data_type": "uint16",
		"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1, 32, 32]}},
		"chunk_key_encoding": {"name": "default"}, "fill_value": 7,
		"codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [1, 1, 1],
			"codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
			"index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}]}`, n, n)))
	for _, tc := range []struct {
		store  string
		stored map[[2]int]uint16
	}{{v2, stored}, {v3, nil}} {
		t.Run(filepath.Base(tc.store), func(t *testing.T) {
			v, err := volume.Open(tc.store)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			buf := make([]byte, v.PlaneBytes())
			for round := range 2 { // the second read uses the listing kept
				var err error
				got := mallocs(func() { err = v.ReadSlab(0, 1, buf) })
				if err != nil {
					t.Fatal(err)
				}
				if got > 20000 {
					t.Errorf("read %d: %d allocations for a plane of %d chunks, nearly all not stored", round, got, n*n)
				}
				for i := 0; i < n*n; i++ {
					want, ok := tc.stored[[2]int{i / n, i % n}]
					if !ok {
						want = 7
					}
					if g := binary.LittleEndian.Uint16(buf[2*i:]); g != want {
						t.Fatalf("voxel (%d, %d) = %d, want %d", i/n, i%n, g, want)
					}
				}
			}
		})
	}
}

// TestHugeDeclaredChunkRefused: a 4 x 4 x 4 array declaring a chunk of
// almost 16 GiB is refused at open, saying so, before any read could
// allocate the chunk.
func TestHugeDeclaredChunkRefused(t *testing.T) {
	for _, meta := range []struct{ file, body string }{
		{".zarray", `{"zarr_format": 2, "shape": [4, 4, 4], "chunks": [2047, 1024, 1024], "dtype": "<f8", "compressor": {"id": "zstd"}, "fill_value": 0, "order": "C", "filters": null}`},
		{"zarr.json", `{"zarr_format": 3, "node_type": "array", "shape": [4, 4, 4], "data_type": "float64",
			"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2047, 1024, 1024]}},
			"chunk_key_encoding": {"name": "default"}, "fill_value": 0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd"}]}`},
	} {
		dir := filepath.Join(t.TempDir(), "huge.zarr")
		writeFile(t, dir, meta.file, []byte(meta.body))
		_, err := volume.Open(dir)
		if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "16376 MiB each, more than voxlab's limit of 2048 MiB") {
			t.Errorf("%s: %v", meta.file, err)
		}
	}
}

// TestStoreRecognisedByItsMetadata: a Zarr or N5 store whose folder does
// not end in .zarr or .n5 is recognised by its metadata files, by Open,
// info and format detection, not taken for a folder of TIFF planes.
func TestStoreRecognisedByItsMetadata(t *testing.T) {
	for _, tc := range []struct{ src, name, format, npy string }{
		{"testdata/v2/zstd_uint16.zarr", "store.zr", "zarr", "testdata/v2/zstd_uint16.npy"},
		{"testdata/v2/zstd_uint16.zarr", "store", "zarr", "testdata/v2/zstd_uint16.npy"},
		{"testdata/v3/zstd.zarr", "v3store", "zarr", "testdata/v3/zstd.npy"},
		{"testdata/v2/ome.zarr", "image", "zarr", "testdata/v2/ome_l0_t0_c0.npy"},
		{"testdata/n5/gzip.n5", "container", "n5", "testdata/n5/gzip.npy"},
		{"testdata/n5/hand_cropped_gzip.n5", "n5root", "n5", ""},
	} {
		dir := filepath.Join(t.TempDir(), tc.name)
		if err := os.Rename(copyStore(t, tc.src), dir); err != nil {
			t.Fatal(err)
		}
		if f := volume.FormatFor(dir); f == nil || f.Name != tc.format {
			t.Errorf("%s: format %v, want %s", tc.name, f, tc.format)
			continue
		}
		if tc.npy == "" {
			if _, err := volume.Inspect(dir); err != nil {
				t.Errorf("info %s: %v", tc.name, err)
			}
			continue
		}
		got, want := openPair(t, dir, tc.npy)
		sameVoxels(t, tc.name, got, want)
		if d, err := volume.Inspect(dir); err != nil || !d.Volume {
			t.Errorf("info %s: %v", tc.name, err)
		}
	}
}

// TestMetadataTooLarge: metadata files over the limit are refused
// naming the file, before they are parsed.
func TestMetadataTooLarge(t *testing.T) {
	for _, tc := range []struct{ src, file string }{
		{"testdata/v2/zstd_uint16.zarr", ".zarray"},
		{"testdata/v2/ome.zarr", ".zattrs"},
		{"testdata/v3/zstd.zarr", "zarr.json"},
		{"testdata/n5/gzip.n5", "attributes.json"},
	} {
		dir := copyStore(t, tc.src)
		p := filepath.Join(dir, tc.file)
		b, _ := os.ReadFile(p)
		b = append(b, make([]byte, fileio.MetadataLimit)...)
		for i := len(b) - fileio.MetadataLimit; i < len(b); i++ {
			b[i] = ' '
		}
		os.WriteFile(p, b, 0o644)
		_, err := volume.Open(dir)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "larger than voxlab's limit of 16 MiB") {
			t.Errorf("%s: %v", tc.file, err)
		}
	}
}

// TestHostileStoreBounded: /dev/zero linked as a chunk, a .zarray, a
// shard or an N5 block or attributes.json is refused naming it, and so
// is a chunk file larger than its codecs can make of a chunk (a 10 GB
// sparse file), in bounded memory. It runs in a child process under an
// address-space limit so that code reading such files whole fails
// there; the child's peak RSS must stay under 256 MiB.
func TestHostileStoreBounded(t *testing.T) {
	if memtest.InChild(t, 1<<30) {
		dir := copyStore(t, "testdata/v2/zstd_uint16.zarr")
		if err := os.Truncate(filepath.Join(dir, "0.0.0"), 10e9); err != nil {
			t.Fatal(err)
		}
		v, err := volume.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = v.ReadAll()
		v.Close()
		if err == nil || !strings.Contains(err.Error(), "chunk 0.0.0") || !strings.Contains(err.Error(), "10000000000 bytes, more than a chunk can take") {
			t.Errorf("a 10 GB chunk: %v", err)
		}
		for _, tc := range []struct{ src, file string }{
			{"testdata/v2/zstd_uint16.zarr", "0.0.0"},
			{"testdata/v2/zstd_uint16.zarr", ".zarray"},
			{"testdata/v2/ome.zarr", ".zattrs"},
			{"testdata/v3/shard_zstd.zarr", "c/0/0/0"},
			{"testdata/v3/zstd.zarr", "zarr.json"},
			{"testdata/n5/gzip.n5", "0/0/0"},
			{"testdata/n5/gzip.n5", "attributes.json"},
		} {
			dir := copyStore(t, tc.src)
			p := filepath.Join(dir, filepath.FromSlash(tc.file))
			os.Remove(p)
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
			v, err := volume.Open(dir)
			if err == nil {
				_, err = v.ReadAll()
				v.Close()
			}
			if err == nil || !errors.Is(err, fileio.ErrNotRegular) || !strings.Contains(err.Error(), p) {
				t.Errorf("/dev/zero as %s of %s: %v", tc.file, tc.src, err)
			}
		}
		return
	}
	r := memtest.Run(t)
	if r.Err != nil {
		t.Fatalf("child: %v\n%s", r.Err, r.Output)
	}
	if r.PeakRSS > memtest.Bound(256<<20) {
		t.Errorf("peak RSS %d MiB, want under %d", r.PeakRSS>>20, memtest.Bound(256<<20)>>20)
	}
	t.Logf("peak RSS %d MiB", r.PeakRSS>>20)
}

// TestFIFOInStore: a FIFO as a chunk or a metadata file is refused at
// once; neither info nor a read blocks on it (the deadline only catches
// that hang: opening a FIFO without a writer waits for ever).
func TestFIFOInStore(t *testing.T) {
	for _, tc := range []struct{ src, file string }{
		{"testdata/v2/zstd_uint16.zarr", "0.0.0"},
		{"testdata/v2/zstd_uint16.zarr", ".zarray"},
		{"testdata/v3/zstd.zarr", "zarr.json"},
		{"testdata/n5/gzip.n5", "0/0/0"},
	} {
		dir := copyStore(t, tc.src)
		p := filepath.Join(dir, filepath.FromSlash(tc.file))
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := volume.Inspect(dir)
			if err == nil {
				var v *volume.Volume
				if v, err = volume.Open(dir); err == nil {
					_, err = v.ReadAll()
					v.Close()
				}
			}
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(60 * time.Second):
			t.Errorf("a FIFO as %s hangs", tc.file)
			if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
			err = <-done
		}
		if err == nil || !errors.Is(err, fileio.ErrNotRegular) || !strings.Contains(err.Error(), p) {
			t.Errorf("a FIFO as %s: %v", tc.file, err)
		}
	}
}

// TestListingOnlyWhenItPays: a store of tiny chunks is listed once (and
// read right when its folder holds more entries than a listing takes:
// chunk by chunk then); a store of chunks of a useful size is never
// listed, however many a read touches.
func TestListingOnlyWhenItPays(t *testing.T) {
	tiny := filepath.Join(t.TempDir(), "tiny.zarr")
	writeFile(t, tiny, ".zarray", []byte(`{"zarr_format": 2, "shape": [1, 64, 64], "chunks": [1, 1, 1], "dtype": "<u2",
		"compressor": null, "fill_value": 7, "order": "C", "filters": null}`))
	for i := range 20 {
		writeFile(t, tiny, fmt.Sprintf("0.%d.%d", i, 2*i), binary.LittleEndian.AppendUint16(nil, uint16(1000+i)))
	}
	big := filepath.Join(t.TempDir(), "big.zarr")
	// 2048 chunks of 8 KiB: more than manyChunks, none tiny.
	writeFile(t, big, ".zarray", []byte(`{"zarr_format": 2, "shape": [1, 2048, 4096], "chunks": [1, 1, 4096], "dtype": "<u2",
		"compressor": null, "fill_value": 7, "order": "C", "filters": null}`))
	check := func(store string, limit int, wantListed bool) {
		t.Helper()
		saved := maxListed
		maxListed = limit
		defer func() { maxListed = saved }()
		v, err := volume.Open(store)
		if err != nil {
			t.Fatal(err)
		}
		defer v.Close()
		buf := make([]byte, v.PlaneBytes())
		if err := v.ReadSlab(0, 1, buf); err != nil {
			t.Fatal(err)
		}
		w := v.Shape[2]
		for i := 0; i < v.Shape[1]*w; i++ {
			want := uint16(7)
			if y, x := i/w, i%w; store == tiny && y < 20 && x == 2*y {
				want = uint16(1000 + y)
			}
			if g := binary.LittleEndian.Uint16(buf[2*i:]); g != want {
				t.Fatalf("%s (limit %d): voxel %d = %d, want %d", store, limit, i, g, want)
			}
		}
		a := v.Source().(*Source).arr
		if a.stored.listed != wantListed {
			t.Errorf("%s (limit %d): listed %v, want %v", store, limit, a.stored.listed, wantListed)
		}
	}
	check(tiny, 1<<22, true)
	check(tiny, 10, false) // 21 entries: more than a listing takes
	check(big, 1<<22, false)
}
