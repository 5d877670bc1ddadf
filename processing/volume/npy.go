package volume

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/volume/fileio"
)

// The NPY format (numpy.lib.format, NEP 1): the magic "\x93NUMPY", a
// major and minor version byte, the header length (uint16 little endian in
// version 1, uint32 in versions 2 and 3), then an ASCII (version 3: UTF-8)
// Python dict literal with the keys 'descr', 'fortran_order' and 'shape',
// padded with spaces and ending in '\n'. The data follow in C or Fortran
// order. No Go library reads NPY lazily by offset, so this is hand-written.

const npyMagic = "\x93NUMPY"

// npyMaxHeader bounds the header a reader accepts (NumPy itself refuses
// headers over 10,000 bytes unless told otherwise).
const npyMaxHeader = 1 << 20

func init() {
	RegisterFormat(singleVolume("npy", []string{".npy"}, "NPY files hold one array", openNPY, inspectNPY, CreateNPY))
}

// npyHeader is a parsed NPY header.
type npyHeader struct {
	major, minor int
	descr        string
	dtype        DType
	bigEndian    bool
	fortran      bool
	shape        []int
	dataOffset   int64
}

// readNPYHeader reads and parses the header at the start of r.
func readNPYHeader(r io.ReaderAt) (*npyHeader, error) {
	var pre [12]byte
	n, err := r.ReadAt(pre[:], 0)
	if n < 10 {
		if err == nil || errors.Is(err, io.EOF) {
			return nil, errors.New("not an NPY file: shorter than the NPY preamble")
		}
		return nil, err
	}
	if string(pre[:6]) != npyMagic {
		return nil, fmt.Errorf("not an NPY file: the file starts with %q, not the NPY magic \\x93NUMPY", pre[:6])
	}
	major, minor := int(pre[6]), int(pre[7])
	var hlen, start int64
	switch major {
	case 1:
		hlen, start = int64(binary.LittleEndian.Uint16(pre[8:])), 10
	case 2, 3:
		if n < 12 {
			return nil, errors.New("NPY file is truncated inside its preamble")
		}
		hlen, start = int64(binary.LittleEndian.Uint32(pre[8:])), 12
	default:
		return nil, fmt.Errorf("NPY format version %d.%d is not supported (voxlab reads 1.0, 2.0 and 3.0)", major, minor)
	}
	if hlen > npyMaxHeader {
		return nil, fmt.Errorf("NPY header claims %d bytes (more than %d): the file is damaged", hlen, npyMaxHeader)
	}
	buf := make([]byte, hlen)
	if m, err := r.ReadAt(buf, start); int64(m) < hlen {
		if err == nil || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("NPY file is truncated: the header promises %d bytes, the file ends after %d", hlen, m)
		}
		return nil, err
	}
	h, err := parseNPYDict(buf)
	if err != nil {
		return nil, fmt.Errorf("NPY header: %w", err)
	}
	h.major, h.minor = major, minor
	h.dataOffset = start + hlen
	return h, nil
}

// parseNPYDict parses the header dict and checks its values.
func parseNPYDict(b []byte) (*npyHeader, error) {
	if bytes.IndexByte(b, 0) >= 0 {
		return nil, errors.New("header contains a NUL byte")
	}
	p := &pyParser{s: string(b)}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("unexpected %q after the header dict", clip(p.s[p.i:]))
	}
	d, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("header is not a dict")
	}
	h := &npyHeader{}
	descr, ok := d["descr"].(string)
	if !ok {
		if _, isList := d["descr"].([]any); isList {
			return nil, errors.New("structured dtypes (records) are not supported")
		}
		return nil, errors.New("header has no 'descr' string")
	}
	h.descr = descr
	if h.dtype, h.bigEndian, err = parseDescr(descr); err != nil {
		return nil, err
	}
	if h.fortran, ok = d["fortran_order"].(bool); !ok {
		return nil, errors.New("header has no 'fortran_order' True/False")
	}
	shape, ok := d["shape"].([]any)
	if !ok {
		return nil, errors.New("header has no 'shape' tuple")
	}
	for _, s := range shape {
		n, ok := s.(int)
		if !ok {
			return nil, fmt.Errorf("shape entry %v is not an integer", s)
		}
		h.shape = append(h.shape, n)
	}
	if _, err := product(h.shape, h.dtype.Size()); err != nil {
		return nil, err
	}
	return h, nil
}

