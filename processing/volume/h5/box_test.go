package h5

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// crop cuts box b out of a whole volume's bytes: the reference ReadBox
// is checked against.
func crop(all []byte, info volume.Info, b volume.Box) []byte {
	es := info.DType.Size()
	var out []byte
	for z := b.Z0; z < b.Z1; z++ {
		for y := b.Y0; y < b.Y1; y++ {
			off := ((z*info.Shape[1]+y)*info.Shape[2] + b.X0) * es
			out = append(out, all[off:off+(b.X1-b.X0)*es]...)
		}
	}
	return out
}

// boxes are the boxes every test reads: a y slice, an x slice, a corner,
// a box across chunk boundaries, whole planes and an empty box.
func boxes(info volume.Info) []volume.Box {
	nz, ny, nx := info.Shape[0], info.Shape[1], info.Shape[2]
	return []volume.Box{
		{Z0: 0, Z1: nz, Y0: ny / 2, Y1: ny/2 + 1, X0: 0, X1: nx},
		{Z0: 0, Z1: nz, Y0: 0, Y1: ny, X0: nx - 1, X1: nx},
		{Z0: 0, Z1: 1, Y0: 0, Y1: 1, X0: 0, X1: 1},
		{Z0: 1, Z1: nz - 1, Y0: 1, Y1: ny - 1, X0: 1, X1: nx - 1},
		{Z0: 0, Z1: nz, Y0: 0, Y1: ny, X0: 0, X1: nx},
		{Z0: 2, Z1: 2, Y0: 0, Y1: ny, X0: 0, X1: nx},
	}
}

func checkBoxes(t *testing.T, src volume.Source) {
	t.Helper()
	info := src.Info()
	all := make([]byte, info.Bytes())
	if err := src.ReadSlab(0, info.Shape[0], all); err != nil {
		t.Fatal(err)
	}
	br, ok := volume.AsBoxReader(src)
	if !ok {
		t.Fatalf("%T is not a BoxReader", src)
	}
	for _, b := range boxes(info) {
		got := make([]byte, b.Len()*int64(info.DType.Size()))
		if err := br.ReadBox(b, got); err != nil {
			t.Errorf("box %v: %v", b, err)
			continue
		}
		if want := crop(all, info, b); !bytes.Equal(got, want) {
			t.Errorf("box %v: read %v, want %v", b, got, want)
		}
	}
	bad := volume.Box{Z1: 1, Y1: info.Shape[1] + 1, X1: 1}
	if err := br.ReadBox(bad, make([]byte, bad.Len()*int64(info.DType.Size()))); err == nil {
		t.Errorf("box %v outside the volume read without error", bad)
	}
}

// TestReadBoxGolden reads boxes of h5py's chunked datasets (chunks across
// several planes, gzip, bands of rows, big-endian) and of plain ones.
func TestReadBoxGolden(t *testing.T) {
	for _, spec := range []string{"chunked.h5:/plain", "chunked.h5:/gzip", "chunked.h5:/bands", "types.h5:/u16", "types.h5:/f64be"} {
		t.Run(spec, func(t *testing.T) {
			v, err := volume.Open(filepath.Join("testdata", spec))
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			checkBoxes(t, v.Source())
			want := map[string]int64{"chunked.h5:/plain": 3 * 4 * 5 * 2, "chunked.h5:/gzip": defaultChunkCache}
			if c, ok := want[spec]; ok && volume.CacheBytes(v.Source()) < c {
				t.Errorf("chunk cache %d bytes, want at least %d", volume.CacheBytes(v.Source()), c)
			}
			// One-plane chunks are read whole or once per slice: no cache.
			if spec == "chunked.h5:/bands" && volume.CacheBytes(v.Source()) != 0 {
				t.Errorf("chunk cache %d bytes for one-plane chunks, want 0", volume.CacheBytes(v.Source()))
			}
		})
	}
}

// TestOutputChunks writes a volume and finds it chunked one plane per
// chunk, its boxes and those of a subset of its planes read back right.
func TestOutputChunks(t *testing.T) {
	dir := t.TempDir()
	info := volume.Info{Shape: [3]int{6, 7, 9}, DType: volume.Uint16}
	w, err := volume.Create(filepath.Join(dir, "out.h5"), info)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSlab(0, pattern(info)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	v, err := volume.Open(filepath.Join(dir, "out.h5"))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	d := v.Source().(*dataset)
	if c := d.Chunks(); len(c) != 3 || c[0] != 1 || c[1] != 7 || c[2] != 9 {
		t.Errorf("chunks %v, want [1 7 9]", c)
	}
	checkBoxes(t, v.Source())
	sub, err := volume.Subset(v.Source(), []int{5, 0, 1, 2, 4})
	if err != nil {
		t.Fatal(err)
	}
	checkBoxes(t, sub)
}

func TestOutputChunkShape(t *testing.T) {
	for _, c := range []struct {
		shape []int
		elem  int
		want  []uint
	}{
		{[]int{1800, 2160, 2560}, 2, []uint{1, 2160, 2560}},
		{[]int{100, 4096, 4096}, 2, []uint{1, 2048, 4096}},
		{[]int{10, 512, 512}, 4, []uint{1, 512, 512}},
		{[]int{512, 512}, 4, nil},
		{[]int{3, 2, 1 << 24}, 2, []uint{1, 1, 1 << 24}},
	} {
		got := OutputChunks(c.shape, c.elem)
		if len(got) != len(c.want) || len(got) > 0 && (got[0] != c.want[0] || got[1] != c.want[1] || got[2] != c.want[2]) {
			t.Errorf("OutputChunks(%v, %d) = %v, want %v", c.shape, c.elem, got, c.want)
		}
	}
}
