package volume

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"unsafe"

	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/volume/fileio"
)

// conversion says how elements stored in a file become the volume's
// elements.
type conversion int

const (
	convNone       conversion = iota // same type; maybe byte-swapped
	convFloat16F32                   // IEEE half → float32 (MRC mode 12)
)

// layout describes where and how a file stores its planes, contiguously in
// C order from offset.
type layout struct {
	offset    int64
	elem      int // bytes per element in the file
	bigEndian bool
	conv      conversion
}

// rawSource reads planes stored contiguously in a file. When r is nil the
// file at path is opened for each read and closed after it, so a stack of
// thousands of files does not hold thousands of descriptors.
type rawSource struct {
	info Info
	path string
	r    io.ReaderAt
	c    io.Closer
	layout
}

func (s *rawSource) Info() Info { return s.info }

// ReadSlab reads exactly the bytes of planes [z0, z1) with one ReadAt and
// converts them in place. Converted elements are wider than stored ones,
// so the stored bytes are read into the tail of dst and widened from the
// front: element i is written to bytes [w·i, w·i+w) only after the stored
// elements up to i have been read, and those never overlap what is still
// to be read (a hand-written scheme: no scratch buffer, no allocation).
func (s *rawSource) ReadSlab(z0, z1 int, dst []byte) error {
	if err := CheckSlab(s.info, z0, z1, len(dst)); err != nil {
		return err
	}
	n := int64(z1-z0) * int64(s.info.PlaneLen())
	stored := dst[int64(len(dst))-n*int64(s.elem):]
	off := s.offset + int64(z0)*int64(s.info.PlaneLen())*int64(s.elem)
	r := s.r
	if r == nil {
		f, _, err := fileio.Open(s.path)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	if _, err := r.ReadAt(stored, off); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%s is truncated: planes %d-%d end at byte %d, past the end of the file", s.path, z0, z1, off+int64(len(stored)))
		}
		return err
	}
	switch s.conv {
	case convNone:
		if s.bigEndian {
			swapBytes(dst, s.elem)
		}
	case convFloat16F32:
		widenFloat16(dst, stored, s.bigEndian)
	}
	return nil
}

// ReadBox reads box b one row (z, y) at a time, each with one ReadAt of
// its run of x and converted as ReadSlab converts: the viewer reads a y
// or x slice, or the rows of a plane too large to read whole (a 65536²
// mosaic), without reading whole planes.
func (s *rawSource) ReadBox(b Box, dst []byte) error {
	if err := CheckBox(s.info, b, len(dst)); err != nil {
		return err
	}
	r := s.r
	if r == nil {
		f, _, err := fileio.Open(s.path)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	nx := b.X1 - b.X0
	out := nx * s.info.DType.Size()
	i := 0
	for z := b.Z0; z < b.Z1; z++ {
		for y := b.Y0; y < b.Y1; y++ {
			row := dst[i*out : (i+1)*out]
			i++
			stored := row[out-nx*s.elem:]
			off := s.offset + ((int64(z)*int64(s.info.Shape[1])+int64(y))*int64(s.info.Shape[2])+int64(b.X0))*int64(s.elem)
			if _, err := r.ReadAt(stored, off); err != nil {
				if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
					return fmt.Errorf("%s is truncated: row %d of plane %d ends at byte %d, past the end of the file", s.path, y, z, off+int64(len(stored)))
				}
				return err
			}
			switch s.conv {
			case convNone:
				if s.bigEndian {
					swapBytes(row, s.elem)
				}
			case convFloat16F32:
				widenFloat16(row, stored, s.bigEndian)
			}
		}
	}
	return nil
}

func (s *rawSource) Close() error {
	if s.c == nil {
		return nil
	}
	c := s.c
	s.c, s.r = nil, nil
	return c.Close()
}

// swapBytes reverses the byte order of each elem-byte element of b. Eight
// bytes are swapped per step: a lane-wise swap within each 64-bit word
// (masks and shifts for 2-byte lanes, a full reversal rotated by 32 for
// 4-byte lanes), since Go does not vectorise the element loop.
func swapBytes(b []byte, elem int) {
	if elem < 2 {
		return
	}
	// The word path needs an 8-byte-aligned start (buffers from make are)
	// and at least one whole word; anything else goes byte by byte below.
	var words []uint64
	if p := unsafe.Pointer(unsafe.SliceData(b)); len(b) >= 8 && uintptr(p)%8 == 0 {
		words = unsafe.Slice((*uint64)(p), len(b)/8)
	}
	switch elem {
	case 2:
		const m = 0x00ff00ff00ff00ff
		for i, x := range words {
			words[i] = (x&m)<<8 | (x>>8)&m
		}
	case 4:
		for i, x := range words {
			words[i] = bits.RotateLeft64(bits.ReverseBytes64(x), 32)
		}
	case 8:
		for i, x := range words {
			words[i] = bits.ReverseBytes64(x)
		}
	}
	for i := 8 * len(words); i+elem <= len(b); i += elem {
		for j := 0; j < elem/2; j++ {
			b[i+j], b[i+elem-1-j] = b[i+elem-1-j], b[i+j]
		}
	}
}

