package testutil

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"os"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// WriteNPY writes values, a []uint8, []uint16, []float32 or []float64 of
// shape's size, as a little-endian NPY 1.0 file: the magic, the version,
// the header's length, a dict padded with spaces so that the data start
// at a multiple of 64 bytes, and the raw data (numpy.lib.format).
func WriteNPY(t testing.TB, path string, shape []int, values any) {
	t.Helper()
	descr := map[string]string{"[]uint8": "|u1", "[]uint16": "<u2", "[]float32": "<f4", "[]float64": "<f8"}[fmt.Sprintf("%T", values)]
	if descr == "" {
		t.Fatalf("WriteNPY: values of type %T", values)
	}
	dims := make([]string, len(shape))
	for i, n := range shape {
		dims[i] = fmt.Sprint(n)
	}
	tuple := strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	hdr := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, tuple)
	for (10+len(hdr)+1)%64 != 0 {
		hdr += " "
	}
	hdr += "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(hdr)))
	b.WriteString(hdr)
	if err := binary.Write(&b, binary.LittleEndian, values); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ReadPNG decodes the PNG file at path.
func ReadPNG(t testing.TB, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// ReadVolume opens the volume spec names and reads it whole.
func ReadVolume(t testing.TB, spec string) (volume.Info, []byte) {
	t.Helper()
	v, err := volume.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	data, err := v.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return v.Info, data
}