// parseDescr maps a NumPy type string to a DType and byte order.
func parseDescr(s string) (DType, bool, error) {
	if len(s) < 2 {
		return InvalidDType, false, fmt.Errorf("dtype %q is not a NumPy type string", s)
	}
	order, code := s[0], s[1:]
	if !strings.ContainsRune("<>|=", rune(order)) {
		order, code = '=', s
	}
	var dt DType
	switch code {
	case "u1":
		dt = Uint8
	case "i1":
		dt = Int8
	case "u2":
		dt = Uint16
	case "i2":
		dt = Int16
	case "u4":
		dt = Uint32
	case "i4":
		dt = Int32
	case "f4":
		dt = Float32
	case "f8":
		dt = Float64
	default:
		return InvalidDType, false, fmt.Errorf("unsupported dtype %q (voxlab reads i1, u1, i2, u2, i4, u4, f4 and f8 in either byte order; convert with arr.astype('<f4'))", s)
	}
	return dt, order == '>' && dt.Size() > 1, nil
}

// pyParser parses the subset of Python literals NPY headers use: dicts,
// tuples, lists, strings, integers, True, False and None.
type pyParser struct {
	s     string
	i     int
	depth int
}

func (p *pyParser) skipSpace() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) value() (any, error) {
	p.skipSpace()
	if p.i >= len(p.s) {
		return nil, errors.New("header ends too early")
	}
	if p.depth > 32 {
		return nil, errors.New("header nests too deeply")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict()
	case c == '(' || c == '[':
		return p.seq()
	case c == '\'' || c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.integer()
	default:
		return p.word()
	}
}

func (p *pyParser) dict() (any, error) {
	p.i++
	p.depth++
	defer func() { p.depth-- }()
	d := map[string]any{}
	for {
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return d, nil
		}
		k, err := p.value()
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("dict key %v is not a string", k)
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, fmt.Errorf("expected ':' after key %q", key)
		}
		p.i++
		if d[key], err = p.value(); err != nil {
			return nil, err
		}
		if err := p.sep('}'); err != nil {
			return nil, err
		}
	}
}

