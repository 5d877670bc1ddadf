package demo

import (
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// BenchmarkTomoFrames measures computing large demo frames (512x640),
// which bounds how fast `voxlab demo --size large` writes its scan.
func BenchmarkTomoFrames(b *testing.B) {
	t := NewTomo(Large, 1)
	in := t.Info()
	src := t.Source(true)
	const n = 16
	buf := make([]byte, n*in.PlaneBytes())
	b.SetBytes(int64(len(buf)))
	for i := range b.N {
		z := 45 + (i*n)%(in.Shape[0]-45-n)
		if err := src.ReadSlab(z, z+n, buf); err != nil {
			b.Fatal(err)
		}
	}
	_ = volume.Uint16
}
