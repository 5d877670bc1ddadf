package volume

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
	"golang.org/x/image/tiff/lzw"
)

// tiffCodecs are the compressions a page may use.
var tiffCodecs = map[uint64]bool{1: true, 5: true, 8: true, 32946: true, 32773: true, 50000: true}

// zstdStrips decode Zstandard strips and tiles (TIFF compression 50000,
// libtiff's and tifffile's code) straight into the strip's rows: a
// stream decoder fills exactly the bytes asked for, so a damaged frame
// cannot make it allocate past them; the window cap bounds its history
// buffer (128 MiB: zstd's --ultra levels use up to that).
var zstdStrips = sync.Pool{New: func() any {
	d, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20), zstd.WithDecoderLowmem(true))
	return d
}}

func (p *tiffPage) compressionName() string {
	if p.compression == 1 {
		return "none"
	}
	name := tiffCompression[uint64(p.compression)]
	switch p.predictor {
	case 2:
		name += ", horizontal predictor"
	case 3:
		name += ", floating-point predictor"
	}
	return name
}

// stripBuf is the memory a reader of compressed strips keeps from strip
// to strip and page to page: the stored strip and a zlib decoder to
// reset, so reading a stack allocates nothing per plane.
type stripBuf struct {
	buf   []byte
	tile  []byte // a decoded tile
	plane []byte // an interleaved plane of several samples
	row   []byte // a row, for undoing the floating-point predictor
	zr    io.ReadCloser
}

// readCompressed reads and decodes the page's strips into dst, one strip
// at a time into sb (nil: a buffer for this call), so only one compressed
// strip is held besides dst.
func (p *tiffPage) readCompressed(r io.ReaderAt, bigEndian bool, dst []byte, sb *stripBuf) error {
	if sb == nil {
		sb = &stripBuf{}
	}
	rowBytes := p.width * p.dtype.Size()
	at := 0
	for i, off := range p.offsets {
		rows := min(p.rowsPerStrip, p.height-i*p.rowsPerStrip)
		out := dst[at : at+rows*rowBytes]
		at += len(out)
		n := int(p.counts[i])
		if cap(sb.buf) < n {
			sb.buf = make([]byte, n)
		}
		buf := sb.buf[:n]
		if _, err := r.ReadAt(buf, off); err != nil {
			if errors.Is(err, io.EOF) {
				return errors.New("truncated: the file ended inside an image strip")
			}
			return err
		}
		if err := p.decodeStrip(out, buf, sb); err != nil {
			return fmt.Errorf("strip %d (%s): %w", i, tiffCompression[uint64(p.compression)], err)
		}
	}
	p.finish(bigEndian, dst, sb)
	return nil
}

// readTiles reads the page's tiles one at a time: each is read (and
// decoded) into sb's tile buffer, put in host order with its predictor
// undone over the tile's rows (TIFF 6.0 applies the predictor per tile),
// and its part inside the image copied into dst. Edge tiles overhang the
// image; the overhang is dropped.
func (p *tiffPage) readTiles(r io.ReaderAt, bigEndian bool, dst []byte, sb *stripBuf) error {
	if sb == nil {
		sb = &stripBuf{}
	}
	elem := p.dtype.Size()
	tileRow := p.tileW * elem
	tileBytes := tileRow * p.tileH
	if cap(sb.tile) < tileBytes {
		sb.tile = make([]byte, tileBytes)
	}
	tile := sb.tile[:tileBytes]
	across := (p.width + p.tileW - 1) / p.tileW
	rowBytes := p.width * elem
	for i, off := range p.offsets {
		n := int(p.counts[i])
		if p.compression == 1 {
			n = tileBytes
		}
		if cap(sb.buf) < n {
			sb.buf = make([]byte, n)
		}
		buf := sb.buf[:n]
		if _, err := r.ReadAt(buf, off); err != nil {
			if errors.Is(err, io.EOF) {
				return errors.New("truncated: the file ended inside an image tile")
			}
			return err
		}
		if p.compression == 1 {
			copy(tile, buf)
		} else if err := p.decodeStrip(tile, buf, sb); err != nil {
			return fmt.Errorf("tile %d (%s): %w", i, tiffCompression[uint64(p.compression)], err)
		}
		undoPredictor(tile, p.tileW, elem, max(p.stride, 1), p.predictor, bigEndian, sb)
		y0, x0 := i/across*p.tileH, i%across*p.tileW
		w := (min(x0+p.tileW, p.width) - x0) * elem
		for y := y0; y < min(y0+p.tileH, p.height); y++ {
			copy(dst[y*rowBytes+x0*elem:y*rowBytes+x0*elem+w], tile[(y-y0)*tileRow:])
		}
	}
	return nil
}

// decodeStrip decompresses one strip into dst, which it must fill exactly
// (decoders may leave padding after the rows; it is ignored), reusing
// sb's zlib decoder.
func (p *tiffPage) decodeStrip(dst, src []byte, sb *stripBuf) error {
	var rd io.Reader
	switch p.compression {
	case 5:
		lr := lzw.NewReader(bytes.NewReader(src), lzw.MSB, 8)
		defer lr.Close()
		rd = lr
	case 8, 32946:
		var err error
		if sb.zr != nil {
			err = sb.zr.(zlib.Resetter).Reset(bytes.NewReader(src), nil)
		} else {
			sb.zr, err = zlib.NewReader(bytes.NewReader(src))
		}
		if err != nil {
			return err
		}
		rd = sb.zr
	case 32773:
		return unpackBits(dst, src)
	case 50000:
		d := zstdStrips.Get().(*zstd.Decoder)
		defer zstdStrips.Put(d)
		if err := d.Reset(bytes.NewReader(src)); err != nil {
			return err
		}
		rd = d
	default:
		return fmt.Errorf("compression %d", p.compression)
	}
	if _, err := io.ReadFull(rd, dst); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fmt.Errorf("the strip decodes to fewer bytes than its %d", len(dst))
		}
		return err
	}
	return nil
}

