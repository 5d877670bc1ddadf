package zarr

import (
	"bytes"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// writeImage writes a two-level image of info with o on workers
// encoding workers, slab by slab, and returns the store's path.
func writeImage(t *testing.T, dir string, workers int, info volume.Info, o volume.ExportOptions, levels [][]byte) string {
	t.Helper()
	path := filepath.Join(dir, "img.zarr")
	lw, err := createImage(path, "", info, o)
	if err != nil {
		t.Fatal(err)
	}
	w := lw.(*imageWriter)
	w.workers = workers
	for l, data := range levels {
		li := o.Levels[l]
		pb := int(li.PlaneBytes())
		a := w.Align(l)
		for z0 := 0; z0 < li.Shape[0]; z0 += a {
			z1 := min(z0+a, li.Shape[0])
			if err := w.WriteLevel(l, z0, data[z0*pb:z1*pb]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return path
}

// storeFiles reads every file of a store, by its path in the store.
func storeFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWorkersWriteSameStore: a store encoded by several workers, each
// with its own encoders and buffers reused across chunks, is byte for
// byte the store one worker writes, for every codec, with and without
// shards, edge chunks included.
func TestWorkersWriteSameStore(t *testing.T) {
	l0 := volume.Info{Shape: [3]int{37, 70, 90}, DType: volume.Uint16}
	l1 := volume.Info{Shape: [3]int{19, 35, 45}, DType: volume.Uint16}
	rng := rand.New(rand.NewPCG(1, 2))
	var levels [][]byte
	for _, li := range []volume.Info{l0, l1} {
		b := make([]byte, li.Bytes())
		for i := 0; i < len(b); i += 2 {
			// Smooth with noise, so that codecs find matches of every length.
			b[i], b[i+1] = byte(i/7%251)^byte(rng.IntN(4)), byte(i/4096)
		}
		levels = append(levels, b)
	}
	cases := []struct {
		name string
		o    volume.ExportOptions
	}{
		{"zstd", volume.ExportOptions{Chunks: [3]int{8, 32, 32}, Compression: "zstd"}},
		{"gzip", volume.ExportOptions{Chunks: [3]int{8, 32, 32}, Compression: "gzip"}},
		{"blosc", volume.ExportOptions{Chunks: [3]int{8, 32, 32}, Compression: "blosc"}},
		{"none", volume.ExportOptions{Chunks: [3]int{8, 32, 32}, Compression: "none"}},
		{"zstd-shards", volume.ExportOptions{Chunks: [3]int{4, 16, 16}, Shards: [3]int{8, 32, 32}, Compression: "zstd", OMEVersion: "0.5"}},
		{"gzip-shards", volume.ExportOptions{Chunks: [3]int{4, 16, 16}, Shards: [3]int{8, 32, 32}, Compression: "gzip", OMEVersion: "0.5"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.o.Levels = []volume.Info{l0, l1}
			c.o.Scales = [][3]float64{{1, 1, 1}, {2, 2, 2}}
			one := storeFiles(t, writeImage(t, t.TempDir(), 1, l0, c.o, levels))
			many := storeFiles(t, writeImage(t, t.TempDir(), 5, l0, c.o, levels))
			chunks := 0
			for name, want := range one {
				got, ok := many[name]
				if !ok {
					t.Errorf("%s: missing with 5 workers", name)
					continue
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s: %d bytes with 5 workers differ from the %d bytes with one", name, len(got), len(want))
				}
				chunks++
			}
			if len(many) != len(one) {
				t.Errorf("5 workers wrote %d files, one worker %d", len(many), len(one))
			}
			// 5 x 3 x 3 chunks (or shards) at level 0, 3 x 2 x 2 at level 1.
			if want := 45 + 12; chunks < want {
				t.Errorf("%d files compared, want at least %d chunks", chunks, want)
			}
		})
	}
}
