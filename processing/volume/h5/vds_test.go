package h5

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// readGolden reads an expect_*.npy file of testdata/vds whole.
func readGolden(t *testing.T, name string) (volume.Info, []byte) {
	t.Helper()
	v, err := volume.Open(filepath.Join("testdata", "vds", "expect_"+name+".npy"))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	b, err := v.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return v.Info, b
}

// TestVirtualDatasets reads h5py's virtual datasets over gzip, Blosc and
// LZ4 sources (blocks of planes, frames interleaved over two writers,
// one 2D image per plane, column blocks of sources with different
// pipelines, unmapped planes, sources in the file itself) and compares them bit for bit with what
// h5py read through libhdf5 (gen_vds.py), whole and box by box.
func TestVirtualDatasets(t *testing.T) {
	for _, name := range []string{"gzip", "blosc", "lz4", "mixed", "fill", "self"} {
		t.Run(name, func(t *testing.T) {
			info, want := readGolden(t, name)
			v, err := Open(filepath.Join("testdata", "vds", "vds_"+name+".h5"), "/data")
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			if v.Shape != info.Shape || v.DType != info.DType {
				t.Fatalf("opened %v %s, want %v %s", v.Shape, v.DType, info.Shape, info.DType)
			}
			got, err := v.ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("the virtual dataset reads differently from h5py's")
			}
			checkBoxes(t, v.Source())
			for z := 0; z < v.Shape[0]; z++ { // plane by plane, as the viewer reads
				b := volume.Box{Z0: z, Z1: z + 1, Y1: v.Shape[1], X1: v.Shape[2]}
				plane := make([]byte, b.Len()*int64(v.DType.Size()))
				if err := v.Source().ReadSlab(z, z+1, plane); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(plane, crop(want, info, b)) {
					t.Fatalf("plane %d reads differently from h5py's", z)
				}
			}
		})
	}
}

// TestVirtualDatasetDescribed: info names the layout and the sources'
// filters.
func TestVirtualDatasetDescribed(t *testing.T) {
	d, err := Inspect(filepath.Join("testdata", "vds", "vds_mixed.h5"), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := field(d, "layout"); got != "virtual (3 mappings)" {
		t.Errorf("layout %q", got)
	}
	if got := field(d, "codec"); got != "shuffle | gzip (level 4); lz4" {
		t.Errorf("codec %q", got)
	}
}

// TestVirtualScanThroughExternalLink opens a NeXus scan whose frames are
// an external link to a virtual dataset in another folder: its sources
// are found beside the virtual dataset's file, and the projections are
// the frames with image_key 0.
func TestVirtualScanThroughExternalLink(t *testing.T) {
	info, want := readGolden(t, "gzip")
	p := filepath.Join("testdata", "vds_scan.nxs")
	v, err := Open(p, TomoData)
	if err != nil {
		t.Fatal(err)
	}
	got, err := v.ReadAll()
	v.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("the scan's frames read differently from h5py's")
	}
	nx, err := OpenNeXus(p)
	if err != nil {
		t.Fatal(err)
	}
	defer nx.Close()
	proj, err := nx.Projections.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if b := (volume.Box{Z0: 2, Z1: 6, Y1: info.Shape[1], X1: info.Shape[2]}); !bytes.Equal(proj, crop(want, info, b)) {
		t.Error("the projections are not frames 2-5")
	}
}

// TestVirtualMissingSource: a source file that is missing is an error
// naming it (libhdf5 would read fill values).
func TestVirtualMissingSource(t *testing.T) {
	_, err := Open(filepath.Join("testdata", "vds", "vds_missing.h5"), "")
	if err == nil || !strings.Contains(err.Error(), "src/none.h5 is missing") {
		t.Fatalf("got %v, want the missing source named", err)
	}
}

// TestVirtualDamagedSource: a source chunk whose gzip stream is damaged
// fails the read, naming the source file and its chunk, as the guard
// does for any dataset.
func TestVirtualDamagedSource(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join("testdata", "vds"), dir)
	src := filepath.Join(dir, "src", "gzip_1.h5")
	raw, _, err := rawChunkAt(src, "/data", []int{1, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(file, raw)
	if at < 0 || bytes.Index(file[at+1:], raw) >= 0 {
		t.Fatal("chunk 1's bytes are not found once in the source file")
	}
	for i := at + len(raw)/3; i < at+len(raw)*2/3; i++ {
		file[i] ^= 0x5a
	}
	if err := os.WriteFile(src, file, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := Open(filepath.Join(dir, "vds_gzip.h5"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	_, err = v.ReadAll()
	if err == nil || !strings.Contains(err.Error(), "gzip_1.h5:/data: chunk at (1, 0, 0)") {
		t.Fatalf("got %v, want the damaged source chunk named", err)
	}
}

// copyTree copies the files of folder from (one level of subfolders)
// into to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAxisIndex checks a hyperslab axis's index and coord against the
// coordinates it selects listed by its definition: count blocks of block
// elements, stride apart from start.
func TestAxisIndex(t *testing.T) {
	for _, a := range []axis{{0, 1, 1, 9}, {3, 1, 1, 4}, {1, 2, 3, 1}, {2, 5, 3, 2}, {0, 1000, 2, 1000}, {4, 3, 1, 3}} {
		var sel []int
		for b := 0; b < a.count; b++ {
			for e := 0; e < a.block; e++ {
				sel = append(sel, a.start+b*a.stride+e)
			}
		}
		if a.extent() != len(sel) {
			t.Errorf("%+v: extent %d, want %d", a, a.extent(), len(sel))
		}
		rank := map[int]int{}
		for j, c := range sel {
			rank[c] = j
			if got := a.coord(j); got != c {
				t.Errorf("%+v: coord(%d) = %d, want %d", a, j, got, c)
			}
		}
		for c := 0; c < sel[len(sel)-1]+3; c++ {
			want, ok := rank[c]
			if !ok {
				want = -1
			}
			if got := a.index(c); got != want {
				t.Errorf("%+v: index(%d) = %d, want %d", a, c, got, want)
			}
		}
	}
}

// TestVirtualSourcesReopened: a virtual dataset over more source files
// than it may hold open (here 2 of 4, one file per plane) closes the
// least recently read and reopens them when read again, reading the
// same bytes.
func TestVirtualSourcesReopened(t *testing.T) {
	defer func(n int) { maxOpenSources = n }(maxOpenSources)
	maxOpenSources = 2
	_, want := readGolden(t, "lz4")
	v, err := Open(filepath.Join("testdata", "vds", "vds_lz4.h5"), "/data")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	vd := v.Source().(*dataset).vds
	openNow := func() int {
		n := 0
		for _, m := range vd.maps {
			if m.src != nil {
				n++
			}
		}
		if n != vd.open {
			t.Fatalf("%d sources open, counted %d", n, vd.open)
		}
		return n
	}
	if n := openNow(); n != 0 {
		t.Fatalf("%d sources open after opening, want 0", n)
	}
	for pass := 0; pass < 2; pass++ {
		got, err := v.ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("pass %d reads differently from h5py's", pass)
		}
		if n := openNow(); n != 2 {
			t.Fatalf("%d sources open after a read, want 2", n)
		}
	}
}
