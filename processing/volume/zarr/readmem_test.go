package zarr

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// deepValue is the voxel (z, y, x) of writeDeep's stores.
func deepValue(z, y, x int) uint16 {
	h := uint32(z*73856093 ^ y*19349663 ^ x*83492791)
	return uint16(h ^ h>>16)
}

// writeDeep writes a Zarr v2 array of uint16 of the given shape and
// chunks (edge chunks padded with the fill value, as zarr-python stores
// them), compressed with codec (zstd, blosc, gzip or none), and returns
// its folder and the same voxels in memory.
func writeDeep(t testing.TB, dir, codec string, shape, chunks [3]int) (string, *volume.Volume) {
	t.Helper()
	path := filepath.Join(dir, codec+".zarr")
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	comp := map[string]any{"zstd": map[string]any{"id": "zstd", "level": 1}, "gzip": map[string]any{"id": "gzip", "level": 1},
		"blosc": map[string]any{"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}}[codec]
	meta, _ := json.Marshal(map[string]any{"zarr_format": 2, "shape": shape, "chunks": chunks, "dtype": "<u2",
		"compressor": comp, "fill_value": 0, "order": "C", "filters": nil})
	if err := os.WriteFile(filepath.Join(path, ".zarray"), meta, 0o644); err != nil {
		t.Fatal(err)
	}
	info := volume.Info{Shape: shape, DType: volume.Uint16}
	all := make([]byte, info.Bytes())
	for z := range shape[0] {
		for y := range shape[1] {
			for x := range shape[2] {
				binary.LittleEndian.PutUint16(all[2*((z*shape[1]+y)*shape[2]+x):], deepValue(z, y, x))
			}
		}
	}
	chunk := make([]byte, 2*chunks[0]*chunks[1]*chunks[2])
	for cz := 0; cz < shape[0]; cz += chunks[0] {
		for cy := 0; cy < shape[1]; cy += chunks[1] {
			for cx := 0; cx < shape[2]; cx += chunks[2] {
				clear(chunk)
				i := 0
				for z := cz; z < cz+chunks[0]; z++ {
					for y := cy; y < cy+chunks[1]; y++ {
						for x := cx; x < cx+chunks[2]; x++ {
							if z < shape[0] && y < shape[1] && x < shape[2] {
								binary.LittleEndian.PutUint16(chunk[i:], deepValue(z, y, x))
							}
							i += 2
						}
					}
				}
				stored := encodeChunk(t, codec, chunk)
				name := fmt.Sprintf("%d.%d.%d", cz/chunks[0], cy/chunks[1], cx/chunks[2])
				if err := os.WriteFile(filepath.Join(path, name), stored, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	mem, err := volume.NewMemory(info, all)
	if err != nil {
		t.Fatal(err)
	}
	return path, volume.New("reference", mem)
}

func encodeChunk(t testing.TB, codec string, chunk []byte) []byte {
	switch codec {
	case "zstd":
		return zstdEnc.EncodeAll(chunk, nil)
	case "blosc":
		b, err := bloscEncode(chunk, 2, "lz4", 5, 1)
		if err != nil {
			t.Fatal(err)
		}
		return b
	case "gzip":
		var buf bytes.Buffer
		w, _ := gzip.NewWriterLevel(&buf, 1)
		w.Write(chunk)
		w.Close()
		return buf.Bytes()
	}
	return append([]byte(nil), chunk...)
}

// readBlocks reads v as a filter's blocks do: [b0-halo, b1+halo) for b0
// in steps of block, clamped to the volume, each compared with want's.
func readBlocks(t *testing.T, v, want *volume.Volume, block, halo int) {
	t.Helper()
	n := v.Shape[0]
	for b0 := 0; b0 < n; b0 += block {
		z0, z1 := max(b0-halo, 0), min(b0+block+halo, n)
		got := make([]byte, int64(z1-z0)*v.PlaneBytes())
		ref := make([]byte, len(got))
		if err := v.ReadSlab(z0, z1, got); err != nil {
			t.Fatal(err)
		}
		if err := want.ReadSlab(z0, z1, ref); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, ref) {
			t.Fatalf("planes %d-%d (blocks of %d, halo %d) differ from the reference", z0, z1, block, halo)
		}
	}
}

// TestCachedReadsDecodeEachChunkOnce: with the cache ReadOptions sizes
// for blocks that share twice their halo, reading a store block after
// block decodes every chunk once, whatever the block and the halo, and
// reads the same voxels as without a cache; the tracked decode buffers
// and cache stay within what the plan counts. Without a cache each read
// decodes what it touches again.
func TestCachedReadsDecodeEachChunkOnce(t *testing.T) {
	shape, chunks := [3]int{37, 11, 9}, [3]int{8, 5, 4}
	const nchunks = 5 * 3 * 3
	for _, codec := range []string{"zstd", "blosc", "gzip", "none"} {
		path, want := writeDeep(t, t.TempDir(), codec, shape, chunks)
		v, err := volume.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		src := v.Source().(*Source)
		for _, halo := range []int{0, 1, 2, 5} {
			opts := volume.ReadOptions(src, 2*halo)
			for _, block := range []int{1, 2, 3, 5, 7, 8, 9, 16, 37} {
				for _, level := range []int{volume.ReadAllCached, volume.ReadOneCached, volume.ReadOne} {
					m := opts[level]
					m.Track = plan.NewTracker()
					src.SetReadMemory(m)
					readBlocks(t, v, want, block, halo)
					decoded := src.reads().decoded.Load()
					if level != volume.ReadOne && decoded != nchunks {
						t.Errorf("%s, blocks of %d, halo %d, level %d: %d chunks decoded, want each of the %d once",
							codec, block, halo, level, decoded, nchunks)
					}
					if level == volume.ReadOne && block < chunks[0] && decoded <= nchunks {
						t.Errorf("%s, blocks of %d without a cache: %d decodes for %d chunks, want more", codec, block, decoded, nchunks)
					}
					peak := m.Track.PeakBreakdown()
					if peak[volume.LabelCache] > m.Cache || m.Track.Peak() > m.Bytes() {
						t.Errorf("%s, blocks of %d, halo %d, level %d: tracked %v (peak %d), plan %+v (%d bytes)",
							codec, block, halo, level, peak, m.Track.Peak(), m, m.Bytes())
					}
				}
			}
		}
		v.Close()
	}
}

// TestCachedReadsGolden: the field's stores (every codec, F order and
// transposes, big-endian, shards, missing chunks) read with a cache of
// decoded chunks, block after block with halos, as without.
func TestCachedReadsGolden(t *testing.T) {
	for _, dir := range []string{"v2", "v3"} {
		stores, _ := filepath.Glob(filepath.Join("testdata", dir, "*.zarr"))
		for _, s := range stores {
			base := strings.TrimSuffix(s, ".zarr")
			if strings.HasPrefix(filepath.Base(base), "ome") {
				continue
			}
			got, want := openPair(t, s, base+".npy")
			src := got.Source().(*Source)
			for _, halo := range []int{0, 1, 2} {
				for _, block := range []int{1, 2, 3} {
					src.SetReadMemory(volume.ReadOptions(src, 2*halo)[volume.ReadAllCached])
					readBlocks(t, got, want, block, halo)
				}
			}
			got.Close()
		}
	}
}

// TestDecodersBound: the reads decode at most the decoders the plan
// sets at once, each holding at most the layout's PerDecoder.
func TestDecodersBound(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	path, want := writeDeep(t, t.TempDir(), "zstd", [3]int{12, 40, 40}, [3]int{6, 10, 10})
	v, err := volume.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	src := v.Source().(*Source)
	l := src.ChunkLayout()
	if l.MaxDecoders != 8 || l.Depth != 6 || l.Chunk != 6*10*10*2 || l.Layer != 16*l.Chunk {
		t.Fatalf("layout %+v", l)
	}
	for _, d := range []int{1, 2, 3} {
		tr := plan.NewTracker()
		src.SetReadMemory(volume.ReadMemory{Decoders: d, Track: tr})
		if got := src.ReadMemory(); got.Decoders != d || got.Cache != 0 || got.PerDecoder != l.PerDecoder {
			t.Errorf("read memory %+v after setting %d decoders", got, d)
		}
		for i := 0; i < 10; i++ {
			readBlocks(t, v, want, 3, 1)
		}
		if peak := tr.PeakBreakdown()[volume.LabelDecode]; peak > int64(d)*l.PerDecoder || peak < l.Chunk {
			t.Errorf("%d decoders: tracked decode buffers peaked at %d bytes, want at most %d x %d", d, peak, d, l.PerDecoder)
		}
	}
}

// TestStoredChunkTooLarge: a chunk file larger than any codec makes its
// chunk is refused as damaged before it is read whole into memory.
func TestStoredChunkTooLarge(t *testing.T) {
	path, _ := writeDeep(t, t.TempDir(), "zstd", [3]int{4, 8, 8}, [3]int{4, 8, 8})
	big := make([]byte, 2*4*8*8*2+1<<17)
	if err := os.WriteFile(filepath.Join(path, "0.0.0"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := volume.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	err = v.ReadSlab(0, 1, make([]byte, v.PlaneBytes()))
	if err == nil || !strings.Contains(err.Error(), "0.0.0") || !strings.Contains(err.Error(), "more than a chunk can take") {
		t.Errorf("read of an oversized chunk: %v", err)
	}
}

// TestShardLayout: a sharded array decodes inner chunks: its layout is
// theirs.
func TestShardLayout(t *testing.T) {
	v, err := volume.Open("testdata/v3/shard_zstd.zarr")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	l := v.Source().(*Source).ChunkLayout()
	// Inner chunks of 2 x 3 x 4 uint16 over a 5 x 6 x 7 array.
	if l.Depth != 2 || l.Chunk != 48 || l.Layer != 48*2*2 || l.PerDecoder < 2*48 {
		t.Errorf("layout %+v", l)
	}
}
