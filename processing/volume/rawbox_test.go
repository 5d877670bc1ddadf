package volume

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestRawReadBoxMatchesSlab: a raw file's ReadBox (NPY and MRC, either
// byte order, MRC's float16 widened) gives, for boxes of every shape,
// the voxels ReadSlab gives for the same planes, cut out by hand.
func TestRawReadBoxMatchesSlab(t *testing.T) {
	for _, name := range []string{"npy/u2le.npy", "npy/u2be.npy", "npy/f4be.npy", "npy/f8le.npy", "npy/u1.npy", "mrc/bigendian.mrc", "mrc/float16.mrc", "mrc/mode1.mrc"} {
		v, err := Open(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		br, ok := v.Source().(BoxReader)
		if !ok {
			t.Fatalf("%s: not a BoxReader", name)
		}
		all, err := v.ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		nz, ny, nx, es := v.Shape[0], v.Shape[1], v.Shape[2], v.DType.Size()
		for _, b := range []Box{
			{0, nz, 0, ny, 0, nx},
			{nz / 2, nz/2 + 1, ny / 3, ny/3 + 1, 0, nx},
			{0, nz, 0, ny, nx - 1, nx},
			{0, 1, 1, ny, 1, max(nx-1, 2)},
		} {
			b.Y1, b.X1 = min(b.Y1, ny), min(b.X1, nx)
			got := make([]byte, b.Len()*int64(es))
			if err := br.ReadBox(b, got); err != nil {
				t.Fatalf("%s box %v: %v", name, b, err)
			}
			var want []byte
			for z := b.Z0; z < b.Z1; z++ {
				for y := b.Y0; y < b.Y1; y++ {
					o := ((z*ny+y)*nx + b.X0) * es
					want = append(want, all[o:o+(b.X1-b.X0)*es]...)
				}
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s box %v: ReadBox differs from ReadSlab's voxels", name, b)
			}
		}
		v.Close()
	}
	// A truncated file says so.
	v, err := Open(filepath.Join("testdata", "npy/truncated.npy"))
	if err != nil {
		return // refused at open: nothing to read
	}
	defer v.Close()
	b := Box{v.Shape[0] - 1, v.Shape[0], v.Shape[1] - 1, v.Shape[1], 0, v.Shape[2]}
	if err := v.Source().(BoxReader).ReadBox(b, make([]byte, b.Len()*int64(v.DType.Size()))); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("the last row of a truncated file: %v", err)
	}
}
