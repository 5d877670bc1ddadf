package volume

import (
	"math"
	"path/filepath"
	"testing"
)

// The golden files in testdata/ were written by numpy, mrcfile, tifffile
// and h5py (testdata/gen.py). These formulas are gen.py's, recomputed
// here so the readers are checked against an independent writer.

var goldShape = [3]int{3, 4, 5}

func gridAt(z, y, x, k int) int { return z*7 + y*3 + x*5 + k }

// goldInts is gen.py's ints(mod): grid % mod.
func goldInts(mod, off int) func(z, y, x int) float64 {
	return func(z, y, x int) float64 { return float64(gridAt(z, y, x, 0)%mod + off) }
}

// goldFloats is gen.py's floats(k): (grid % 97) * 0.25 - 3.5.
func goldFloats(k int) func(z, y, x int) float64 {
	return func(z, y, x int) float64 { return float64(gridAt(z, y, x, k)%97)*0.25 - 3.5 }
}

// goldStack is gen.py's stack(n, box): map i is floats(11 i) of box³,
// the maps one after the other along z.
func goldStack(box int) func(z, y, x int) float64 {
	return func(z, y, x int) float64 { return goldFloats(11*(z/box))(z%box, y, x) }
}

// values converts a slab to float64 for comparison.
func values(dt DType, b []byte) []float64 {
	out := make([]float64, len(b)/dt.Size())
	ToFloat64(out, b, dt)
	return out
}

// checkVolume reads v whole and plane by plane and compares every voxel
// with want.
func checkVolume(t *testing.T, v *Volume, dt DType, shape [3]int, want func(z, y, x int) float64) {
	t.Helper()
	if v.DType != dt || v.Shape != shape {
		t.Fatalf("%s: got %v %s, want %v %s", v.Name, v.Shape, v.DType, shape, dt)
	}
	all, err := v.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	compare(t, v.Name, values(dt, all), shape, 0, want)
	// Slabs in the middle read the same values (offsets are right).
	for z := 0; z < shape[0]; z++ {
		buf := make([]byte, v.PlaneBytes())
		if err := v.ReadSlab(z, z+1, buf); err != nil {
			t.Fatal(err)
		}
		compare(t, v.Name, values(dt, buf), [3]int{1, shape[1], shape[2]}, z, want)
	}
}

func compare(t *testing.T, name string, got []float64, shape [3]int, z0 int, want func(z, y, x int) float64) {
	t.Helper()
	i := 0
	for z := 0; z < shape[0]; z++ {
		for y := 0; y < shape[1]; y++ {
			for x := 0; x < shape[2]; x++ {
				if w := want(z0+z, y, x); got[i] != w && !(math.IsNaN(w) && math.IsNaN(got[i])) {
					t.Fatalf("%s: voxel (%d,%d,%d) = %v, want %v", name, z0+z, y, x, got[i], w)
				}
				i++
			}
		}
	}
}

