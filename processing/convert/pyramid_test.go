package convert

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// naiveLevel downsamples a whole level at once, voxel by voxel: the mean
// of the up-to-2x2x2 block (rounded half to even for integers) or its
// first voxel. It is the reference the streaming reducers are held to.
func naiveLevel(src []float64, in [3]int, mean bool, integer bool) ([]float64, [3]int) {
	var f, out [3]int
	for d := range 3 {
		f[d] = 1
		if in[d] > 1 {
			f[d] = 2
		}
		out[d] = (in[d] + f[d] - 1) / f[d]
	}
	dst := make([]float64, out[0]*out[1]*out[2])
	for z := range out[0] {
		for y := range out[1] {
			for x := range out[2] {
				i := (z*out[1]+y)*out[2] + x
				if !mean {
					dst[i] = src[((z*f[0])*in[1]+y*f[1])*in[2]+x*f[2]]
					continue
				}
				s, n := 0.0, 0
				for dz := 0; dz < f[0] && z*f[0]+dz < in[0]; dz++ {
					for dy := 0; dy < f[1] && y*f[1]+dy < in[1]; dy++ {
						for dx := 0; dx < f[2] && x*f[2]+dx < in[2]; dx++ {
							s += src[((z*f[0]+dz)*in[1]+y*f[1]+dy)*in[2]+x*f[2]+dx]
							n++
						}
					}
				}
				dst[i] = s / float64(n)
				if integer {
					dst[i] = math.RoundToEven(dst[i])
				}
			}
		}
	}
	return dst, out
}

func toFloat64(b []byte, dt volume.DType) []float64 {
	out := make([]float64, len(b)/dt.Size())
	castInto(volume.Bytes(out), volume.Float64, b, dt)
	return out
}

// TestPyramidAgainstNaive: every level of a pyramid built slab by slab,
// whatever the slab size, equals the naive downsampling of the level
// below, for both methods, odd and even shapes and every pixel type.
func TestPyramidAgainstNaive(t *testing.T) {
	for _, dt := range volume.DTypes {
		for _, shape := range [][3]int{{9, 7, 10}, {8, 8, 8}, {5, 1, 6}, {1, 5, 3}} {
			for _, method := range []string{"mean", "nearest"} {
				for _, batch := range []int{0, 3, 6} {
					name := fmt.Sprintf("%s/%v/%s/batch%d", dt, shape, method, batch)
					t.Run(name, func(t *testing.T) {
						info := volume.Info{Shape: shape, DType: dt}
						in := filepath.Join(t.TempDir(), "in.npy")
						write(t, in, info, ramp(info))
						out := filepath.Join(t.TempDir(), "out.levels")
						if _, err := run(context.Background(), in, out, batch, map[string]any{"levels": 4, "downsample": method}); err != nil {
							t.Fatal(err)
						}
						levels, infos := memLevels(out)
						if len(levels) != 4 {
							t.Fatalf("%d levels written, want 4", len(levels))
						}
						_, data := readAll(t, in)
						if !bytes.Equal(levels[0], data) {
							t.Fatal("level 0 differs from the input")
						}
						want, s := toFloat64(data, dt), shape
						for l := 1; l < 4; l++ {
							want, s = naiveLevel(want, s, method == "mean", dt.IsInteger())
							if infos[l].Shape != s {
								t.Fatalf("level %d: shape %v, want %v", l, infos[l].Shape, s)
							}
							// The reference, stored in the level's type.
							ref := make([]byte, len(want)*dt.Size())
							castInto(ref, dt, volume.Bytes(want), volume.Float64)
							want = toFloat64(ref, dt)
							if !bytes.Equal(levels[l], ref) {
								got := toFloat64(levels[l], dt)
								for i := range got {
									if got[i] != want[i] {
										t.Fatalf("level %d voxel %d: %v, want %v", l, i, got[i], want[i])
									}
								}
							}
						}
					})
				}
			}
		}
	}
}
