package h5

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/volume"
	"gonum.org/v1/hdf5"
)

// testdata/gen.py's formulas, recomputed.
func grid(z, y, x int) int { return 7*z + 3*y + 5*x }

func ints(mod int) func(z, y, x int) float64 {
	return func(z, y, x int) float64 { return float64(grid(z, y, x) % mod) }
}

func floats(z, y, x int) float64 { return float64(grid(z, y, x)%97)*0.25 - 3.5 }

func values(dt volume.DType, b []byte) []float64 {
	var out []float64
	switch dt {
	case volume.Uint8:
		for _, v := range b {
			out = append(out, float64(v))
		}
	case volume.Uint16:
		for _, v := range volume.Uint16s(b) {
			out = append(out, float64(v))
		}
	case volume.Int16:
		for i := 0; i+1 < len(b); i += 2 {
			out = append(out, float64(int16(uint16(b[i])|uint16(b[i+1])<<8)))
		}
	case volume.Float32:
		for _, v := range volume.Float32s(b) {
			out = append(out, float64(v))
		}
	case volume.Float64:
		out = volume.Float64s(b)
	}
	return out
}

// check reads planes [z0, z1) of v and compares them with want at the
// frames given (frame(i) is the source frame of plane i).
func check(t *testing.T, v *volume.Volume, z0, z1 int, frame func(int) int, want func(z, y, x int) float64) {
	t.Helper()
	buf := make([]byte, int64(z1-z0)*v.PlaneBytes())
	if err := v.ReadSlab(z0, z1, buf); err != nil {
		t.Fatal(err)
	}
	got := values(v.DType, buf)
	i := 0
	for z := z0; z < z1; z++ {
		for y := 0; y < v.Shape[1]; y++ {
			for x := 0; x < v.Shape[2]; x++ {
				if w := want(frame(z), y, x); got[i] != w {
					t.Fatalf("%s: voxel (%d,%d,%d) = %v, want %v", v.Name, z, y, x, got[i], w)
				}
				i++
			}
		}
	}
}

func same(z int) int { return z }

func TestGoldenDatasets(t *testing.T) {
	shape := [3]int{3, 4, 5}
	for _, tc := range []struct {
		spec  string
		dt    volume.DType
		shape [3]int
		want  func(z, y, x int) float64
	}{
		{"types.h5:/u8", volume.Uint8, shape, ints(251)},
		{"types.h5:/u16", volume.Uint16, shape, ints(60000)},
		{"types.h5:/u16be", volume.Uint16, shape, ints(60000)},
		{"types.h5:/f32", volume.Float32, shape, floats},
		{"types.h5:/f32be", volume.Float32, shape, floats},
		{"types.h5:/f64", volume.Float64, shape, floats},
		{"types.h5:/f64be", volume.Float64, shape, floats},
		{"types.h5:/i16", volume.Int16, shape, ints(100)},
		{"types.h5:/plane", volume.Float32, [3]int{1, 4, 5}, floats},
		{"types.h5:/group/nested/chunked", volume.Uint16, shape, ints(60000)},
		{"single.h5", volume.Uint16, shape, ints(60000)},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			v, err := volume.Open(filepath.Join("testdata", tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			if v.Shape != tc.shape || v.DType != tc.dt {
				t.Fatalf("got %v %s", v.Shape, v.DType)
			}
			check(t, v, 0, v.Shape[0], same, tc.want)
			for z := 0; z < v.Shape[0]; z++ {
				check(t, v, z, z+1, same, tc.want)
			}
		})
	}
	v, err := volume.Open("testdata/types.h5:/u16")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.VoxelSize != [3]float64{2, 0.5, 0.25} {
		t.Errorf("voxel size from element_size_um: %v", v.VoxelSize)
	}
}

