package volume

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The fuzz targets feed arbitrary bytes to the header parsers and, when a
// header is accepted, read its first plane from the same bytes: nothing
// may panic, and what is accepted must be consistent with the input.
// Seeds: the golden files (testdata/npy, mrc, tiff) and the corpus in
// testdata/fuzz. Run with e.g.
//
//	go test -run '^$' -fuzz FuzzTIFF -fuzztime 2m ./processing/volume/

// maxFuzzPlane bounds what a fuzz input may make the target allocate.
const maxFuzzPlane = 1 << 20

func addGolden(f *testing.F, pattern string) {
	names, _ := filepath.Glob(filepath.Join("testdata", pattern))
	for _, n := range names {
		if b, err := os.ReadFile(n); err == nil {
			f.Add(b)
		}
	}
}

// readFirstPlane reads plane 0 of a raw layout from b.
func readFirstPlane(t *testing.T, b []byte, info Info, l layout) {
	if err := info.Validate(); err != nil || info.PlaneBytes() > maxFuzzPlane {
		return
	}
	src := &rawSource{info: info, path: "fuzz", r: bytes.NewReader(b), layout: l}
	if err := src.ReadSlab(0, 1, make([]byte, info.PlaneBytes())); err != nil {
		t.Fatalf("header accepted, file size checked, yet plane 0 fails: %v", err)
	}
}

func FuzzNPYHeader(f *testing.F) {
	addGolden(f, "npy/*.npy")
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		h, err := readNPYHeader(r)
		if err != nil {
			return
		}
		if h.dataOffset > int64(len(b)) || h.dtype.Size() == 0 {
			t.Fatalf("accepted header ends at %d of %d bytes, dtype %v", h.dataOffset, len(b), h.dtype)
		}
		if checkNPY(int64(len(b)), h) != nil || len(h.shape) < 2 || len(h.shape) > 3 {
			return
		}
		shape := [3]int{1, h.shape[0], h.shape[1]}
		if len(h.shape) == 3 {
			shape = [3]int{h.shape[0], h.shape[1], h.shape[2]}
		}
		readFirstPlane(t, b, Info{Shape: shape, DType: h.dtype}, h.layout())
	})
}

func FuzzMRCHeader(f *testing.F) {
	addGolden(f, "mrc/*.mrc*")
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := readMRCHeader("fuzz", bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		in := h.info()
		if in.Validate() != nil || h.nsymbt < 0 {
			t.Fatalf("accepted header with info %+v, nsymbt %d", in, h.nsymbt)
		}
		readFirstPlane(t, b, in, h.layout())
	})
}

// FuzzTIFF's invariant: any input either fails to open with an error, or
// opens as a consistent stack whose every page reads without a panic, a
// hang or an allocation beyond the plane and one stored strip, returning
// nil or an error that names the file and the page. Opening checks the
// structure (IFDs, tags, strips inside the file), which for uncompressed
// pages is everything: those must read. A compressed strip can only be
// checked by decoding it, so a page with a damaged payload (a Deflate
// stream that ends early, LZW codes out of range, PackBits runs past the
// strip) opens and fails when read, as libtiff does.
func FuzzTIFF(f *testing.F) {
	addGolden(f, "tiff/*.tif")
	addGolden(f, "types/*.tif")
	addGolden(f, "codecs/*.tif") // Zstandard, the floating-point predictor
	// OME sizes whose product overflows; predictor 3 on integers.
	f.Add(tiffWithTags(f, nil, `<OME><Image><Pixels DimensionOrder="XYZCT" SizeZ="3037000500" SizeC="3037000500" SizeT="2"/></Image></OME>`))
	f.Add(tiffWithTags(f, map[uint16]uint64{tagPredictor: 3}))
	f.Fuzz(func(t *testing.T, b []byte) {
		tf, err := readTIFF("fuzz.tif", bytes.NewReader(b), int64(len(b)), 64)
		if err != nil {
			return
		}
		// An OME-TIFF's channel 0 (or 1) is what a volume reads.
		if tf.expandImageJ(int64(len(b))) != nil || tf.selectChannel(len(b)%2) != nil || tf.checkStack() != nil {
			return
		}
		in := tf.info()
		if in.Validate() != nil {
			t.Fatalf("accepted TIFF with info %+v", in)
		}
		if in.PlaneBytes() > maxFuzzPlane {
			return
		}
		// Read as a volume does, with the strip buffer kept from page
		// to page.
		src := &tiffSource{info: in, tf: tf, r: bytes.NewReader(b)}
		buf := make([]byte, in.PlaneBytes())
		for z, p := range tf.pages[:min(len(tf.pages), 64)] {
			err := src.ReadSlab(z, z+1, buf)
			switch {
			case err == nil:
			case p.compression == 1:
				t.Fatalf("uncompressed page %d accepted, yet reading it fails: %v", z, err)
			case !strings.Contains(err.Error(), "fuzz.tif page "+strconv.Itoa(z)):
				t.Fatalf("reading damaged page %d fails without naming the file and page: %v", z, err)
			}
		}
	})
}
