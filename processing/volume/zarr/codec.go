package zarr

import (
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// zstdDec is shared: DecodeAll is safe for concurrent use. DecodeAll is
// only given frames whose header states their size (checked against the
// chunk's first); the window cap bounds what a damaged header can make
// it allocate (128 MiB: zstd's --ultra levels use up to that).
var zstdDec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1<<31),
	zstd.WithDecoderMaxWindow(128<<20))

// zstdStreams decode frames that do not state their size, into a bounded
// buffer: DecodeAll would grow its output as far as the frame goes.
var zstdStreams = sync.Pool{New: func() any {
	d, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20))
	return d
}}

// zstdStream decodes src into dst, which it must fill exactly; at most
// len(dst) bytes are decoded.
func zstdStream(dst, src []byte) (int, error) {
	d := zstdStreams.Get().(*zstd.Decoder)
	defer zstdStreams.Put(d)
	if err := d.Reset(bytes.NewReader(src)); err != nil {
		return 0, err
	}
	n, err := io.ReadFull(d, dst)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return n, nil
	}
	if err != nil {
		return n, err
	}
	var one [1]byte
	if m, _ := d.Read(one[:]); m > 0 {
		return n + 1, nil
	}
	return n, nil
}

func newBytesCodec(name, cname string) (bytesCodec, error) {
	switch name {
	case "zstd", "gzip", "zlib", "crc32c":
		return bytesCodec{name: name}, nil
	case "blosc":
		return bytesCodec{name: name, cname: cname}, nil
	}
	return bytesCodec{}, fmt.Errorf("compressor %q is not supported (voxlab reads zstd, blosc, gzip, zlib and none)", name)
}

// decode undoes one codec; its output may be at most limit bytes (a
// little more than the chunk), which bounds what a damaged header can
// make it allocate.
func (c bytesCodec) decode(src []byte, limit int) ([]byte, error) {
	switch c.name {
	case "crc32c":
		if len(src) < 4 {
			return nil, errors.New("crc32c: shorter than its checksum")
		}
		body := src[:len(src)-4]
		if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(src[len(src)-4:]) {
			return nil, errors.New("crc32c: checksum mismatch (the chunk is damaged)")
		}
		return body, nil
	case "blosc":
		return bloscDecode(src, limit)
	case "zstd":
		var h zstd.Header
		if err := h.Decode(src); err != nil {
			return nil, fmt.Errorf("zstd: %v", err)
		}
		if h.HasFCS && h.FrameContentSize > uint64(limit) {
			return nil, fmt.Errorf("zstd: the frame holds %d bytes, more than the chunk can hold", h.FrameContentSize)
		}
		if !h.HasFCS {
			out := make([]byte, limit+1)
			n, err := zstdStream(out, src)
			if err != nil {
				return nil, fmt.Errorf("zstd: %v", err)
			}
			if n > limit {
				return nil, errors.New("zstd: more data than the chunk can hold")
			}
			return out[:n], nil
		}
		out, err := zstdDec.DecodeAll(src, make([]byte, 0, int(h.FrameContentSize)))
		if err != nil {
			return nil, fmt.Errorf("zstd: %v", err)
		}
		return out, nil
	case "gzip", "zlib", "bzip2", "xz":
		r, err := inflater(c.name, src)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", c.name, err)
		}
		defer r.Close()
		out := bytes.NewBuffer(make([]byte, 0, limit))
		if _, err := io.Copy(out, io.LimitReader(r, int64(limit)+1)); err != nil {
			return nil, fmt.Errorf("%s: %v", c.name, err)
		}
		if out.Len() > limit {
			return nil, fmt.Errorf("%s: more data than the chunk can hold", c.name)
		}
		return out.Bytes(), nil
	}
	return nil, fmt.Errorf("codec %q", c.name)
}

// storedBound returns the most bytes a chunk of n decoded bytes can take
// once c's bytes-to-bytes codecs encoded it (no codecs: exactly n).
func (c chain) storedBound(n int64) int64 {
	for _, b := range c.b2b {
		n = b.bound(n)
	}
	return n
}

// bound returns the most bytes n bytes can take once encoded. For the
// compressors it is a common ceiling above each one's worst case on
// incompressible data: zstd's ZSTD_compressBound (n + n/256 + a few
// hundred bytes), deflate's stored blocks (5 bytes per 16 KiB, gzip's 18
// of header), Blosc's 16-byte overhead (and the 16 bytes z5py writes
// after a frame), bzip2's n/100 + 600 and xz's per-block headers.
func (c bytesCodec) bound(n int64) int64 {
	if c.name == "crc32c" {
		return n + 4
	}
	return n + n/64 + 1<<16
}