func TestBadHDF5(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want []string
	}{
		{"truncated.h5", []string{"damaged or truncated"}},
		{"notreally.h5", []string{"not an HDF5 file"}},
		{"types.h5:/nope", []string{"no dataset /nope", "/u16"}},
		{"types.h5:/group/nope/deeper", []string{"no dataset /group/nope/deeper"}},
		{"types.h5:/group", []string{"not a dataset"}},
		{"dtypes.h5:/int64", []string{"unsupported dtype int64"}},
		{"types.h5:/text", []string{"unsupported dtype string"}},
		{"types.h5:/vector", []string{"shape [7]"}},
		{"types.h5:/four", []string{"shape [2 2 2 2]"}},
		{"types.h5:/huge", []string{"overflows"}},
		{"many.h5", []string{"name one as testdata/many.h5:/path", "/a  (3, 4, 5) uint16, contiguous", "/b  (3, 4, 5) float32, contiguous"}},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			spec := filepath.Join("testdata", tc.spec)
			path, _ := volume.SplitSpec(spec)
			for _, op := range []func(string) error{
				func(s string) error { v, err := volume.Open(s); closeIf(v); return err },
				func(s string) error { _, err := volume.Inspect(s); return err },
			} {
				err := op(spec)
				if err == nil {
					if tc.spec == "many.h5" {
						continue // info describes a file with no default dataset
					}
					t.Fatalf("%s: no error", spec)
				}
				for _, w := range append(tc.want, path) {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
			}
		})
	}
}

func closeIf(v *volume.Volume) {
	if v != nil {
		v.Close()
	}
}

// keys is gen.py's KEYS: darks, flats, projections, flats.
var keys = []int{2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1}

func TestNeXus(t *testing.T) {
	for _, name := range []string{"scan.nxs", "scan_float_keys.nxs", "nxtomo.nxs", "nxtomo_soft.nxs"} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join("testdata", name)
			if !IsNeXus(p) {
				t.Fatal("IsNeXus false")
			}
			nx, err := OpenNeXus(p)
			if err != nil {
				t.Fatal(err)
			}
			defer nx.Close()
			for i, k := range keys {
				if nx.ImageKey[i] != k {
					t.Fatalf("image keys %v", nx.ImageKey)
				}
			}
			c := nx.Counts()
			if *c != (volume.FrameCounts{Projections: 6, Flats: 5, Darks: 2, Angles: true}) {
				t.Errorf("counts %+v", *c)
			}
			for i, a := range nx.Angles {
				if math.Abs(a-30*float64(i)) > 1e-12 {
					t.Fatalf("angles %v", nx.Angles)
				}
			}
			want := ints(60000)
			for _, s := range []struct {
				v      *volume.Volume
				frames []int
			}{{nx.Projections, []int{5, 6, 7, 8, 9, 10}}, {nx.Flats, []int{2, 3, 4, 11, 12}}, {nx.Darks, []int{0, 1}}} {
				if s.v.Shape != [3]int{len(s.frames), 4, 5} {
					t.Fatalf("%s: shape %v", s.v.Name, s.v.Shape)
				}
				frame := func(z int) int { return s.frames[z] }
				check(t, s.v, 0, len(s.frames), frame, want)
				check(t, s.v, 1, len(s.frames), frame, want)
			}
			check(t, nx.Data, 0, len(keys), same, want)
			// Opened without a dataset, the file gives the scan's
			// projections (nxtomo.nxs holds the frames twice, under hard
			// links), and says what it left out; named, every frame.
			v, err := Open(p, "")
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			check(t, v, 0, 6, func(z int) int { return 5 + z }, want)
			part, ok := volume.PartOf(v)
			if wp := (volume.Part{Kept: "6 projections", Left: "2 darks and 5 flats (image_key)", Whole: nx.Data.Name}); !ok || part != wp {
				t.Errorf("part %+v %v, want %+v", part, ok, wp)
			}
			whole, err := volume.Open(nx.Data.Name)
			if err != nil {
				t.Fatal(err)
			}
			defer whole.Close()
			check(t, whole, 0, len(keys), same, want)
			if _, ok := volume.PartOf(whole); ok {
				t.Error("the named dataset says it is a part")
			}
		})
	}
}

