package h5

import (
	"bytes"
	"path/filepath"
	"sync"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// fuzzTemplates are datasets of codecs.h5 (gen_codecs.py) whose filter
// pipelines the fuzz target exercises: each iteration writes a mutated
// chunk into a dataset declaring the same pipeline and reads it back
// through libhdf5, whose filter callbacks are voxlab's guard.
var fuzzTemplates = []string{
	"gzip_shuffle", "lz4", "blosc_lz4_shuffle", "blosc_zstd_shuffle", "bslz4_uint16", "bs_uint16",
	"bszstd_uint16", "zstd_uint16", "bzip2", "lzf", "zstd_edges",
}

var fuzzSets = sync.OnceValues(func() ([]rawSet, error) {
	var sets []rawSet
	for _, name := range fuzzTemplates {
		s, err := templateOf("testdata/codecs.h5", name)
		if err != nil {
			return nil, err
		}
		sets = append(sets, s)
	}
	return sets, nil
})

// FuzzChunkRead reads mutated chunks of real files through libhdf5's
// filter pipeline (H5Dread calling the guard's filter callbacks): any
// input may fail, with an error naming the file and chunk, but must not
// crash, leak libhdf5's read context, or return a plane that is not
// wholly the chunk's.
func FuzzChunkRead(f *testing.F) {
	sets, err := fuzzSets()
	if err != nil {
		f.Fatal(err)
	}
	for i, s := range sets {
		raw, mask, err := rawChunkAt("testdata/codecs.h5", s.name, make([]int, len(s.shape)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), mask&1 == 1, raw)
	}
	f.Fuzz(func(t *testing.T, k uint8, skip bool, chunk []byte) {
		if len(chunk) == 0 {
			return // libhdf5 stores no empty chunk
		}
		s := sets[int(k)%len(sets)]
		var mask uint32
		if skip {
			mask = 1 // the first filter skipped, as an encoder that gave up leaves it
		}
		s.chunks = []rawChunk{{off: make([]int, len(s.shape)), mask: mask, data: chunk}}
		p := filepath.Join(t.TempDir(), "fuzz.h5")
		if err := craftFile(p, s); err != nil {
			t.Fatal(err)
		}
		v, err := Open(p, s.name)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		defer v.Close()
		buf := make([]byte, v.PlaneBytes()+16)
		for i := range buf {
			buf[i] = 0xa5
		}
		err = v.ReadSlab(0, 1, buf[:v.PlaneBytes()])
		if err != nil && !bytes.Contains([]byte(err.Error()), []byte("chunk at (0, 0, 0)")) {
			t.Fatalf("error does not name the chunk: %v", err)
		}
		if !bytes.Equal(buf[v.PlaneBytes():], bytes.Repeat([]byte{0xa5}, 16)) {
			t.Fatal("read wrote past the plane")
		}
	})
}

// TestFuzzSeedsRead checks the fuzz target's harness: each template's
// first chunk, written back as FuzzChunkRead writes it, reads as the
// original dataset's first plane, so the seeds reach the decoders.
func TestFuzzSeedsRead(t *testing.T) {
	sets, err := fuzzSets()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		raw, mask, err := rawChunkAt("testdata/codecs.h5", s.name, make([]int, len(s.shape)))
		if err != nil {
			t.Fatal(err)
		}
		s.chunks = []rawChunk{{off: make([]int, len(s.shape)), mask: mask, data: raw}}
		p := filepath.Join(t.TempDir(), "seed.h5")
		if err := craftFile(p, s); err != nil {
			t.Fatal(err)
		}
		got, want := readChunk0(t, p, s), readChunk0(t, "testdata/codecs.h5", s)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the crafted chunk reads differently from the original", s.name)
		}
	}
}

// readChunk0 reads the part of dataset s of file p that its first chunk
// holds.
func readChunk0(t *testing.T, p string, s rawSet) []byte {
	v, err := Open(p, s.name)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	b := volume.Box{Z1: min(s.chunk[0], v.Shape[0]), Y1: min(s.chunk[1], v.Shape[1]), X1: min(s.chunk[2], v.Shape[2])}
	buf := make([]byte, b.Len()*int64(v.DType.Size()))
	br, _ := volume.AsBoxReader(v.Source())
	if err := br.ReadBox(b, buf); err != nil {
		t.Fatalf("%s:%s: %v", p, s.name, err)
	}
	return buf
}
