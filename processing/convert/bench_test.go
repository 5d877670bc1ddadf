package convert

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
	_ "github.com/voxlab/voxlab/processing/volume/zarr" // OME-Zarr's exporter
)

// BenchmarkConvertOMEZarr converts a 64 x 1024 x 2048 uint16 scan (a
// smooth pattern with noise, as scripts/bench-convert.sh makes) to a
// 4-level OME-Zarr with each codec; run with -cpuprofile to see where
// the time goes. Whole-scan figures: scripts/bench-convert.sh.
func BenchmarkConvertOMEZarr(b *testing.B) {
	info := volume.Info{Shape: [3]int{64, 1024, 2048}, DType: volume.Uint16}
	data := make([]byte, info.Bytes())
	rng := rand.New(rand.NewPCG(1, 1))
	ny, nx := info.Shape[1], info.Shape[2]
	for z := range info.Shape[0] {
		for y := range ny {
			c := math.Cos(float64(y) / 131)
			for x := range nx {
				v := 1000 + 800*math.Sin(float64(x)/97+float64(z)/50)*c
				binary.LittleEndian.PutUint16(data[2*((z*ny+y)*nx+x):], uint16(v+30*rng.NormFloat64()))
			}
		}
	}
	in := filepath.Join(b.TempDir(), "scan.npy")
	write(b, in, info, data)
	for _, codec := range []string{"zstd", "none"} {
		b.Run(codec, func(b *testing.B) {
			out := filepath.Join(b.TempDir(), "out.ome.zarr")
			b.SetBytes(info.Bytes())
			for b.Loop() {
				if _, err := run(context.Background(), in, out, 0, map[string]any{"levels": 4, "compression": codec}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
