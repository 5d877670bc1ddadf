package zarr

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

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

// The chunk-cache benchmark's store (issue 27): 256 frames of 2048 x
// 2048 uint16 (2 GiB) in zstd chunks of 64 x 512 x 512 (32 MiB; a layer
// of 16 chunks across the frame), written once into /tmp and kept.
var (
	deepInfo   = volume.Info{Shape: [3]int{256, 2048, 2048}, DType: volume.Uint16}
	deepChunks = [3]int{64, 512, 512}
	deepOnce   sync.Once
)

func deepDir(b *testing.B) string {
	dir := filepath.Join(os.TempDir(), "voxlab-zarr-deep-bench")
	deepOnce.Do(func() {
		if _, err := os.Stat(filepath.Join(dir, "complete")); err == nil {
			return
		}
		os.RemoveAll(dir)
		if err := writeDeepBench(filepath.Join(dir, "deep.zarr")); err != nil {
			b.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "complete"), nil, 0o644)
	})
	return filepath.Join(dir, "deep.zarr")
}

// writeDeepBench writes the store a layer of chunks at a time, the
// frames from benchPlane.
func writeDeepBench(path string) error {
	if err := os.MkdirAll(path, 0o755); err != nil {
		return err
	}
	meta, _ := json.Marshal(map[string]any{"zarr_format": 2, "shape": deepInfo.Shape, "chunks": deepChunks, "dtype": "<u2",
		"compressor": map[string]any{"id": "zstd", "level": 3}, "fill_value": 0, "order": "C", "filters": nil})
	if err := os.WriteFile(filepath.Join(path, ".zarray"), meta, 0o644); err != nil {
		return err
	}
	nz, ny, nx := deepInfo.Shape[0], deepInfo.Shape[1], deepInfo.Shape[2]
	cz, cy, cx := deepChunks[0], deepChunks[1], deepChunks[2]
	pb := int(deepInfo.PlaneBytes())
	layer := make([]byte, cz*pb)
	chunk := make([]byte, 2*cz*cy*cx)
	for z0 := 0; z0 < nz; z0 += cz {
		for z := range cz {
			benchPlane(z0+z, layer[z*pb:(z+1)*pb])
		}
		for y0 := 0; y0 < ny; y0 += cy {
			for x0 := 0; x0 < nx; x0 += cx {
				i := 0
				for z := range cz {
					for y := y0; y < y0+cy; y++ {
						off := z*pb + 2*(y*nx+x0)
						i += copy(chunk[i:], layer[off:off+2*cx])
					}
				}
				name := fmt.Sprintf("%d.%d.%d", z0/cz, y0/cy, x0/cx)
				if err := os.WriteFile(filepath.Join(path, name), zstdEnc.EncodeAll(chunk, nil), 0o644); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// readDeep reads the whole store in slabs [b0-halo, b1+halo) of block
// frames, with the read memory ReadOptions gives level for such reads,
// and returns the seconds it took, the CPU seconds the process spent
// meanwhile (which a loaded machine disturbs less) and the chunks it
// decoded.
func readDeep(b *testing.B, src *Source, buf []byte, block, halo, level int) (wall, cpu float64, decoded int64) {
	src.SetReadMemory(volume.ReadOptions(src, 2*halo)[level])
	defer src.ResetReadMemory()
	defer func() { decoded = src.reads().decoded.Load() }()
	pb := deepInfo.PlaneBytes()
	nz := deepInfo.Shape[0]
	start, cpu0 := time.Now(), cpuSeconds()
	for b0 := 0; b0 < nz; b0 += block {
		z0, z1 := max(b0-halo, 0), min(b0+block+halo, nz)
		if err := src.ReadSlab(z0, z1, buf[:int64(z1-z0)*pb]); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start).Seconds(), cpuSeconds() - cpu0, 0
}

// cpuSeconds returns the user and system CPU time of the process.
func cpuSeconds() float64 {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkChunkCache reads the 2 GiB store, in one run and in turn:
// slabs of 64 frames aligned to the chunks (each decoded once, straight
// into the slab), slabs of 16 frames without a cache (each chunk
// decoded four times), the same with the cache of decoded chunks, and
// dezinging's 32-frame blocks plus a frame of halo on each side with the
// cache. The ratios to the aligned read, in wall and in CPU time, are
// the figures; the target is misaligned slabs with the cache within 1.2x.
func BenchmarkChunkCache(b *testing.B) {
	v, err := volume.Open(deepDir(b))
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	src := v.Source().(*Source)
	// One plane against the generator, read through the cache.
	buf := make([]byte, 66*deepInfo.PlaneBytes())
	want := make([]byte, deepInfo.PlaneBytes())
	benchPlane(100, want)
	src.SetReadMemory(volume.ReadOptions(src, 0)[volume.ReadAllCached])
	if err := src.ReadSlab(100, 101, buf[:len(want)]); err != nil || !bytes.Equal(buf[:len(want)], want) {
		b.Fatalf("frame 100 differs from the generator's (%v)", err)
	}
	src.ResetReadMemory()
	// Touch every page of the slab buffer now, so that no case pays for
	// faulting it in.
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	cases := []struct {
		name               string
		block, halo, level int
	}{
		{"aligned", 64, 0, volume.ReadAll},
		{"16-uncached", 16, 0, volume.ReadAll},
		{"16-cached", 16, 0, volume.ReadAllCached},
		{"32+halo-cached", 32, 1, volume.ReadAllCached},
	}
	wall, cpu := make([]float64, len(cases)), make([]float64, len(cases))
	decoded := make([]int64, len(cases))
	b.ResetTimer()
	for range b.N {
		for i, c := range cases {
			w, u, d := readDeep(b, src, buf, c.block, c.halo, c.level)
			wall[i] += w
			cpu[i] += u
			decoded[i] += d
		}
	}
	chunks := float64(b.N * (deepInfo.Shape[0] / deepChunks[0]) * (deepInfo.Shape[1] / deepChunks[1]) * (deepInfo.Shape[2] / deepChunks[2]))
	for i, c := range cases {
		b.ReportMetric(wall[i]/float64(b.N), c.name+"-s")
		b.ReportMetric(float64(decoded[i])/chunks, c.name+"-decodes/chunk")
		if i > 0 {
			b.ReportMetric(wall[i]/wall[0], c.name+"/aligned")
			b.ReportMetric(cpu[i]/cpu[0], c.name+"/aligned-cpu")
		}
	}
}
