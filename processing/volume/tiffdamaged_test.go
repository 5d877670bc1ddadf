package volume

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A compressed TIFF whose structure is sound but whose strips do not
// decode opens (only decoding can tell), and reading a page fails with an
// error that names the file, the page and the strip: never a panic, and
// never a plane of whatever the decoder left behind. This is FuzzTIFF's
// invariant on the golden files, each with its payload overwritten by
// bytes its codec rejects.
func TestDamagedCompressedStripsAreErrorsNamingTheFile(t *testing.T) {
	for _, tc := range []struct {
		file string
		junk byte // what the strips are overwritten with
	}{
		{"deflate_u16.tif", 0xff},      // not a zlib header
		{"deflate_pred_u16.tif", 0xff}, // the same, with the predictor
		{"lzw_u16.tif", 0xff},          // codes past the table
		{"packbits_u16.tif", 0x80},     // no-op runs: the strip decodes to nothing
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "tiff", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			tf, err := readTIFF(tc.file, bytes.NewReader(b), int64(len(b)), 0)
			if err != nil {
				t.Fatal(err)
			}
			p := tf.pages[0]
			if p.compression == 1 {
				t.Fatalf("%s is not compressed", tc.file)
			}
			for i, off := range p.offsets {
				for j := off; j < off+p.counts[i]; j++ {
					b[j] = tc.junk
				}
			}
			path := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			v, err := Open(path)
			if err != nil {
				t.Fatalf("a TIFF with damaged strips but a sound structure does not open: %v", err)
			}
			defer v.Close()
			err = v.ReadSlab(0, 1, make([]byte, v.PlaneBytes()))
			if err == nil {
				t.Fatal("damaged strips read without an error")
			}
			if msg := err.Error(); !strings.Contains(msg, path+" page 0") || !strings.Contains(msg, "strip 0") {
				t.Errorf("the error does not name the file, page and strip: %v", err)
			}
		})
	}
}