func TestBadNeXus(t *testing.T) {
	if IsNeXus("testdata/types.h5") || IsNeXus("testdata/notreally.h5") {
		t.Error("IsNeXus true for a non-scan")
	}
	for _, tc := range []struct{ file, want string }{
		{"noproj.nxs", "no projections"},
		{"badkeys.nxs", "5 keys for 3 frames"},
		{"types.h5", "not a NeXus tomography scan"},
	} {
		_, err := OpenNeXus(filepath.Join("testdata", tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.file) {
			t.Errorf("%s: %v", tc.file, err)
		}
	}
	// info still describes a scan without projections.
	d, err := volume.Inspect("testdata/noproj.nxs")
	if err != nil {
		t.Fatal(err)
	}
	if d.NeXus == nil || *d.NeXus != (volume.FrameCounts{Flats: 2, Darks: 1, Angles: false}) {
		t.Errorf("counts %+v", d.NeXus)
	}
}

func TestInspectSoftLink(t *testing.T) {
	d, err := volume.Inspect("testdata/nxtomo_soft.nxs")
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != "nexus" || d.Dataset != "/entry/data/data" || d.NeXus == nil || d.NeXus.Projections != 6 {
		t.Fatalf("%+v", d)
	}
	var b strings.Builder
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "data  (13, 4, 5) uint16 (soft link)") {
		t.Errorf("the detector's soft link to the frames is not described:\n%s", b.String())
	}
}

func TestInspectTree(t *testing.T) {
	d, err := volume.Inspect("testdata/scan.nxs")
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != "nexus" || d.Dataset != TomoData || d.NeXus == nil || d.NeXus.Projections != 6 {
		t.Fatalf("%+v", d)
	}
	var paths []string
	for _, n := range d.Tree {
		paths = append(paths, n.Path+":"+n.Kind)
	}
	got := strings.Join(paths, " ")
	for _, w := range []string{"/entry1:group", TomoData + ":dataset", TomoImageKey + ":dataset", TomoAngles + ":dataset"} {
		if !strings.Contains(got, w) {
			t.Errorf("tree %s lacks %s", got, w)
		}
	}
	var b strings.Builder
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "6 projections, 5 flats, 2 darks") || !strings.Contains(b.String(), "data  (13, 4, 5) uint16") {
		t.Errorf("text:\n%s", b.String())
	}
	ds, err := Datasets("testdata/types.h5")
	if err != nil {
		t.Fatal(err)
	}
	readable := 0
	for _, n := range ds {
		if Readable(n) {
			readable++
		}
	}
	if len(ds) != 14 || readable != 10 { // all but text, vector, four and huge
		t.Errorf("%d datasets, %d readable: %+v", len(ds), readable, ds)
	}
}

func pattern(info volume.Info) []byte {
	b := make([]byte, info.Bytes())
	switch info.DType {
	case volume.Uint8:
		for i := range b {
			b[i] = byte(i * 7)
		}
	case volume.Uint16:
		for i, s := 0, volume.Uint16s(b); i < len(s); i++ {
			s[i] = uint16(i*977 + 65000)
		}
	case volume.Float32:
		for i, s := 0, volume.Float32s(b); i < len(s); i++ {
			s[i] = float32(i)*0.37 - 11
		}
	case volume.Float64:
		for i, s := 0, volume.Float64s(b); i < len(s); i++ {
			s[i] = float64(i)*1e-3 - math.Pi
		}
	default: // the other integers: every bit pattern, signed both sides of 0
		for i := range b {
			b[i] = byte(i*151 + 17)
		}
	}
	return b
}

func dirNames(t *testing.T, dir string) string {
	t.Helper()
	es, _ := os.ReadDir(dir)
	var n []string
	for _, e := range es {
		n = append(n, e.Name())
	}
	return strings.Join(n, ",")
}

