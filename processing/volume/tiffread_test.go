package volume

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestTIFFReadBufferBytes: a TIFF source says it holds a strip buffer
// only for compressed pages, and reading its planes one at a time, so
// the buffer and decoder are reused from page to page, gives the bytes
// of reading the whole stack at once.
func TestTIFFReadBufferBytes(t *testing.T) {
	for _, tc := range []struct {
		spec       string
		compressed bool
	}{
		{"u16.tif", false}, {"strips_u16.tif", false}, {"scattered_u16.tif", false}, {"planes", false},
		{"deflate_u16.tif", true}, {"deflate_pred_u16.tif", true}, {"lzw_u16.tif", true}, {"packbits_u16.tif", true},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			v, err := Open(filepath.Join("testdata", "tiff", tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			rb, ok := v.Source().(interface{ ReadBufferBytes() int64 })
			if !ok {
				t.Fatalf("%T has no ReadBufferBytes", v.Source())
			}
			if n := rb.ReadBufferBytes(); (n > 0) != tc.compressed {
				t.Errorf("ReadBufferBytes %d; compressed %v", n, tc.compressed)
			}
			all, err := v.ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			pb := v.PlaneBytes()
			for pass := 0; pass < 2; pass++ {
				for z := 0; z < v.Shape[0]; z++ {
					got := make([]byte, pb)
					if err := v.ReadSlab(z, z+1, got); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, all[int64(z)*pb:int64(z+1)*pb]) {
						t.Fatalf("pass %d: plane %d differs from the whole read", pass, z)
					}
				}
			}
		})
	}
}
