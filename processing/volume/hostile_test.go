package volume

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/voxlab/voxlab/processing/volume/fileio"
)

// tiffWithTags builds a classic little-endian TIFF of one 4 x 2 uint16
// page, one uncompressed strip, with extra SHORT or LONG tags and, when
// desc is not empty, an ImageDescription: a hand-made file for the
// cases no writer makes.
func tiffWithTags(t testing.TB, tags map[uint16]uint64, desc ...string) []byte {
	t.Helper()
	le := binary.LittleEndian
	type ent struct {
		tag, typ uint16
		count    uint32
		val      uint32
	}
	ents := map[uint16]ent{
		tagImageWidth:      {tagImageWidth, 3, 1, 4},
		tagImageLength:     {tagImageLength, 3, 1, 2},
		tagBitsPerSample:   {tagBitsPerSample, 3, 1, 16},
		tagCompression:     {tagCompression, 3, 1, 1},
		tagPhotometric:     {tagPhotometric, 3, 1, 1},
		tagRowsPerStrip:    {tagRowsPerStrip, 3, 1, 2},
		tagStripByteCounts: {tagStripByteCounts, 4, 1, 16},
		tagStripOffsets:    {tagStripOffsets, 4, 1, 8},
	}
	for tag, v := range tags {
		typ := uint16(3)
		if v > 0xffff {
			typ = 4
		}
		ents[tag] = ent{tag, typ, 1, uint32(v)}
	}
	data := make([]byte, 16)
	var extra []byte
	if len(desc) > 0 {
		extra = append([]byte(desc[0]), 0)
	}
	n := len(ents)
	if len(extra) > 0 {
		n++
	}
	ifdAt := 8 + len(data)
	extraAt := ifdAt + 2 + 12*n + 4
	if len(extra) > 0 {
		ents[tagDescription] = ent{tagDescription, 2, uint32(len(extra)), uint32(extraAt)}
	}
	var keys []int
	for k := range ents {
		keys = append(keys, int(k))
	}
	sort.Ints(keys)
	b := []byte("II")
	b = le.AppendUint16(b, 42)
	b = le.AppendUint32(b, uint32(ifdAt))
	b = append(b, data...)
	b = le.AppendUint16(b, uint16(len(keys)))
	for _, k := range keys {
		e := ents[uint16(k)]
		b = le.AppendUint16(b, e.tag)
		b = le.AppendUint16(b, e.typ)
		b = le.AppendUint32(b, e.count)
		if e.typ == 3 {
			b = le.AppendUint16(b, uint16(e.val))
			b = le.AppendUint16(b, 0)
		} else {
			b = le.AppendUint32(b, e.val)
		}
	}
	b = le.AppendUint32(b, 0)
	return append(b, extra...)
}

