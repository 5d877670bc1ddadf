package volume

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// countingReader records every ReadAt.
type countingReader struct {
	r     io.ReaderAt
	mu    sync.Mutex
	reads [][2]int64 // offset, length
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.mu.Lock()
	c.reads = append(c.reads, [2]int64{off, int64(len(p))})
	c.mu.Unlock()
	return c.r.ReadAt(p, off)
}

// TestSlabReadsOnlyTheSlab opens golden files of each raw format and
// checks that a slab read is one ReadAt of exactly that slab's bytes.
func TestSlabReadsOnlyTheSlab(t *testing.T) {
	for _, tc := range []struct {
		file string
		off  int64 // data offset
		elem int64 // stored bytes per voxel
	}{
		{"npy/u2le.npy", 128, 2},
		{"npy/f8be.npy", 128, 8},
		{"mrc/mode1.mrc", 1024, 2},
		{"mrc/exthdr.mrc", 1024 + 160, 2},
	} {
		v, err := Open(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		raw := v.Source().(*rawSource)
		cr := &countingReader{r: raw.r}
		raw.r = cr
		buf := make([]byte, v.PlaneBytes())
		if err := v.ReadSlab(2, 3, buf); err != nil {
			t.Fatal(err)
		}
		want := [2]int64{tc.off + 2*20*tc.elem, 20 * tc.elem}
		if len(cr.reads) != 1 || cr.reads[0] != want {
			t.Errorf("%s: reads %v, want one read %v", tc.file, cr.reads, want)
		}
		v.Close()
	}
}

// TestLargeSparseFile opens a 64 GiB NPY file that is a hole except for
// one plane and reads that plane: opening reads only the header and the
// slab read only the slab (the test would take minutes and run out of
// memory otherwise).
func TestLargeSparseFile(t *testing.T) {
	info := Info{Shape: [3]int{32768, 1024, 1024}, DType: Uint16}
	path := filepath.Join(t.TempDir(), "big.npy")
	hdr, err := npyHeaderBytes(info.DType, info.Shape[:])
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(hdr); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(int64(len(hdr)) + info.Bytes()); err != nil {
		t.Skipf("filesystem cannot hold a sparse 64 GiB file: %v", err)
	}
	const z = 30001
	plane := make([]uint16, info.PlaneLen())
	for i := range plane {
		plane[i] = uint16(i ^ z)
	}
	if _, err := f.WriteAt(Bytes(plane), int64(len(hdr))+z*info.PlaneBytes()); err != nil {
		t.Fatal(err)
	}
	f.Close()

	v, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.Shape != info.Shape {
		t.Fatalf("shape %v", v.Shape)
	}
	buf := make([]byte, 2*v.PlaneBytes())
	if err := v.ReadSlab(z, z+2, buf); err != nil {
		t.Fatal(err)
	}
	got := Uint16s(buf)
	for i, w := range plane {
		if got[i] != w || got[len(plane)+i] != 0 {
			t.Fatalf("voxel %d: %d, %d", i, got[i], got[len(plane)+i])
		}
	}
}

// TestSubsetRuns checks that a subset reads each run of consecutive frames
// with one read and returns the frames in order.
func TestSubsetRuns(t *testing.T) {
	info := Info{Shape: [3]int{10, 1, 2}, DType: Uint8}
	data := make([]byte, 20)
	for i := range data {
		data[i] = byte(i / 2)
	}
	mem, _ := NewMemory(info, data)
	rec := &recordingSource{Source: mem}
	frames := []int{2, 3, 4, 7, 8, 0}
	s, err := Subset(rec, frames)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2*len(frames))
	if err := s.ReadSlab(0, len(frames), buf); err != nil {
		t.Fatal(err)
	}
	for i, f := range frames {
		if buf[2*i] != byte(f) || buf[2*i+1] != byte(f) {
			t.Fatalf("plane %d = %d, want frame %d", i, buf[2*i], f)
		}
	}
	want := [][2]int{{2, 5}, {7, 9}, {0, 1}}
	if len(rec.calls) != len(want) {
		t.Fatalf("reads %v, want %v", rec.calls, want)
	}
	for i := range want {
		if rec.calls[i] != want[i] {
			t.Fatalf("reads %v, want %v", rec.calls, want)
		}
	}
	if _, err := Subset(mem, []int{10}); err == nil {
		t.Error("frame out of range accepted")
	}
}