func TestVolumeRoundTrip(t *testing.T) {
	for _, dt := range volume.DTypes {
		for _, spec := range []string{"out.h5", "out.h5:/deep/er/vol"} {
			t.Run(dt.String()+"/"+spec, func(t *testing.T) {
				dir := t.TempDir()
				info := volume.Info{Shape: [3]int{5, 3, 4}, DType: dt, VoxelSize: [3]float64{5, 2, 2}}
				w, err := volume.Create(filepath.Join(dir, spec), info)
				if err != nil {
					t.Fatal(err)
				}
				data := pattern(info)
				pb := int(info.PlaneBytes())
				// Slabs out of order are fine for HDF5.
				if err := w.WriteSlab(3, data[3*pb:]); err != nil {
					t.Fatal(err)
				}
				if err := w.WriteSlab(0, data[:3*pb]); err != nil {
					t.Fatal(err)
				}
				if err := w.Commit(); err != nil {
					t.Fatal(err)
				}
				if got := dirNames(t, dir); got != "out.h5" {
					t.Errorf("folder holds %s", got)
				}
				back, got := testutil.ReadVolume(t, filepath.Join(dir, spec))
				if back.Shape != info.Shape || back.DType != dt || back.VoxelSize != info.VoxelSize || !bytes.Equal(got, data) {
					t.Errorf("read back %v %s %v, equal %v", back.Shape, back.DType, back.VoxelSize, bytes.Equal(got, data))
				}
			})
		}
	}
}

func TestFileAPI(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.h5")
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	info := volume.Info{Shape: [3]int{4, 3, 2}, DType: volume.Float32}
	data := pattern(info)
	w3, err := f.CreateDataset("/data", volume.Float32, info.Shape[:])
	if err != nil {
		t.Fatal(err)
	}
	w2, err := f.CreateDataset("dark", volume.Float32, []int{3, 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := w3.WriteSlab(0, data); err != nil {
		t.Fatal(err)
	}
	if err := w2.WriteSlab(0, data[:24]); err != nil {
		t.Fatal(err)
	}
	if err := w3.WriteSlab(3, data[:48]); err == nil {
		t.Error("slab past the end accepted")
	}
	attrs := map[string]any{"kernel": 3, "dif": 1000.0, "reduction": "median", "flat_field": true,
		"voxel": []float64{1, 2, 3}, "sizes": []int{4, 5}}
	if err := f.SetAttrs("/voxlab/params", attrs); err != nil {
		t.Fatal(err)
	}
	if err := f.SetAttrs("/data", map[string]any{"units": "counts"}); err != nil {
		t.Fatal(err)
	}
	if err := f.SetAttrs("/x", map[string]any{"bad": struct{}{}}); err == nil {
		t.Error("unsupported attribute type accepted")
	}
	if got := dirNames(t, dir); got == "out.h5" || got == "" {
		t.Errorf("before commit the folder holds %q", got)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := dirNames(t, dir); got != "out.h5" {
		t.Errorf("folder holds %s", got)
	}
	v, err := volume.Open(p + ":/dark")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := v.ReadAll()
	v.Close()
	if v.Shape != [3]int{1, 3, 2} || !bytes.Equal(got, data[:24]) {
		t.Errorf("dark: %v", v.Shape)
	}
	// Read the attributes back with the library directly.
	hf, err := hdf5.OpenFile(p, hdf5.F_ACC_RDONLY)
	if err != nil {
		t.Fatal(err)
	}
	defer hf.Close()
	g, err := hf.OpenGroup("/voxlab/params")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var kernel int64
	var dif float64
	var red string
	var ff uint8
	var voxel [3]float64
	for _, r := range []struct {
		name string
		ptr  any
		t    *hdf5.Datatype
	}{{"kernel", &kernel, hdf5.T_NATIVE_INT64}, {"dif", &dif, hdf5.T_NATIVE_DOUBLE}, {"reduction", &red, nil},
		{"flat_field", &ff, hdf5.T_NATIVE_UINT8}, {"voxel", &voxel, hdf5.T_NATIVE_DOUBLE}} {
		a, err := g.OpenAttribute(r.name)
		if err != nil {
			t.Fatalf("attribute %s: %v", r.name, err)
		}
		if err := a.Read(r.ptr, r.t); err != nil {
			t.Fatalf("attribute %s: %v", r.name, err)
		}
		a.Close()
	}
	if kernel != 3 || dif != 1000 || red != "median" || ff != 1 || voxel != [3]float64{1, 2, 3} {
		t.Errorf("attributes %v %v %q %v %v", kernel, dif, red, ff, voxel)
	}
}

func TestIncompleteAndAbort(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "a.h5"))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := f.CreateDataset("/data", volume.Uint16, []int{3, 2, 2})
	w.WriteSlab(0, make([]byte, 8))
	if err := f.Commit(); err == nil || !strings.Contains(err.Error(), "plane 1 of 3 was never written") {
		t.Errorf("incomplete commit: %v", err)
	}
	f, _ = Create(filepath.Join(dir, "b.h5"))
	f.CreateDataset("/data", volume.Uint16, []int{1, 2, 2})
	f.Abort()
	if got := dirNames(t, dir); got != "" {
		t.Errorf("folder holds %s", got)
	}
	if _, err := volume.Create(filepath.Join(dir, "c.h5"), volume.Info{Shape: [3]int{1, 1, 1}}); err == nil {
		t.Error("invalid dtype accepted")
	}
}

func TestWriteNeXusRoundTrip(t *testing.T) {
	info := volume.Info{Shape: [3]int{13, 6, 7}, DType: volume.Uint16}
	data := pattern(info)
	mem, _ := volume.NewMemory(info, data)
	angles := make([]float64, 13)
	for i := range angles {
		angles[i] = float64(i) * 1.5
	}
	p := filepath.Join(t.TempDir(), "scan.nxs")
	if err := WriteNeXus(p, mem, keys, angles); err != nil {
		t.Fatal(err)
	}
	nx, err := OpenNeXus(p)
	if err != nil {
		t.Fatal(err)
	}
	defer nx.Close()
	if len(nx.Angles) != 6 || nx.Angles[0] != 7.5 || nx.Flats.Shape[0] != 5 || nx.Darks.Shape[0] != 2 {
		t.Fatalf("angles %v flats %v darks %v", nx.Angles, nx.Flats.Shape, nx.Darks.Shape)
	}
	pb := int(info.PlaneBytes())
	got := make([]byte, 5*pb)
	if err := nx.Flats.ReadSlab(0, 5, got); err != nil {
		t.Fatal(err)
	}
	for i, f := range []int{2, 3, 4, 11, 12} {
		if !bytes.Equal(got[i*pb:(i+1)*pb], data[f*pb:(f+1)*pb]) {
			t.Fatalf("flat %d differs from frame %d", i, f)
		}
	}
}

// TestConcurrentReads reads from several goroutines at once (run with
// -race): every call into libhdf5 holds the package lock.
func TestConcurrentReads(t *testing.T) {
	nx, err := OpenNeXus("testdata/scan.nxs")
	if err != nil {
		t.Fatal(err)
	}
	defer nx.Close()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				check(t, nx.Projections, i%6, 6, func(z int) int { return z + 5 }, ints(60000))
			}
		}()
	}
	wg.Wait()
}

