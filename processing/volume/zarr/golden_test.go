package zarr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// sameVoxels fails t unless got and want hold the same voxels, NaNs
// equal to NaNs.
func sameVoxels(t *testing.T, name string, got, want *volume.Volume) {
	t.Helper()
	if got.Shape != want.Shape || got.DType != want.DType {
		t.Fatalf("%s: %v %s, want %v %s", name, got.Shape, got.DType, want.Shape, want.DType)
	}
	g, err := got.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	w, err := want.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(g, w) {
		return
	}
	es := got.DType.Size()
	bad := 0
	for i := 0; i < len(g); i += es {
		a, b := value(got.DType, g[i:]), value(got.DType, w[i:])
		if a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
			if bad < 5 {
				n := i / es
				t.Errorf("%s: voxel %d (z %d y %d x %d) = %v, want %v", name, n, n/got.PlaneLen(), n/got.Shape[2]%got.Shape[1], n%got.Shape[2], a, b)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d voxels differ", name, bad)
	}
}

// openPair opens the store and its expected NPY (a little-endian C-order
// array of 2 or 3 dimensions).
func openPair(t *testing.T, spec, npy string) (*volume.Volume, *volume.Volume) {
	t.Helper()
	got, err := volume.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { got.Close() })
	return got, readNPY(t, npy)
}

// readNPY reads an NPY file of any of voxlab's types. The volume
// package's own NPY reader is not used: it does not know every type.
func readNPY(t *testing.T, path string) *volume.Volume {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 10 || string(b[1:6]) != "NUMPY" {
		t.Fatalf("%s: not NPY", path)
	}
	var hl, off int
	if b[6] == 1 {
		hl, off = int(binary.LittleEndian.Uint16(b[8:])), 10
	} else {
		hl, off = int(binary.LittleEndian.Uint32(b[8:])), 12
	}
	h := string(b[off : off+hl])
	m := regexp.MustCompile(`'descr': '([<|])(\w+)', 'fortran_order': False, 'shape': \(([\d, ]*)\)`).FindStringSubmatch(h)
	if m == nil {
		t.Fatalf("%s: header %q", path, h)
	}
	dt, err := volume.ParseDType(m[2])
	if err != nil {
		t.Fatal(err)
	}
	in := volume.Info{DType: dt, Shape: [3]int{1, 1, 1}}
	var dims []int
	for _, f := range strings.Split(m[3], ",") {
		if f = strings.TrimSpace(f); f != "" {
			n, _ := strconv.Atoi(f)
			dims = append(dims, n)
		}
	}
	copy(in.Shape[3-len(dims):], dims)
	data := b[off+hl:]
	if int64(len(data)) != in.Bytes() {
		t.Fatalf("%s: %d bytes of data for %v", path, len(data), in.Shape)
	}
	return volume.New(path, memSource{in, data})
}

type memSource struct {
	in   volume.Info
	data []byte
}

func (m memSource) Info() volume.Info { return m.in }
func (m memSource) Close() error      { return nil }
func (m memSource) ReadSlab(z0, z1 int, dst []byte) error {
	copy(dst, m.data[int64(z0)*m.in.PlaneBytes():int64(z1)*m.in.PlaneBytes()])
	return nil
}

// TestGolden reads every store gen.py (zarr-python, numcodecs) and
// gen_v3.mjs (zarrita) wrote and compares it with the NPY of what those
// libraries read back.
func TestGolden(t *testing.T) {
	for _, dir := range []string{"v2", "v3"} {
		stores, _ := filepath.Glob(filepath.Join("testdata", dir, "*.zarr"))
		n := 0
		for _, s := range stores {
			base := strings.TrimSuffix(s, ".zarr")
			if strings.HasPrefix(filepath.Base(base), "ome") {
				continue
			}
			n++
			t.Run(dir+"/"+filepath.Base(base), func(t *testing.T) {
				got, want := openPair(t, s, base+".npy")
				sameVoxels(t, s, got, want)
			})
		}
		if n < 10 {
			t.Errorf("testdata/%s: %d stores, want the generator's (run testdata/gen*)", dir, n)
		}
	}
}

// TestGoldenOME reads every level, channel and time point of the
// OME-Zarr pyramids and checks the voxel sizes their scales give.
func TestGoldenOME(t *testing.T) {
	for _, tc := range []struct {
		store  string
		levels int
		ts, cs int
		voxel  func(level int) [3]float64
	}{
		{"testdata/v2/ome.zarr", 3, 2, 3, func(l int) [3]float64 {
			s := 0.5 * math.Pow(2, float64(l))
			return [3]float64{5, s, s}
		}},
		{"testdata/v3/ome.zarr", 3, 1, 2, func(l int) [3]float64 {
			s := 0.25 * math.Pow(2, float64(l))
			return [3]float64{1.5, s, s}
		}},
	} {
		for l := range tc.levels {
			for ti := range tc.ts {
				for c := range tc.cs {
					spec := fmt.Sprintf("%s:/%d,c=%d", tc.store, l, c)
					if tc.ts > 1 {
						spec += fmt.Sprintf(",t=%d", ti)
					}
					npy := fmt.Sprintf("%s_l%d_t%d_c%d.npy", strings.TrimSuffix(tc.store, ".zarr"), l, ti, c)
					got, want := openPair(t, spec, npy)
					sameVoxels(t, spec, got, want)
					if v := tc.voxel(l); got.VoxelSize != v {
						t.Errorf("%s: voxel size %v, want %v", spec, got.VoxelSize, v)
					}
				}
			}
		}
		// Level 0 by default, and the pyramid from it.
		v, err := volume.Open(tc.store)
		if err != nil {
			t.Fatal(err)
		}
		p, ok := volume.AsPyramid(v.Source())
		if !ok || p.Levels() != tc.levels {
			t.Fatalf("%s: not a pyramid of %d levels", tc.store, tc.levels)
		}
		in0, _ := p.LevelInfo(0)
		in2, f := p.LevelInfo(2)
		if in0.Shape != v.Shape || f != [3]float64{1, 4, 4} || in2.Shape[1] != (v.Shape[1]+3)/4 {
			t.Errorf("%s: level 0 %v, level 2 %v scale %v", tc.store, in0.Shape, in2.Shape, f)
		}
		v.Close()
	}
}
