package zarr

import (
	"bytes"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// streamed compresses b as a streaming zstd writer does: a frame that
// does not state its size.
func streamed(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	// Flushing before the end makes the writer start the frame before it
	// knows the size.
	w.Write(b[:len(b)/2])
	w.Flush()
	w.Write(b[len(b)/2:])
	w.Close()
	var h zstd.Header
	if err := h.Decode(buf.Bytes()); err != nil || h.HasFCS {
		t.Fatalf("the test frame states its size (%v)", err)
	}
	return buf.Bytes()
}

// TestZstdWithoutSize: frames without a content size decode into the
// chunk, in place or not, and one holding more than the chunk is refused
// rather than decoded whole.
func TestZstdWithoutSize(t *testing.T) {
	data := bytes.Repeat([]byte("voxlab"), 1000)
	c := chain{b2b: []bytesCodec{{name: "zstd"}}}
	dst := make([]byte, len(data))
	if err := c.decodeInto(dst, streamed(t, data)); err != nil || !bytes.Equal(dst, data) {
		t.Errorf("in place: %v", err)
	}
	// Behind a checksum, zstd is not the last codec undone.
	c2 := chain{b2b: []bytesCodec{{name: "zstd"}, {name: "zstd"}}}
	if got, err := c2.decodeBytes(streamed(t, streamed(t, data)), len(data)); err != nil || !bytes.Equal(got, data) {
		t.Errorf("nested: %v", err)
	}
	big := bytes.Repeat([]byte{1}, 10*len(data)+1<<17)
	if err := c.decodeInto(dst, streamed(t, big)); err == nil || !strings.Contains(err.Error(), "want") {
		t.Errorf("a frame larger than the chunk: %v", err)
	}
	if _, err := c2.decodeBytes(streamed(t, streamed(t, big)), len(data)); err == nil || !strings.Contains(err.Error(), "zstd") {
		t.Errorf("a nested frame larger than the chunk: %v", err)
	}
	// An outer stage whose own output would pass the bound.
	if _, err := c2.decodeBytes(streamed(t, big), len(data)); err == nil || !strings.Contains(err.Error(), "more data than the chunk") {
		t.Errorf("an outer frame larger than the chunk: %v", err)
	}
}