// unpackBits decodes PackBits (TIFF 6.0, section 9; Apple's run-length
// scheme). Written by hand: it is a dozen lines and no maintained Go
// package offers it on its own.
func unpackBits(dst, src []byte) error {
	o := 0
	for i := 0; i < len(src) && o < len(dst); {
		n := int(int8(src[i]))
		i++
		switch {
		case n >= 0: // n+1 literal bytes
			if i+n+1 > len(src) || o+n+1 > len(dst) {
				return errors.New("PackBits literal run past the end of the strip")
			}
			o += copy(dst[o:], src[i:i+n+1])
			i += n + 1
		case n != -128: // the next byte 1−n times
			if i >= len(src) || o+1-n > len(dst) {
				return errors.New("PackBits repeat run past the end of the strip")
			}
			for k := 0; k < 1-n; k++ {
				dst[o+k] = src[i]
			}
			o += 1 - n
			i++
		}
	}
	if o != len(dst) {
		return fmt.Errorf("the strip decodes to %d bytes, its rows need %d", o, len(dst))
	}
	return nil
}

// undoHorizontalDiff undoes TIFF predictor 2 on host-order samples of
// size bytes: each sample of a row was stored as its difference from the
// one stride samples before it, the same sample of the previous pixel
// (modulo 2^bits, as libtiff does for every sample size).
func undoHorizontalDiff(b []byte, width, size, stride int) {
	if stride == 1 {
		undoHorizontalDiff1(b, width, size)
		return
	}
	row := width * size
	d := stride * size
	for r := 0; r+row <= len(b); r += row {
		switch s := b[r : r+row]; size {
		case 1:
			for i := d; i < row; i++ {
				s[i] += s[i-d]
			}
		case 2:
			for i := d; i < row; i += 2 {
				binary.NativeEndian.PutUint16(s[i:], binary.NativeEndian.Uint16(s[i:])+binary.NativeEndian.Uint16(s[i-d:]))
			}
		case 4:
			for i := d; i < row; i += 4 {
				binary.NativeEndian.PutUint32(s[i:], binary.NativeEndian.Uint32(s[i:])+binary.NativeEndian.Uint32(s[i-d:]))
			}
		case 8:
			for i := d; i < row; i += 8 {
				binary.NativeEndian.PutUint64(s[i:], binary.NativeEndian.Uint64(s[i:])+binary.NativeEndian.Uint64(s[i-d:]))
			}
		}
	}
}

// undoHorizontalDiff1 is undoHorizontalDiff for one sample per pixel, with
// the running sum kept in a register.
func undoHorizontalDiff1(b []byte, width, size int) {
	row := width * size
	for r := 0; r+row <= len(b); r += row {
		switch s := b[r : r+row]; size {
		case 1:
			for i := 1; i < width; i++ {
				s[i] += s[i-1]
			}
		case 2:
			prev := binary.NativeEndian.Uint16(s)
			for i := 2; i < row; i += 2 {
				prev += binary.NativeEndian.Uint16(s[i:])
				binary.NativeEndian.PutUint16(s[i:], prev)
			}
		case 4:
			prev := binary.NativeEndian.Uint32(s)
			for i := 4; i < row; i += 4 {
				prev += binary.NativeEndian.Uint32(s[i:])
				binary.NativeEndian.PutUint32(s[i:], prev)
			}
		case 8:
			prev := binary.NativeEndian.Uint64(s)
			for i := 8; i < row; i += 8 {
				prev += binary.NativeEndian.Uint64(s[i:])
				binary.NativeEndian.PutUint64(s[i:], prev)
			}
		}
	}
}

// undoFloatPredictor undoes TIFF's floating-point predictor (predictor
// 3, Adobe Photoshop TIFF Technical Note 3, as libtiff's fpAcc) on rows
// of len(row) bytes of b, in place: the encoder wrote each row's
// samples byte plane by byte plane, most significant bytes of every
// sample first, then differenced the bytes stride apart; the decoder
// sums the bytes back and gathers each sample's bytes, giving samples in
// host (little-endian) order. row is scratch of one row.
func undoFloatPredictor(b, row []byte, size, stride int) {
	n := len(row)
	wc := n / size // samples in a row
	for r := 0; r+n <= len(b); r += n {
		s := b[r : r+n]
		for i := stride; i < n; i++ {
			s[i] += s[i-stride]
		}
		copy(row, s)
		switch size {
		case 4:
			p0, p1, p2, p3 := row[3*wc:4*wc], row[2*wc:3*wc], row[wc:2*wc], row[:wc]
			for i := range wc {
				s[4*i], s[4*i+1], s[4*i+2], s[4*i+3] = p0[i], p1[i], p2[i], p3[i]
			}
		default:
			for i := range wc {
				for k := range size {
					s[size*i+k] = row[(size-k-1)*wc+i]
				}
			}
		}
	}
}
