package volume

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pattern fills a volume of info with distinct values that survive the
// dtype (including negative and fractional floats).
func pattern(info Info) []byte {
	n := int(info.Len())
	switch info.DType {
	case Uint8:
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7 + 3)
		}
		return b
	case Uint16:
		s := make([]uint16, n)
		for i := range s {
			s[i] = uint16(i*977 + 65000)
		}
		return Bytes(s)
	case Int8, Int16, Int32, Uint32:
		// Bytes of a multiplicative sequence: every bit pattern, signed
		// values both sides of zero.
		b := make([]byte, n*info.DType.Size())
		for i := range b {
			b[i] = byte(i*151 + 17)
		}
		return b
	case Float32:
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(i)*0.37 - 11
		}
		s[0] = float32(math.Inf(-1))
		return Bytes(s)
	case Float64:
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(i)*1e-3 - math.Pi
		}
		return Bytes(s)
	}
	return nil
}

// writeAll writes data through w in slabs of two planes and commits.
func writeAll(t *testing.T, w Writer, data []byte) {
	t.Helper()
	in := w.Info()
	pb := int(in.PlaneBytes())
	for z := 0; z < in.Shape[0]; z += 2 {
		z1 := min(z+2, in.Shape[0])
		if err := w.WriteSlab(z, data[z*pb:z1*pb]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

// onlyTarget checks that dir holds exactly the named entries: no
// temporary files were left behind.
func onlyTarget(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		ext string
		dts []DType
	}{
		{".npy", DTypes},
		{".mrc", []DType{Uint16, Float32}},
		{".mrcs", []DType{Float32}},
		{".tif", DTypes},
	} {
		for _, dt := range tc.dts {
			t.Run(tc.ext+"/"+dt.String(), func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "out"+tc.ext)
				info := Info{Shape: [3]int{5, 3, 7}, DType: dt, VoxelSize: [3]float64{2.5, 1.25, 0.5}}
				data := pattern(info)
				w, err := Create(path, info)
				if err != nil {
					t.Fatal(err)
				}
				writeAll(t, w, data)
				onlyTarget(t, dir, "out"+tc.ext)
				back, got := readBack(t, path)
				if back.Shape != info.Shape || back.DType != dt || !bytes.Equal(got, data) {
					t.Fatalf("read back %v %s, data equal %v", back.Shape, back.DType, bytes.Equal(got, data))
				}
				if tc.ext != ".npy" && !(tc.ext == ".tif" && dt == Float64) && back.VoxelSize != info.VoxelSize {
					t.Errorf("voxel size %v, want %v", back.VoxelSize, info.VoxelSize)
				}
			})
		}
	}
}

// TestNPYWriterMatchesNumPy compares the writer's bytes with np.save's.
func TestNPYWriterMatchesNumPy(t *testing.T) {
	want, err := os.ReadFile("testdata/npy/u2le.npy")
	if err != nil {
		t.Fatal(err)
	}
	info := Info{Shape: goldShape, DType: Uint16}
	data := make([]uint16, info.Len())
	f := goldInts(60000, 0)
	for i := range data {
		data[i] = uint16(f(i/20, i/5%4, i%5))
	}
	path := filepath.Join(t.TempDir(), "u2.npy")
	w, err := CreateNPY(path, info)
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w, Bytes(data))
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, want) {
		t.Errorf("writer output differs from numpy's:\n%q\n%q", got[:80], want[:80])
	}
}

func TestMRCStats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.mrc")
	info := Info{Shape: [3]int{1, 1, 4}, DType: Float32}
	w, err := CreateMRC(path, info)
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w, Bytes([]float32{1, 2, 3, 6}))
	b, _ := os.ReadFile(path)
	h, err := parseMRCHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	// mean 3, RMS deviation sqrt((4+1+0+9)/4).
	if h.dmin != 1 || h.dmax != 6 || h.dmean != 3 || math.Abs(float64(h.rms)-math.Sqrt(3.5)) > 1e-6 {
		t.Errorf("min %v max %v mean %v rms %v", h.dmin, h.dmax, h.dmean, h.rms)
	}
}

