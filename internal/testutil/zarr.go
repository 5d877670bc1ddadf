package testutil

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/voxlab/voxlab/processing/volume"
)

// WriteZarr writes data (the volume info describes, little-endian) as a
// Zarr v2 array in zstd chunks of the given shape, as zarr-python stores
// them: C order, edge chunks padded with the fill value 0, one file per
// chunk named by its grid index.
func WriteZarr(t testing.TB, path string, info volume.Info, data []byte, chunks [3]int) {
	t.Helper()
	if int64(len(data)) != info.Bytes() {
		t.Fatalf("WriteZarr: %d bytes for %v %s", len(data), info.Shape, info.DType)
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	es := info.DType.Size()
	kind := "u"
	switch {
	case info.DType.IsFloat():
		kind = "f"
	case info.DType.IsSigned():
		kind = "i"
	}
	meta, _ := json.Marshal(map[string]any{"zarr_format": 2, "shape": info.Shape, "chunks": chunks,
		"dtype": fmt.Sprintf("<%s%d", kind, es), "compressor": map[string]any{"id": "zstd", "level": 1},
		"fill_value": 0, "order": "C", "filters": nil})
	if err := os.WriteFile(filepath.Join(path, ".zarray"), meta, 0o644); err != nil {
		t.Fatal(err)
	}
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	defer enc.Close()
	chunk := make([]byte, es*chunks[0]*chunks[1]*chunks[2])
	sh := info.Shape
	for cz := 0; cz < sh[0]; cz += chunks[0] {
		for cy := 0; cy < sh[1]; cy += chunks[1] {
			for cx := 0; cx < sh[2]; cx += chunks[2] {
				clear(chunk)
				n := (min(cx+chunks[2], sh[2]) - cx) * es
				for z := cz; z < min(cz+chunks[0], sh[0]); z++ {
					for y := cy; y < min(cy+chunks[1], sh[1]); y++ {
						src := ((z*sh[1]+y)*sh[2] + cx) * es
						dst := ((z-cz)*chunks[1] + y - cy) * chunks[2] * es
						copy(chunk[dst:dst+n], data[src:src+n])
					}
				}
				name := fmt.Sprintf("%d.%d.%d", cz/chunks[0], cy/chunks[1], cx/chunks[2])
				if err := os.WriteFile(filepath.Join(path, name), enc.EncodeAll(chunk, nil), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
