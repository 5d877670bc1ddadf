package volume

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badCase is a file that must be refused with an error naming the file
// and containing each of want.
type badCase struct {
	spec string
	want []string
}

func checkBad(t *testing.T, open func(string) error, cases []badCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(filepath.Base(tc.spec), func(t *testing.T) {
			spec := filepath.Join("testdata", tc.spec)
			err := open(spec)
			if err == nil {
				t.Fatalf("%s opened without error", spec)
			}
			path, _ := SplitSpec(spec)
			msg := err.Error()
			if !strings.Contains(msg, path) {
				t.Errorf("error does not name the file %s: %v", path, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
		})
	}
}

func openVolume(spec string) error {
	v, err := Open(spec)
	if err == nil {
		v.Close()
	}
	return err
}

func inspect(spec string) error {
	_, err := Inspect(spec)
	return err
}

func openStack(spec string) error {
	s, err := OpenStack(spec)
	if err == nil {
		s.Close()
	}
	return err
}

var badNPY = []badCase{
	{"npy/truncated.npy", []string{"truncated", "promises 120 bytes", "has 238"}},
	{"npy/truncated_header.npy", []string{"truncated"}},
	{"npy/wrongmagic.npy", []string{"not an NPY file"}},
	{"npy/overflow.npy", []string{"overflows"}},
	{"types/int64.npy", []string{"unsupported dtype", "<i8"}},
	{"npy/fortran.npy", []string{"Fortran order"}},
	{"npy/vector.npy", []string{"shape [7]"}},
	{"npy/stack4d.npy", []string{"stack of maps", "needs a 3D volume"}},
}

var badMRC = []badCase{
	{"mrc/truncated.mrc", []string{"truncated", "240 bytes"}},
	{"mrc/short.mrc", []string{"shorter than the 1024-byte header"}},
	{"mrc/wrongmagic.mrc", []string{"not an MRC file", "XXXX"}},
	{"mrc/overflow.mrc", []string{"overflows"}},
}

func TestBadNPY(t *testing.T) { checkBad(t, openVolume, badNPY) }
func TestBadMRC(t *testing.T) { checkBad(t, openVolume, badMRC) }

// TestBadInspect checks that info refuses what Open refuses (except the
// 1D and 4D arrays, which info describes).
func TestBadInspect(t *testing.T) {
	checkBad(t, inspect, append(append([]badCase(nil), badNPY[:6]...), badMRC...))
}

func TestBadStacks(t *testing.T) {
	checkBad(t, openStack, []badCase{
		{"npy/notcube.npy", []string{"63 voxels per map is not a cube"}},
		{"npy/vector.npy", []string{"not a stack of maps"}},
		{"npy/truncated.npy", []string{"truncated"}},
	})
}

func TestMixedMRCDir(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"a1.mrc", "a2.mrc"} {
		w, err := CreateMRC(filepath.Join(dir, name), Info{Shape: [3]int{4, 4, 4 + i}, DType: Float32})
		if err != nil {
			t.Fatal(err)
		}
		writeAll(t, w, make([]byte, 4*4*(4+i)*4))
	}
	_, err := OpenStack(dir)
	if err == nil || !strings.Contains(err.Error(), "a1.mrc") || !strings.Contains(err.Error(), "a2.mrc") {
		t.Errorf("mixed maps: %v", err)
	}
}

func TestUnknownExtension(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.xyz")
	os.WriteFile(path, []byte("hello"), 0o644)
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "unknown file type") {
		t.Errorf("got %v", err)
	}
	if _, err := Create(path, Info{Shape: [3]int{1, 1, 1}, DType: Uint8}); err == nil || !strings.Contains(err.Error(), "cannot write") {
		t.Errorf("got %v", err)
	}
}

func TestOverflowingInfo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.npy")
	_, err := Create(path, Info{Shape: [3]int{1 << 40, 1 << 40, 1 << 40}, DType: Float32})
	if err == nil || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("got %v", err)
	}
}

var badTIFF = []badCase{
	{"tiff/truncated.tif", []string{"truncated"}},
	{"tiff/truncated_data.tif", []string{"truncated", "strip 0"}},
	{"tiff/wrongmagic.tif", []string{"not a TIFF file"}},
	{"tiff/lzma.tif", []string{"compression 34925", "LZMA"}},
	{"types/palette.tif", []string{"photometric interpretation 3"}},
	{"types/rgb_u8.tif:/channel/3", []string{"channel 3", "3 samples per pixel"}},
	{"types/zcyx.ome.tif:/channel/3", []string{"channel 3", "OME-XML gives 3 channels"}},
	{"types/imagej_zcyx.tif:/channel/2", []string{"channel 2", "ImageJ description gives 2 channels"}},
	{"types/zcyx.ome.tif:/plane/1", []string{"FILE:/channel/N"}},
	{"types/uint16_le.tif:/channel/1", []string{"neither OME-TIFF nor an ImageJ hyperstack"}},
	{"tiff/mixed_pages.tif", []string{"page 1 is 5 x 5 uint16", "page 0 is 5 x 4 uint16"}},
	{"tiff/mixed_sizes", []string{"a1.tif is 5 x 4 uint16", "a2.tif is 6 x 4 uint16"}},
	{"tiff/mixed_dtypes", []string{"a1.tif is 5 x 4 uint16", "a2.tif is 5 x 4 float32"}},
}

func TestBadTIFF(t *testing.T)        { checkBad(t, openVolume, badTIFF) }
func TestBadTIFFInspect(t *testing.T) { checkBad(t, inspect, badTIFF) }

func TestEmptyPlaneDir(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "no .tif") {
		t.Errorf("empty folder: %v", err)
	}
}

// TestNoDatasets: the formats that hold one volume refuse a dataset path
// in Open, Inspect and Create, naming the file and saying why.
func TestNoDatasets(t *testing.T) {
	dir := t.TempDir()
	info := Info{Shape: [3]int{2, 3, 4}, DType: Uint16}
	for _, tc := range []struct{ name, why string }{
		{"a.npy", "NPY files hold one array"},
		{"a.mrc", "MRC files hold one volume"},
		{"a.tif", "TIFF files have no datasets"},
		{"planes/", "a folder of TIFF planes has no datasets"},
	} {
		path := dir + "/" + tc.name // Join would drop the folder's "/"
		w, err := Create(path, info)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteSlab(0, make([]byte, info.Len()*2)); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		path = strings.TrimSuffix(path, "/")
		for what, err := range map[string]error{
			"open":    openVolume(path + ":/x"),
			"inspect": inspect(path + ":/x"),
			"create": func() error {
				_, err := Create(dir+"/new-"+tc.name+":/x", info)
				return err
			}(),
		} {
			want := tc.why
			if what == "inspect" {
				want = "the file has no datasets"
			}
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `drop "/x"`) || !strings.Contains(err.Error(), filepath.Base(strings.TrimSuffix(tc.name, "/"))) {
				t.Errorf("%s %s:/x: %v, want %q", what, tc.name, err, want)
			}
		}
	}
}
