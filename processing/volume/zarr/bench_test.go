package zarr

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/voxlab/voxlab/processing/volume"
)

// The benchmark stack: 64 planes of 2048 x 2048 uint16, light-sheet-like
// (a background of ~100 with Poisson-ish noise and bright blobs), written
// once into /tmp (about 512 MiB as TIFF planes, kept between runs) as
// uncompressed TIFF planes, a zstd Zarr and a Blosc-LZ4 (byte shuffle)
// Zarr, one plane per chunk.
var benchInfo = volume.Info{Shape: [3]int{64, 2048, 2048}, DType: volume.Uint16}

var benchOnce sync.Once

func benchDir(b *testing.B) string {
	dir := filepath.Join(os.TempDir(), "voxlab-zarr-bench")
	benchOnce.Do(func() {
		if _, err := os.Stat(filepath.Join(dir, "complete")); err == nil {
			return
		}
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := writeBenchData(dir); err != nil {
			b.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "complete"), nil, 0o644)
	})
	return dir
}

func benchPlane(z int, dst []byte) {
	r := rand.New(rand.NewPCG(uint64(z), 7))
	ny, nx := benchInfo.Shape[1], benchInfo.Shape[2]
	for y := range ny {
		for x := range nx {
			v := 100 + r.IntN(16)
			// Blobs on a 64-pixel lattice, brighter towards their centres.
			dy, dx := y%64-32, x%64-32
			if d := dy*dy + dx*dx; d < 100 && (y/64+x/64+z/8)%3 == 0 {
				v += 2000 - 20*d + r.IntN(64)
			}
			binary.LittleEndian.PutUint16(dst[2*(y*nx+x):], uint16(v))
		}
	}
}

func writeBenchData(dir string) error {
	tw, err := volume.Create(filepath.Join(dir, "planes")+"/", benchInfo)
	if err != nil {
		return err
	}
	zw, err := volume.Create(filepath.Join(dir, "zstd.zarr"), benchInfo)
	if err != nil {
		return err
	}
	bdir := filepath.Join(dir, "blosc.zarr")
	meta := map[string]any{
		"zarr_format": 2, "shape": benchInfo.Shape, "chunks": []int{1, benchInfo.Shape[1], benchInfo.Shape[2]},
		"dtype": "<u2", "compressor": map[string]any{"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0},
		"fill_value": 0, "order": "C", "filters": nil,
	}
	mb, _ := json.Marshal(meta)
	os.MkdirAll(bdir, 0o755)
	if err := os.WriteFile(filepath.Join(bdir, ".zarray"), mb, 0o644); err != nil {
		return err
	}
	plane := make([]byte, benchInfo.PlaneBytes())
	for z := range benchInfo.Shape[0] {
		benchPlane(z, plane)
		if err := tw.WriteSlab(z, plane); err != nil {
			return err
		}
		if err := zw.WriteSlab(z, plane); err != nil {
			return err
		}
		c, err := bloscEncode(plane, 2, "lz4", 5, 1)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(bdir, fmt.Sprintf("%d.0.0", z)), c, 0o644); err != nil {
			return err
		}
	}
	if err := tw.Commit(); err != nil {
		return err
	}
	return zw.Commit()
}

// evict drops the files under dir from the page cache (they are synced
// first: only clean pages can be dropped), so that the next read comes
// from the disk, as a first look at a dataset does. Only these files
// are dropped, not the cache of the machine.
func evict(b *testing.B, dir string) {
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		f.Sync()
		return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	})
	if err != nil {
		b.Fatal(err)
	}
}

// benchStack reads the stack in slabs of 8 planes, checking one plane
// against the generator: from the page cache (warm), or from the disk
// (cold: the store's files evicted before each pass).
func benchStack(b *testing.B, spec string, cold bool) {
	dir := benchDir(b)
	v, err := volume.Open(filepath.Join(dir, spec))
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	buf := make([]byte, 8*benchInfo.PlaneBytes())
	want := make([]byte, benchInfo.PlaneBytes())
	benchPlane(61, want)
	if err := v.ReadSlab(56, 64, buf); err != nil {
		b.Fatal(err)
	}
	if string(buf[5*len(want):6*len(want)]) != string(want) {
		b.Fatalf("%s: plane 61 differs from the generator's", spec)
	}
	b.SetBytes(benchInfo.Bytes())
	b.ResetTimer()
	for range b.N {
		if cold {
			b.StopTimer()
			evict(b, filepath.Join(dir, spec))
			b.StartTimer()
		}
		for z := 0; z < 64; z += 8 {
			if err := v.ReadSlab(z, z+8, buf); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkReadStackTIFFPlanes(b *testing.B)   { benchStack(b, "planes", false) }
func BenchmarkReadStackZarrZstd(b *testing.B)     { benchStack(b, "zstd.zarr", false) }
func BenchmarkReadStackZarrBloscLZ4(b *testing.B) { benchStack(b, "blosc.zarr", false) }
func BenchmarkColdStackTIFFPlanes(b *testing.B)   { benchStack(b, "planes", true) }
func BenchmarkColdStackZarrZstd(b *testing.B)     { benchStack(b, "zstd.zarr", true) }
func BenchmarkColdStackZarrBloscLZ4(b *testing.B) { benchStack(b, "blosc.zarr", true) }