// TestOMEPlaneCountOverflow: OME-XML sizes whose product overflows are
// refused naming the sizes, not as a negative number of planes.
func TestOMEPlaneCountOverflow(t *testing.T) {
	xml := `<?xml version="1.0"?><OME xmlns="http://www.openmicroscopy.org/Schemas/OME/2016-06"><Image ID="Image:0"><Pixels ID="Pixels:0" DimensionOrder="XYZCT" Type="uint16" SizeX="4" SizeY="2" SizeZ="3037000500" SizeC="3037000500" SizeT="2"/></Image></OME>`
	path := filepath.Join(t.TempDir(), "huge.ome.tif")
	if err := os.WriteFile(path, tiffWithTags(t, nil, xml), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	if err == nil {
		t.Fatal("opened")
	}
	msg := err.Error()
	for _, want := range []string{path, "Z 3037000500 x C 3037000500 x T 2", "more planes than any file holds"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "-") && strings.Contains(msg, "promises -") {
		t.Errorf("error %q gives a negative count", msg)
	}
}

// TestHugeDescriptionRefused: a TIFF whose ImageDescription is larger
// than the metadata limit is refused naming the file, before it is read.
func TestHugeDescriptionRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge-desc.tif")
	if err := os.WriteFile(path, tiffWithTags(t, nil, strings.Repeat("x", fileio.MetadataLimit+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "ImageDescription of 16777218 bytes") {
		t.Fatalf("error %v", err)
	}
}

// TestNotRegularFiles: a FIFO or a device where a reader expects a file
// is refused at once, naming the file; a FIFO never blocks the reader
// (the deadline only catches that hang: without a writer, opening a
// FIFO the ordinary way waits for ever).
func TestNotRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return p
	}
	zero := func(name string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink("/dev/zero", p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A folder of planes with a FIFO among them.
	planes := filepath.Join(dir, "planes")
	w, err := CreatePlaneDir(planes, Info{Shape: [3]int{2, 3, 4}, DType: Uint16})
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w, make([]byte, 2*3*4*2))
	fifo("planes/plane_0002.tif")
	// A folder of maps with /dev/zero among them.
	maps := filepath.Join(dir, "maps")
	os.MkdirAll(maps, 0o755)
	mw, err := CreateMRC(filepath.Join(maps, "a.mrc"), Info{Shape: [3]int{2, 2, 2}, DType: Float32})
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, mw, make([]byte, 32))
	zero("maps/b.mrc")
	for _, tc := range []struct{ spec, file string }{
		{fifo("fifo.tif"), ""},
		{fifo("fifo.npy"), ""},
		{fifo("fifo.mrc"), ""},
		{zero("zero.tif"), ""},
		{zero("zero.npy"), ""},
		{zero("zero.mrc"), ""},
		{planes, "plane_0002.tif"},
		{maps, "b.mrc"},
	} {
		for what, call := range map[string]func(string) error{"open": openVolume, "info": inspect, "stack": openStack} {
			t.Run(filepath.Base(tc.spec)+"/"+what, func(t *testing.T) {
				done := make(chan error, 1)
				go func() { done <- call(tc.spec) }()
				var err error
				select {
				case err = <-done:
				case <-time.After(60 * time.Second):
					t.Errorf("%s %s hangs", what, tc.spec)
					unblockFIFOs(dir)
					err = <-done
				}
				want := tc.spec
				if tc.file != "" {
					want = filepath.Join(tc.spec, tc.file)
				}
				if err == nil || !errors.Is(err, fileio.ErrNotRegular) || !strings.Contains(err.Error(), want) {
					t.Errorf("%s %s: %v, want an error naming %s as not a regular file", what, tc.spec, err, want)
				}
			})
		}
	}
}

// unblockFIFOs opens every FIFO under dir for writing and closes it,
// releasing a reader blocked opening one.
func unblockFIFOs(dir string) {
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
		return nil
	})
}

// TestMRCFolderEverywhere: a folder of MRC maps is the MRC stack reader's
// for info and Open, as for OpenStack and the viewer, not a folder of
// TIFF planes without any.
func TestMRCFolderEverywhere(t *testing.T) {
	dir := filepath.Join("testdata", "mrc", "dir")
	if f := FormatFor(dir); f == nil || f.Name != "mrc-dir" {
		t.Fatalf("format %v", f)
	}
	d, err := Inspect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != "mrc-dir" || d.Maps != 3 || !bytes.Equal([]byte(shapeString(d.Shape)), []byte("(3, 4, 4, 4)")) || d.DType != "float32" {
		t.Errorf("info: %+v", d)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	checkVolume(t, v, Float32, [3]int{12, 4, 4}, goldStack(4))
	if _, err := Open(dir + ":/x"); err == nil || !strings.Contains(err.Error(), "no datasets") {
		t.Errorf("a dataset path: %v", err)
	}
	// A folder holding TIFF planes too is a folder of planes.
	mixed := filepath.Join(t.TempDir(), "mixed")
	w, err := CreatePlaneDir(mixed, Info{Shape: [3]int{2, 3, 4}, DType: Uint16})
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w, make([]byte, 2*3*4*2))
	b, _ := os.ReadFile(filepath.Join(dir, "map2.mrc"))
	os.WriteFile(filepath.Join(mixed, "map2.mrc"), b, 0o644)
	if f := FormatFor(mixed); f == nil || f.Name != "tiff-dir" {
		t.Errorf("a folder of planes and maps: format %v", f)
	}
}