// widenFloat16 converts the IEEE 754 half-precision values in stored (the
// second half of dst) into float32 values filling dst, front to back so
// that no stored value is overwritten before it is read.
func widenFloat16(dst, stored []byte, bigEndian bool) {
	var bo binary.ByteOrder = binary.LittleEndian
	if bigEndian {
		bo = binary.BigEndian
	}
	out := Float32s(dst)
	for i := range out {
		out[i] = Float16(bo.Uint16(stored[2*i:]))
	}
}

// Float16 returns the IEEE 754 binary16 value h as a float32 (exact:
// every half is a float32), subnormals, infinities and NaN included.
func Float16(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // inf, NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: frac · 2^-24
		v := float32(frac) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}

// checkSize reports a file shorter than its header promises.
func checkSize(path string, size, dataOff int64, info Info, elem int) error {
	need, ok := mulNonNeg(info.Len(), int64(elem))
	if !ok || dataOff > math.MaxInt64-need {
		return fmt.Errorf("%s: shape %v overflows", path, info.Shape)
	}
	if size < dataOff+need {
		return fmt.Errorf("%s is truncated: the header promises %d bytes of data from byte %d (shape %v), but the file has %d bytes", path, need, dataOff, info.Shape, size)
	}
	return nil
}

// mulNonNeg multiplies non-negative numbers, reporting overflow.
func mulNonNeg(a, b int64) (int64, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	if a != 0 && b > math.MaxInt64/a {
		return 0, false
	}
	return a * b, true
}

// product multiplies dimensions, reporting a non-positive dimension or an
// overflow of an int64 (and of int, so indexing stays safe).
func product(dims []int, elem int) (int64, error) {
	total := int64(elem)
	for i, n := range dims {
		if n <= 0 {
			return 0, fmt.Errorf("shape %v: dimension %d is %d, must be positive", dims, i, n)
		}
		var ok bool
		if total, ok = mulNonNeg(total, int64(n)); !ok || total > math.MaxInt {
			return 0, fmt.Errorf("shape %v overflows: the data would be larger than 2^63 bytes", dims)
		}
	}
	return total, nil
}

// seqWriter writes a header (written by start, possibly rewritten by
// finish) followed by planes in ascending order, into a temporary file
// renamed into place by Commit.
type seqWriter struct {
	info    Info
	f       *outfile.File
	next    int
	observe func(src []byte)               // sees each slab (statistics)
	before  func(z int, f io.Writer) error // writes what precedes plane z (a TIFF IFD)
	finish  func(f *outfile.File) error    // rewrites the header at Commit
	failed  error
}

func newSeqWriter(path string, info Info, header []byte) (*seqWriter, error) {
	if err := info.Validate(); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	f, err := outfile.Create(path)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(header); err != nil {
		f.Abort()
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &seqWriter{info: info, f: f}, nil
}

func (w *seqWriter) Info() Info { return w.info }

func (w *seqWriter) WriteSlab(z0 int, src []byte) error {
	if w.failed != nil {
		return w.failed
	}
	pb := w.info.PlaneBytes()
	if int64(len(src))%pb != 0 {
		return fmt.Errorf("write %s: slab of %d bytes is not a whole number of %d-byte planes", w.f.Target(), len(src), pb)
	}
	z1 := z0 + int(int64(len(src))/pb)
	if z0 != w.next || z1 > w.info.Shape[0] {
		return fmt.Errorf("write %s: planes %d-%d out of order (next is %d of %d)", w.f.Target(), z0, z1, w.next, w.info.Shape[0])
	}
	if w.observe != nil {
		w.observe(src)
	}
	if err := w.write(z0, z1, src); err != nil {
		w.failed = fmt.Errorf("write %s: %w", w.f.Target(), err)
		return w.failed
	}
	w.next = z1
	return nil
}

func (w *seqWriter) write(z0, z1 int, src []byte) error {
	if w.before == nil {
		_, err := w.f.Write(src)
		return err
	}
	pb := w.info.PlaneBytes()
	for z := z0; z < z1; z++ {
		if err := w.before(z, w.f); err != nil {
			return err
		}
		if _, err := w.f.Write(src[int64(z-z0)*pb : int64(z-z0+1)*pb]); err != nil {
			return err
		}
	}
	return nil
}

func (w *seqWriter) Commit() error {
	if w.failed != nil {
		w.f.Abort()
		return w.failed
	}
	if w.next != w.info.Shape[0] {
		w.f.Abort()
		return fmt.Errorf("write %s: only %d of %d planes were written; nothing was saved", w.f.Target(), w.next, w.info.Shape[0])
	}
	if w.finish != nil {
		if err := w.finish(w.f); err != nil {
			w.f.Abort()
			return fmt.Errorf("write %s: %w", w.f.Target(), err)
		}
	}
	return w.f.Commit()
}

func (w *seqWriter) Abort() error { return w.f.Abort() }
