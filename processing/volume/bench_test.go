package volume

import (
	"os"
	"path/filepath"
	"testing"
)

// benchRead writes a 64-plane volume of 512x512 uint16 in the format of
// ext and measures reading it in slabs of 8 planes (from the page cache).
// With bigEndian the NPY header is patched to declare the same bytes big
// endian, so the reader swaps every value.
func benchRead(b *testing.B, ext string, bigEndian bool) {
	info := Info{Shape: [3]int{64, 512, 512}, DType: Uint16}
	path := filepath.Join(b.TempDir(), "v") + ext
	w, err := Create(path, info)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.WriteSlab(0, pattern(info)); err != nil {
		b.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		b.Fatal(err)
	}
	if bigEndian {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			b.Fatal(err)
		}
		f.WriteAt([]byte(">u2"), int64(len("\x93NUMPY\x01\x00..{'descr': '")))
		f.Close()
	}
	v, err := Open(path)
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

func BenchmarkReadNPY(b *testing.B)          { benchRead(b, ".npy", false) }
func BenchmarkReadNPYBigEndian(b *testing.B) { benchRead(b, ".npy", true) }
func BenchmarkReadMRC(b *testing.B)          { benchRead(b, ".mrc", false) }
func BenchmarkReadTIFF(b *testing.B)         { benchRead(b, ".tif", false) }
func BenchmarkReadTIFFDir(b *testing.B)      { benchRead(b, "/", false) }