func TestGoldenNPY(t *testing.T) {
	for _, tc := range []struct {
		file  string
		dt    DType
		shape [3]int
		want  func(z, y, x int) float64
	}{
		{"u1.npy", Uint8, goldShape, goldInts(251, 0)},
		{"u2le.npy", Uint16, goldShape, goldInts(60000, 0)},
		{"u2be.npy", Uint16, goldShape, goldInts(60000, 0)},
		{"f4le.npy", Float32, goldShape, goldFloats(0)},
		{"f4be.npy", Float32, goldShape, goldFloats(0)},
		{"f8le.npy", Float64, goldShape, goldFloats(0)},
		{"f8be.npy", Float64, goldShape, goldFloats(0)},
		{"v2.npy", Uint16, goldShape, goldInts(60000, 0)},
		{"v3.npy", Uint16, goldShape, goldInts(60000, 0)},
		{"plane.npy", Float32, [3]int{1, 4, 5}, goldFloats(0)},
		{"int16.npy", Int16, goldShape, goldInts(100, 0)},
	} {
		t.Run(tc.file, func(t *testing.T) {
			v, err := Open(filepath.Join("testdata", "npy", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			checkVolume(t, v, tc.dt, tc.shape, tc.want)
		})
	}
}

func TestGoldenMRC(t *testing.T) {
	vs := [3]float64{2.5, 2.0, 1.5} // gen.py's voxel_size (x, y, z) = (1.5, 2.0, 2.5)
	for _, tc := range []struct {
		file  string
		dt    DType
		voxel [3]float64
		want  func(z, y, x int) float64
	}{
		{"mode0.mrc", Int8, vs, goldInts(200, -100)},
		{"mode1.mrc", Int16, vs, goldInts(2000, -1000)},
		{"mode2.mrc", Float32, vs, goldFloats(0)},
		{"mode6.mrc", Uint16, vs, goldInts(60000, 0)},
		{"bigendian.mrc", Float32, vs, goldFloats(0)},
		{"exthdr.mrc", Uint16, vs, goldInts(60000, 0)},
	} {
		t.Run(tc.file, func(t *testing.T) {
			v, err := Open(filepath.Join("testdata", "mrc", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			checkVolume(t, v, tc.dt, goldShape, tc.want)
			for i := range 3 {
				if math.Abs(v.VoxelSize[i]-tc.voxel[i]) > 1e-6 {
					t.Errorf("voxel size %v, want %v", v.VoxelSize, tc.voxel)
				}
			}
		})
	}
}

func TestGoldenStacks(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		voxel float64
	}{
		{"npy/stack4d.npy", 0},
		{"npy/flat.npy", 0},
		{"mrc/stack.mrc", 2.146},
		{"mrc/images.mrcs", 2.146},
		{"mrc/dir", 2.146},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			s, err := OpenStack(filepath.Join("testdata", tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.N != 3 || s.Box() != 4 || s.Map.DType != Float32 {
				t.Fatalf("got %d maps of %v %s, want 3 of 4³ float32", s.N, s.Map.Shape, s.Map.DType)
			}
			if math.Abs(s.Map.VoxelSize[0]-tc.voxel) > 1e-5 {
				t.Errorf("voxel size %v, want %g", s.Map.VoxelSize, tc.voxel)
			}
			want := goldStack(4)
			for _, r := range [][2]int{{0, 3}, {1, 2}, {2, 3}, {0, 1}} {
				buf := make([]byte, int64(r[1]-r[0])*s.MapBytes())
				if err := s.ReadMaps(r[0], r[1], buf); err != nil {
					t.Fatal(err)
				}
				compare(t, tc.spec, values(Float32, buf), [3]int{4 * (r[1] - r[0]), 4, 4}, 4*r[0], want)
			}
			m, err := s.Volume(2)
			if err != nil {
				t.Fatal(err)
			}
			checkVolume(t, m, Float32, [3]int{4, 4, 4}, func(z, y, x int) float64 { return want(8+z, y, x) })
		})
	}
}

func TestGoldenTIFF(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		dt    DType
		shape [3]int
		voxel [3]float64
		want  func(z, y, x int) float64
	}{
		{"u8.tif", Uint8, goldShape, [3]float64{}, goldInts(251, 0)},
		{"u16.tif", Uint16, goldShape, [3]float64{}, goldInts(60000, 0)},
		{"f32.tif", Float32, goldShape, [3]float64{}, goldFloats(0)},
		{"f64.tif", Float64, goldShape, [3]float64{}, goldFloats(0)},
		{"be_f32.tif", Float32, goldShape, [3]float64{}, goldFloats(0)},
		{"big_u16.tif", Uint16, goldShape, [3]float64{}, goldInts(60000, 0)},
		{"strips_u16.tif", Uint16, goldShape, [3]float64{}, goldInts(60000, 0)},
		{"scattered_u16.tif", Uint16, [3]int{1, 4, 5}, [3]float64{}, goldInts(60000, 0)},
		{"imagej_u16.tif", Uint16, goldShape, [3]float64{2, 0.25, 0.5}, goldInts(60000, 0)},
		{"deflate_u16.tif", Uint16, goldShape, [3]float64{}, goldInts(60000, 0)},
		{"deflate_f32.tif", Float32, goldShape, [3]float64{}, goldFloats(0)},
		{"deflate_pred_u8.tif", Uint8, goldShape, [3]float64{}, goldInts(251, 0)},
		{"deflate_pred_u16.tif", Uint16, goldShape, [3]float64{}, goldInts(60000, 0)},
		{"deflate_pred_be_u16.tif", Uint16, goldShape, [3]float64{}, goldInts(60000, 0)},
		{"lzw_u16.tif", Uint16, [3]int{2, 64, 80}, [3]float64{}, goldInts(60000, 0)},
		{"packbits_u16.tif", Uint16, [3]int{2, 64, 80}, [3]float64{}, goldInts(60000, 0)},
		{"int16.tif", Int16, goldShape, [3]float64{}, goldInts(100, 0)},
		{"tiled.tif", Uint16, [3]int{1, 32, 32}, [3]float64{}, func(z, y, x int) float64 { return 0 }},
		{"planes", Uint16, goldShape, [3]float64{}, goldInts(60000, 0)},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			v, err := Open(filepath.Join("testdata", "tiff", tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			checkVolume(t, v, tc.dt, tc.shape, tc.want)
			if v.VoxelSize != tc.voxel {
				t.Errorf("voxel size %v, want %v", v.VoxelSize, tc.voxel)
			}
		})
	}
}