// decodeBytes undoes the bytes-to-bytes codecs of c, giving the encoded
// array's bytes, which must be exactly want bytes long.
func (c chain) decodeBytes(src []byte, want int) ([]byte, error) {
	dst := make([]byte, want)
	return dst, c.decodeInto(dst, src)
}

// decodeInto undoes the bytes-to-bytes codecs of c into dst, which the
// decoded bytes must fill exactly: the codec nearest the array (the
// compressor) writes straight into dst, a slab's buffer when the chunk
// lies in it whole, saving a copy and an allocation per chunk.
func (c chain) decodeInto(dst, src []byte) error {
	limit := len(dst) + 1<<16
	for i := len(c.b2b) - 1; i >= 1; i-- {
		var err error
		if src, err = c.b2b[i].decode(src, limit); err != nil {
			return err
		}
	}
	if len(c.b2b) == 0 {
		if len(src) != len(dst) {
			return fmt.Errorf("chunk holds %d bytes, want %d", len(src), len(dst))
		}
		copy(dst, src)
		return nil
	}
	return c.b2b[0].decodeTo(dst, src)
}

// decodeTo undoes one codec into dst, which its output must fill.
func (c bytesCodec) decodeTo(dst, src []byte) error {
	switch c.name {
	case "zstd":
		var h zstd.Header
		if err := h.Decode(src); err != nil {
			return fmt.Errorf("zstd: %v", err)
		}
		if h.HasFCS && h.FrameContentSize != uint64(len(dst)) {
			return fmt.Errorf("zstd: the frame holds %d bytes, want %d", h.FrameContentSize, len(dst))
		}
		if !h.HasFCS {
			n, err := zstdStream(dst, src)
			if err != nil {
				return fmt.Errorf("zstd: %v", err)
			}
			if n != len(dst) {
				return fmt.Errorf("zstd: decoded %d bytes or more, want %d", n, len(dst))
			}
			return nil
		}
		out, err := zstdDec.DecodeAll(src, dst[:0:len(dst)])
		if err != nil {
			return fmt.Errorf("zstd: %v", err)
		}
		if len(out) != len(dst) {
			return fmt.Errorf("zstd: decoded %d bytes, want %d", len(out), len(dst))
		}
		if len(out) > 0 && &out[0] != &dst[0] {
			copy(dst, out)
		}
		return nil
	case "blosc":
		return bloscDecodeInto(dst, src)
	case "gzip", "zlib", "bzip2", "xz":
		r, err := inflater(c.name, src)
		if err != nil {
			return fmt.Errorf("%s: %v", c.name, err)
		}
		defer r.Close()
		if _, err := io.ReadFull(r, dst); err != nil {
			return fmt.Errorf("%s: %v (want %d bytes)", c.name, err, len(dst))
		}
		var one [1]byte
		if n, err := r.Read(one[:]); n > 0 || err != io.EOF {
			return fmt.Errorf("%s: more data than the chunk holds", c.name)
		}
		return nil
	}
	out, err := c.decode(src, len(dst))
	if err != nil {
		return err
	}
	if len(out) != len(dst) {
		return fmt.Errorf("decoded chunk holds %d bytes, want %d", len(out), len(dst))
	}
	copy(dst, out)
	return nil
}

// inflater reads the stream of a gzip, zlib, bzip2 (Go's compress/bzip2)
// or xz (github.com/ulikunitz/xz) chunk.
func inflater(name string, src []byte) (io.ReadCloser, error) {
	switch name {
	case "gzip":
		return gzip.NewReader(bytes.NewReader(src))
	case "bzip2":
		return io.NopCloser(bzip2.NewReader(bytes.NewReader(src))), nil
	case "xz":
		// The dictionary an xz stream asks for is allocated whole:
		// checked first, so a damaged header cannot ask for 1.5 GiB.
		if err := checkXZ(src, maxXZDict); err != nil {
			return nil, err
		}
		r, err := xz.ReaderConfig{SingleStream: true}.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, err
		}
		return io.NopCloser(r), nil
	}
	return zlib.NewReader(bytes.NewReader(src))
}