func (p *pyParser) seq() (any, error) {
	end := byte(')')
	if p.s[p.i] == '[' {
		end = ']'
	}
	p.i++
	p.depth++
	defer func() { p.depth-- }()
	out := []any{}
	for {
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == end {
			p.i++
			return out, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if err := p.sep(end); err != nil {
			return nil, err
		}
	}
}

// sep consumes a ',' or leaves the closing bracket for the caller.
func (p *pyParser) sep(end byte) error {
	p.skipSpace()
	if p.i >= len(p.s) {
		return errors.New("header ends too early")
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		return nil
	case end:
		return nil
	}
	return fmt.Errorf("expected ',' or %q, found %q", end, clip(p.s[p.i:]))
}

func (p *pyParser) str() (any, error) {
	q := p.s[p.i]
	j := strings.IndexByte(p.s[p.i+1:], q)
	if j < 0 {
		return nil, errors.New("unterminated string")
	}
	v := p.s[p.i+1 : p.i+1+j]
	if strings.IndexByte(v, '\\') >= 0 {
		return nil, fmt.Errorf("escapes in string %q are not supported", v)
	}
	p.i += j + 2
	return v, nil
}

func (p *pyParser) integer() (any, error) {
	j := p.i
	if p.s[j] == '-' {
		j++
	}
	for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	n, err := strconv.Atoi(p.s[p.i:j])
	if err != nil {
		return nil, fmt.Errorf("bad integer %q", clip(p.s[p.i:]))
	}
	if j < len(p.s) && (p.s[j] == 'L' || p.s[j] == 'l') { // Python 2 long
		j++
	}
	p.i = j
	return n, nil
}

func (p *pyParser) word() (any, error) {
	for _, w := range []struct {
		s string
		v any
	}{{"True", true}, {"False", false}, {"None", nil}} {
		if strings.HasPrefix(p.s[p.i:], w.s) {
			p.i += len(w.s)
			return w.v, nil
		}
	}
	return nil, fmt.Errorf("unexpected %q", clip(p.s[p.i:]))
}

func clip(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}

// npyFile opens path and parses its header, checking that the file holds
// all the data the header promises.
func npyFile(path string) (*os.File, *npyHeader, error) {
	f, _, err := fileio.Open(path)
	if err != nil {
		return nil, nil, err
	}
	h, err := readNPYHeader(f)
	if err == nil {
		var st os.FileInfo
		if st, err = f.Stat(); err == nil {
			err = checkNPY(st.Size(), h)
		}
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, h, nil
}

// checkNPY checks that the data are in C order and that a file of size
// bytes holds them all.
func checkNPY(size int64, h *npyHeader) error {
	if h.fortran {
		return fmt.Errorf("array of shape %v is in Fortran order; voxlab reads C order (save it with np.save(path, np.ascontiguousarray(a)))", h.shape)
	}
	need, _ := product(h.shape, h.dtype.Size())
	if size < h.dataOffset || size-h.dataOffset < need {
		return fmt.Errorf("truncated: the header promises %d bytes of data (shape %v of %s) from byte %d, the file has %d bytes", need, h.shape, h.descr, h.dataOffset, size)
	}
	return nil
}

func (h *npyHeader) layout() layout {
	return layout{offset: h.dataOffset, elem: h.dtype.Size(), bigEndian: h.bigEndian}
}

func openNPY(path string) (*Volume, error) {
	f, h, err := npyFile(path)
	if err != nil {
		return nil, err
	}
	var shape [3]int
	switch len(h.shape) {
	case 2:
		shape = [3]int{1, h.shape[0], h.shape[1]}
	case 3:
		shape = [3]int{h.shape[0], h.shape[1], h.shape[2]}
	case 4:
		f.Close()
		return nil, fmt.Errorf("%s: a 4D array %v is a stack of maps, not one volume: the viewer and distance take stacks of maps; this step needs a 3D volume", path, h.shape)
	default:
		f.Close()
		return nil, fmt.Errorf("%s: array of shape %v: voxlab opens 2D and 3D arrays as volumes", path, h.shape)
	}
	info := Info{Shape: shape, DType: h.dtype}
	return New(path, &rawSource{info: info, path: path, r: f, c: f, layout: h.layout()}), nil
}

func inspectNPY(path string) (*Description, error) {
	f, h, err := npyFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d := &Description{Path: path, Format: "npy", Shape: h.shape, DType: h.dtype.String()}
	order := "little"
	if h.bigEndian {
		order = "big"
	}
	d.Header = []Field{
		{"version", fmt.Sprintf("%d.%d", h.major, h.minor)},
		{"descr", h.descr},
		{"byte order", order},
		{"data at", "byte " + strconv.FormatInt(h.dataOffset, 10)},
	}
	switch len(h.shape) {
	case 2, 3:
		d.Volume = true
	case 4:
		d.Maps = h.shape[0]
	}
	return d, nil
}

// npyHeaderBytes builds a version 1.0 header (2.0 when it does not fit)
// for a little-endian C-order array, padded so the data start on a
// 64-byte boundary as NumPy does.
func npyHeaderBytes(dt DType, shape []int) ([]byte, error) {
	descr := map[DType]string{Uint8: "|u1", Int8: "|i1", Uint16: "<u2", Int16: "<i2",
		Uint32: "<u4", Int32: "<i4", Float32: "<f4", Float64: "<f8"}[dt]
	if descr == "" {
		return nil, fmt.Errorf("NPY: unsupported dtype %s", dt)
	}
	dims := make([]string, len(shape))
	for i, n := range shape {
		dims[i] = strconv.Itoa(n)
	}
	tuple := strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, tuple)
	for _, pre := range []int{10, 12} {
		total := (pre + len(dict) + 1 + 63) / 64 * 64
		hlen := total - pre
		if pre == 10 && hlen > 0xffff {
			continue
		}
		out := make([]byte, 0, total)
		out = append(out, npyMagic...)
		if pre == 10 {
			out = append(out, 1, 0)
			out = binary.LittleEndian.AppendUint16(out, uint16(hlen))
		} else {
			out = append(out, 2, 0)
			out = binary.LittleEndian.AppendUint32(out, uint32(hlen))
		}
		out = append(out, dict...)
		for len(out) < total-1 {
			out = append(out, ' ')
		}
		return append(out, '\n'), nil
	}
	return nil, errors.New("NPY header too long")
}

// CreateNPY starts writing a 3D C-order little-endian NPY file.
func CreateNPY(path string, info Info) (Writer, error) {
	return createNPY(path, info, info.Shape[:])
}

func createNPY(path string, info Info, shape []int) (Writer, error) {
	if err := info.Validate(); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	hdr, err := npyHeaderBytes(info.DType, shape)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return newSeqWriter(path, info, hdr)
}