type recordingSource struct {
	Source
	calls [][2]int
}

func (r *recordingSource) ReadSlab(z0, z1 int, dst []byte) error {
	r.calls = append(r.calls, [2]int{z0, z1})
	return r.Source.ReadSlab(z0, z1, dst)
}

func TestNaturalSort(t *testing.T) {
	names := []string{"plane10.tif", "plane2.tif", "Plane1.tif", "plane002.tif", "plane100.tif", "a.tif", "plane2b.tif"}
	SortNatural(names)
	want := []string{"a.tif", "Plane1.tif", "plane2.tif", "plane002.tif", "plane2b.tif", "plane10.tif", "plane100.tif"}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("got %v, want %v", names, want)
		}
	}
}

// TestSwapBytes compares the word-wise swap with a byte-by-byte reversal,
// for lengths that leave a tail after the last whole word.
func TestSwapBytes(t *testing.T) {
	for _, elem := range []int{2, 4, 8} {
		for n := 0; n < 40; n += elem {
			// One byte in: the word path must not see a misaligned start.
			b := make([]byte, n+1)[1:]
			if n%2 == 0 && n >= 16 {
				b = make([]byte, n)
			}
			for i := range b {
				b[i] = byte(i*37 + 1)
			}
			want := append([]byte(nil), b...)
			for i := 0; i < n; i += elem {
				for j := 0; j < elem/2; j++ {
					want[i+j], want[i+elem-1-j] = want[i+elem-1-j], want[i+j]
				}
			}
			swapBytes(b, elem)
			if string(b) != string(want) {
				t.Fatalf("elem %d, %d bytes: %v, want %v", elem, n, b, want)
			}
		}
	}
}

// TestTIFFSlabReadsOnlyTheSlab: a slab of a multi-page TIFF is read with
// one ReadAt per page, of exactly that page's strip.
func TestTIFFSlabReadsOnlyTheSlab(t *testing.T) {
	v, err := Open("testdata/tiff/u16.tif")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	src := v.Source().(*tiffSource)
	cr := &countingReader{r: src.r}
	src.r = cr
	buf := make([]byte, 2*v.PlaneBytes())
	if err := v.ReadSlab(1, 3, buf); err != nil {
		t.Fatal(err)
	}
	p1, p2 := src.tf.pages[1], src.tf.pages[2]
	want := [][2]int64{{p1.offsets[0], 40}, {p2.offsets[0], 40}}
	if len(cr.reads) != 2 || cr.reads[0] != want[0] || cr.reads[1] != want[1] {
		t.Errorf("reads %v, want %v", cr.reads, want)
	}
}

// TestImageJHugeStack reads the layout ImageJ uses past 4 GiB: one IFD
// whose description says images=N, the other planes' data following the
// first one's.
func TestImageJHugeStack(t *testing.T) {
	one := Info{Shape: [3]int{1, 4, 5}, DType: Uint16}
	l := newTIFFLayout(one, false, false)
	l.desc = "ImageJ=1.52p\nimages=3\nslices=3\n"
	l.firstBytes = int64(len(l.ifdAt(l.headerBytes(), 0)))
	data := pattern(Info{Shape: [3]int{3, 4, 5}, DType: Uint16})
	b := append(append(l.header(), l.ifd(0)...), data...)
	path := filepath.Join(t.TempDir(), "ij.tif")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	info, got := readBack(t, path)
	if info.Shape != [3]int{3, 4, 5} || string(got) != string(data) {
		t.Errorf("shape %v, data equal %v", info.Shape, string(got) == string(data))
	}
	os.WriteFile(path, b[:len(b)-1], 0o644)
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "promises 3 images") {
		t.Errorf("truncated ImageJ stack: %v", err)
	}
}