func TestStackRoundTrip(t *testing.T) {
	for _, ext := range []string{".npy", ".mrc", ".mrcs"} {
		t.Run(ext, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "maps"+ext)
			m := Info{Shape: [3]int{6, 6, 6}, DType: Float32, VoxelSize: [3]float64{2.146, 2.146, 2.146}}
			w, err := CreateStack(path, 4, m)
			if err != nil {
				t.Fatal(err)
			}
			data := pattern(w.Info())
			writeAll(t, w, data)
			s, err := OpenStack(path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.N != 4 || s.Map.Shape != m.Shape {
				t.Fatalf("got %d maps of %v", s.N, s.Map.Shape)
			}
			if ext != ".npy" && math.Abs(s.Map.VoxelSize[0]-2.146) > 1e-5 {
				t.Errorf("voxel size %v", s.Map.VoxelSize)
			}
			mb := int(s.MapBytes())
			buf := make([]byte, 2*mb)
			if err := s.ReadMaps(1, 3, buf); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf, data[mb:3*mb]) {
				t.Error("maps 1-3 differ")
			}
		})
	}
}

// TestWriterLeavesNothing checks that an aborted or incomplete write leaves
// no file behind.
func TestWriterLeavesNothing(t *testing.T) {
	for _, ext := range []string{".npy", ".mrc"} {
		dir := t.TempDir()
		info := Info{Shape: [3]int{4, 2, 2}, DType: Float32}
		w, err := Create(filepath.Join(dir, "x"+ext), info)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteSlab(0, make([]byte, info.PlaneBytes())); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteSlab(2, make([]byte, info.PlaneBytes())); err == nil {
			t.Error("out-of-order slab accepted")
		}
		if err := w.Commit(); err == nil || !strings.Contains(err.Error(), "only 1 of 4 planes") {
			t.Errorf("incomplete commit: %v", err)
		}
		onlyTarget(t, dir)
		w, _ = Create(filepath.Join(dir, "y"+ext), info)
		w.Abort()
		onlyTarget(t, dir)
	}
}

func TestTIFFRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		big  bool
		dir  bool
	}{{"bigtiff", true, false}, {"planes", false, true}} {
		for _, dt := range DTypes {
			t.Run(tc.name+"/"+dt.String(), func(t *testing.T) {
				dir := t.TempDir()
				info := Info{Shape: [3]int{12, 3, 7}, DType: dt, VoxelSize: [3]float64{5, 2, 2}}
				path := filepath.Join(dir, "out.tif")
				var w Writer
				var err error
				if tc.dir {
					path = filepath.Join(dir, "planes") + "/"
					w, err = Create(path, info)
				} else {
					w, err = createTIFF(path, info, tc.big)
				}
				if err != nil {
					t.Fatal(err)
				}
				data := pattern(info)
				writeAll(t, w, data)
				v, err := Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer v.Close()
				if tc.big && !v.Source().(*tiffSource).tf.bigTIFF {
					t.Error("not written as BigTIFF")
				}
				got, err := v.ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				if v.Shape != info.Shape || v.DType != dt || !bytes.Equal(got, data) {
					t.Fatalf("read back %v %s, data equal %v", v.Shape, v.DType, bytes.Equal(got, data))
				}
				if dt != Float64 && v.VoxelSize != info.VoxelSize {
					t.Errorf("voxel size %v, want %v", v.VoxelSize, info.VoxelSize)
				}
			})
		}
	}
}

func TestPlaneDirRefusesFullFolder(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "old.tif"), []byte("x"), 0o644)
	if _, err := CreatePlaneDir(dir, Info{Shape: [3]int{1, 1, 1}, DType: Uint8}); err == nil || !strings.Contains(err.Error(), "already holds TIFF") {
		t.Errorf("got %v", err)
	}
	if _, err := Create(filepath.Join(dir, "sub")+"/", Info{Shape: [3]int{1, 1, 1}, DType: Uint8}); err != nil {
		t.Errorf("new folder: %v", err)
	}
}