// TestLargeSparseDataset writes one plane of a 32 GiB contiguous dataset
// (the file is sparse) and reads it back: opening and reading a slab
// touch only headers and that slab.
func TestLargeSparseDataset(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.h5")
	const nz, ny, nx, z = 16384, 1024, 1024, 12345
	hf, err := hdf5.CreateFile(p, hdf5.F_ACC_TRUNC)
	if err != nil {
		t.Fatal(err)
	}
	space, _ := hdf5.CreateSimpleDataspace([]uint{nz, ny, nx}, nil)
	ds, err := hf.CreateDataset("data", hdf5.T_NATIVE_UINT16, space)
	if err != nil {
		t.Fatal(err)
	}
	plane := make([]uint16, ny*nx)
	for i := range plane {
		plane[i] = uint16(i ^ z)
	}
	fs := ds.Space()
	fs.SelectHyperslab([]uint{z, 0, 0}, nil, []uint{1, ny, nx}, nil)
	ms, _ := hdf5.CreateSimpleDataspace([]uint{ny * nx}, nil)
	if err := ds.WriteSubset(&plane, ms, fs); err != nil {
		t.Fatal(err)
	}
	fs.Close()
	ms.Close()
	space.Close()
	ds.Close()
	hf.Close()
	v, err := volume.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	buf := make([]byte, v.PlaneBytes())
	if err := v.ReadSlab(z, z+1, buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf, volume.Bytes(plane)) {
		t.Error("plane differs")
	}
}
