package roundtrip

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// naive downsamples a whole level at once: the mean of each up-to-2x2x2
// block (rounded half to even for integer types) or its first voxel.
func naive(src []float64, in [3]int, mean, integer bool) ([]float64, [3]int) {
	var f, out [3]int
	for d := range 3 {
		f[d] = 1
		if in[d] > 1 {
			f[d] = 2
		}
		out[d] = (in[d] + f[d] - 1) / f[d]
	}
	dst := make([]float64, 0, out[0]*out[1]*out[2])
	for z := range out[0] {
		for y := range out[1] {
			for x := range out[2] {
				s, n := 0.0, 0
				for dz := 0; dz < f[0] && z*f[0]+dz < in[0]; dz++ {
					for dy := 0; dy < f[1] && y*f[1]+dy < in[1]; dy++ {
						for dx := 0; dx < f[2] && x*f[2]+dx < in[2]; dx++ {
							if mean || n == 0 {
								s += src[((z*f[0]+dz)*in[1]+y*f[1]+dy)*in[2]+x*f[2]+dx]
								n++
							}
						}
					}
				}
				v := s / float64(n)
				if integer {
					v = math.RoundToEven(v)
				}
				dst = append(dst, v)
			}
		}
	}
	return dst, out
}

func float64s(b []byte, dt volume.DType) []float64 {
	out := make([]float64, len(b)/dt.Size())
	for i := range out {
		o := b[i*dt.Size():]
		switch dt {
		case volume.Uint16:
			out[i] = float64(volume.Uint16s(o[:2])[0])
		case volume.Float32:
			out[i] = float64(volume.Float32s(o[:4])[0])
		}
	}
	return out
}

// TestZarrPyramid: the levels of an OME-Zarr pyramid, 0.4 and 0.5 with
// shards, written slab by slab, read back through voxlab's reader as the
// image's levels with their scales and equal the naive downsampling.
func TestZarrPyramid(t *testing.T) {
	for _, dt := range []volume.DType{volume.Uint16, volume.Float32} {
		info := volume.Info{Shape: [3]int{13, 18, 11}, DType: dt}
		vals := values(dt, int(info.Len()))
		for i := range vals {
			if dt == volume.Uint16 {
				vals[i] = float64((i * 7919) % 65536)
			} else {
				vals[i] = float64(i%1000) * 0.37
			}
		}
		in := filepath.Join(t.TempDir(), "in.npy")
		w, err := volume.Create(in, info)
		if err != nil {
			t.Fatal(err)
		}
		w.WriteSlab(0, encode(dt, vals))
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		for _, method := range []string{"mean", "nearest"} {
			for _, flags := range []map[string]any{
				{"chunks": "2,4,4"},
				{"ome-version": "0.5", "chunks": "2,3,4", "shards": "4,6,8", "compression": "blosc"},
			} {
				out := filepath.Join(t.TempDir(), "p.ome.zarr")
				flags["levels"], flags["downsample"] = 4, method
				if err := run(in, out, 4, flags); err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s %s %v", dt, method, flags)
				v, err := volume.Open(out)
				if err != nil {
					t.Fatal(err)
				}
				p, ok := volume.AsPyramid(v.Source())
				if !ok || p.Levels() != 4 {
					t.Fatalf("%s: the reader sees no pyramid of 4 levels", name)
				}
				want, shape := float64s(encode(dt, vals), dt), info.Shape
				for l := 1; l < 4; l++ {
					want, shape = naive(want, shape, method == "mean", dt.IsInteger())
					want = float64s(encode(dt, want), dt) // as stored
					li, scale := p.LevelInfo(l)
					f := float64(int(1) << l)
					if li.Shape != shape || scale != [3]float64{f, f, f} {
						t.Errorf("%s: level %d is %v at scale %v, want %v at %v", name, l, li.Shape, scale, shape, f)
					}
					_, b := readAll(t, fmt.Sprintf("%s:/%d", out, l))
					if !bytes.Equal(b, encode(dt, want)) {
						t.Errorf("%s: level %d differs from the naive downsampling", name, l)
					}
				}
				v.Close()
			}
		}
	}
}
