package h5

import (
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// BenchmarkReadSlab measures hyperslab reads of 8 planes of 512x512
// uint16 from a file in the page cache.
func BenchmarkReadSlab(b *testing.B) {
	info := volume.Info{Shape: [3]int{64, 512, 512}, DType: volume.Uint16}
	p := filepath.Join(b.TempDir(), "v.h5")
	w, err := volume.Create(p, info)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.WriteSlab(0, pattern(info)); err != nil {
		b.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		b.Fatal(err)
	}
	v, err := volume.Open(p)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	buf := make([]byte, 8*info.PlaneBytes())
	b.SetBytes(info.Bytes())
	b.ResetTimer()
	for range b.N {
		for z := 0; z < 64; z += 8 {
			if err := v.ReadSlab(z, z+8, buf); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkBitshuffleFrame decodes one Eiger-sized frame (2162 x 2068
// uint16) in bitshuffle's default blocks of 4096 elements. The LZ4
// blocks are literal-only (the tests' encoder), so the figure is the
// framing and bit transpose, with liblz4 copying rather than expanding.
func BenchmarkBitshuffleFrame(b *testing.B) {
	data := pseudo(2162 * 2068 * 2)
	chunk := encodeBitshuffle(data, 2, 4096, true)
	dst := make([]byte, len(data))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := decodeBitshuffle(dst, chunk, 2, 0, 2); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSmallChunks measures what the chunk-index lookup before each
// read costs on a dataset of small chunks: 8 planes of 512x512 uint16 in
// gzip chunks of 1x64x64 (512 chunks a read). "read" is the whole read,
// "scan" the lookup alone; their ratio is the lookup's share.
func BenchmarkSmallChunks(b *testing.B) {
	const planes, side, c = 8, 512, 64
	var chunks []rawChunk
	tile := zlibBytes(b, pseudo(c*c*2))
	for z := 0; z < planes; z++ {
		for y := 0; y < side; y += c {
			for x := 0; x < side; x += c {
				chunks = append(chunks, rawChunk{off: []int{z, y, x}, data: tile})
			}
		}
	}
	p := filepath.Join(b.TempDir(), "small.h5")
	err := craftFile(p, rawSet{name: "data", dtype: volume.Uint16, shape: []int{planes, side, side},
		chunk: []int{1, c, c}, filters: []Filter{gzipF}, chunks: chunks})
	if err != nil {
		b.Fatal(err)
	}
	v, err := Open(p, "data")
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	d := v.Source().(*dataset)
	buf := make([]byte, planes*v.PlaneBytes())
	b.Run("read", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for i := 0; i < b.N; i++ {
			if err := v.ReadSlab(0, planes, buf); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for i := 0; i < b.N; i++ {
			lib.Lock()
			_, _, err := d.st.scan(d.ds, []int{0, 0, 0}, []int{planes, side, side})
			lib.Unlock()
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
