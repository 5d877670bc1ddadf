package volume

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/outfile"
)

// The MRC2014 format (Cheng et al. 2015, J. Struct. Biol. 192:146,
// https://www.ccpem.ac.uk/mrc_format/mrc2014.php): a 1024-byte header of
// 32-bit words, an extended header of NSYMBT bytes, then the data, columns
// (x) fastest. voxlab reads modes 0 (int8), 1 (int16), 2 (float32) and 6
// (uint16). Modes 0 and 1 are signed, which no unsigned voxlab type holds,
// so they are read as float32 (exactly: every int8 and int16 value is a
// float32). The voxel size is CELLA / (MX, MY, MZ); NXSTART and ORIGIN are
// ignored. Written by hand: no Go library reads MRC lazily.

const mrcHeaderSize = 1024

func init() {
	RegisterFormat(singleVolume("mrc", []string{".mrc", ".mrcs", ".map", ".rec"}, "MRC files hold one volume", openMRC, inspectMRC, CreateMRC))
}

// mrcHeader holds the header words voxlab uses.
type mrcHeader struct {
	n         [3]int // nx, ny, nz
	mode      int
	m         [3]int     // mx, my, mz
	cella     [3]float32 // x, y, z lengths
	axes      [3]int     // mapc, mapr, maps
	ispg      int
	nsymbt    int64
	exttyp    string
	nversion  int
	bigEndian bool
	dmin      float32
	dmax      float32
	dmean     float32
	rms       float32
	labels    []string
}

// parseMRCHeader parses and checks a 1024-byte MRC header.
func parseMRCHeader(b []byte) (*mrcHeader, error) {
	if len(b) < mrcHeaderSize {
		return nil, fmt.Errorf("not an MRC file: %d bytes, shorter than the %d-byte header", len(b), mrcHeaderSize)
	}
	if m := string(b[208:212]); m != "MAP " && m != "MAP\x00" {
		return nil, fmt.Errorf("not an MRC file: bytes 208-211 are %q, not the MRC2014 map ID \"MAP \"", m)
	}
	h := &mrcHeader{}
	switch b[212] {
	case 0x44, 0x41: // little endian (0x44 0x41 is written by some older programs)
	case 0x11:
		h.bigEndian = true
	default:
		// No usable machine stamp: the mode word decides (it is a small
		// number in the right byte order).
		h.bigEndian = binary.LittleEndian.Uint32(b[12:]) > 0xffff
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if h.bigEndian {
		bo = binary.BigEndian
	}
	word := func(i int) int { return int(int32(bo.Uint32(b[4*i:]))) }
	real := func(i int) float32 { return math.Float32frombits(bo.Uint32(b[4*i:])) }
	for i := range 3 {
		h.n[i] = word(i)
		h.m[i] = word(7 + i)
		h.cella[i] = real(10 + i)
		h.axes[i] = word(16 + i)
	}
	h.mode = word(3)
	h.dmin, h.dmax, h.dmean = real(19), real(20), real(21)
	h.ispg = word(22)
	h.nsymbt = int64(word(23))
	h.exttyp = strings.TrimRight(string(b[104:108]), "\x00 ")
	h.nversion = word(27)
	h.rms = real(54)
	nlabl := min(max(word(55), 0), 10)
	for i := range nlabl {
		h.labels = append(h.labels, strings.TrimRight(string(b[224+80*i:224+80*(i+1)]), "\x00 "))
	}
	return h, h.check()
}

func (h *mrcHeader) check() error {
	if h.n[0] <= 0 || h.n[1] <= 0 || h.n[2] <= 0 {
		return fmt.Errorf("MRC header: dimensions (nx, ny, nz) = %v must be positive", h.n)
	}
	if _, err := h.dtype(); err != nil {
		return err
	}
	if h.axes != [3]int{1, 2, 3} && h.axes != [3]int{} {
		return fmt.Errorf("MRC header: axis order (mapc, mapr, maps) = %v; voxlab reads only (1, 2, 3) (columns = x, rows = y, sections = z)", h.axes)
	}
	if h.nsymbt < 0 {
		return fmt.Errorf("MRC header: extended header size NSYMBT = %d is negative", h.nsymbt)
	}
	_, err := product([]int{h.n[2], h.n[1], h.n[0]}, h.elem())
	return err
}

// dtype maps the mode to the volume's element type.
func (h *mrcHeader) dtype() (DType, error) {
	switch h.mode {
	case 0:
		return Int8, nil
	case 1:
		return Int16, nil
	case 2, 12:
		return Float32, nil
	case 6:
		return Uint16, nil
	}
	name := map[int]string{3: "complex int16", 4: "complex float32", 101: "4-bit"}[h.mode]
	if name == "" {
		name = "unknown"
	}
	return InvalidDType, fmt.Errorf("MRC mode %d (%s) is not supported (voxlab reads modes 0, 1, 2, 6 and 12)", h.mode, name)
}

func (h *mrcHeader) elem() int {
	return map[int]int{0: 1, 1: 2, 2: 4, 6: 2, 12: 2}[h.mode]
}

func (h *mrcHeader) info() Info {
	dt, _ := h.dtype()
	in := Info{Shape: [3]int{h.n[2], h.n[1], h.n[0]}, DType: dt}
	for i := range 3 {
		if h.m[i] > 0 && h.cella[i] > 0 {
			in.VoxelSize[2-i] = decimal32(h.cella[i]) / float64(h.m[i])
		}
	}
	return in
}

func (h *mrcHeader) layout() layout {
	l := layout{offset: mrcHeaderSize + h.nsymbt, elem: h.elem(), bigEndian: h.bigEndian}
	if h.mode == 12 {
		l.conv = convFloat16F32
	}
	return l
}

// readMRCHeader reads and checks the header of path, including that the
// file holds all the data it promises.
func readMRCHeader(path string, r io.ReaderAt, size int64) (*mrcHeader, error) {
	buf := make([]byte, mrcHeaderSize)
	n, err := r.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	h, err := parseMRCHeader(buf[:n])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkSize(path, size, mrcHeaderSize+h.nsymbt, h.info(), h.elem()); err != nil {
		return nil, err
	}
	return h, nil
}

func mrcFile(path string) (*os.File, *mrcHeader, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, nil, err
	}
	h, err := readMRCHeader(path, f, size)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, h, nil
}

func openMRC(path string) (*Volume, error) {
	f, h, err := mrcFile(path)
	if err != nil {
		return nil, err
	}
	return New(path, &rawSource{info: h.info(), path: path, r: f, c: f, layout: h.layout()}), nil
}

func inspectMRC(path string) (*Description, error) {
	f, h, err := mrcFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	in := h.info()
	d := &Description{Path: path, Format: "mrc", Shape: in.Shape[:], DType: in.DType.String(),
		VoxelSize: voxelSlice(in.VoxelSize), Volume: true}
	order := "little"
	if h.bigEndian {
		order = "big"
	}
	stored := map[int]string{0: "int8", 1: "int16", 2: "float32", 6: "uint16", 12: "float16"}[h.mode]
	d.Header = []Field{
		{"mode", fmt.Sprintf("%d (%s stored, read as %s)", h.mode, stored, in.DType)},
		{"byte order", order},
		{"sampling", fmt.Sprintf("%d, %d, %d (mx, my, mz)", h.m[0], h.m[1], h.m[2])},
		{"cell", fmt.Sprintf("%g, %g, %g Å", h.cella[0], h.cella[1], h.cella[2])},
		{"space group", strconv.Itoa(h.ispg)},
		{"ext header", fmt.Sprintf("%d bytes %s", h.nsymbt, h.exttyp)},
		{"min/max/mean", fmt.Sprintf("%g / %g / %g", h.dmin, h.dmax, h.dmean)},
	}
	for _, l := range h.labels {
		d.Header = append(d.Header, Field{"label", l})
	}
	if n := stackCount(path, h); n > 1 {
		d.Maps = n
	}
	return d, nil
}

// stackCount is the number of maps in an MRC file: nz/mz for a volume
// stack (space group 401 and up, MRC2014), nz/nx for a ".mrcs" image
// stack of cubes, else 1; 0 when the header's sizes do not divide.
func stackCount(path string, h *mrcHeader) int {
	switch {
	case h.ispg >= 401 && h.m[2] > 0:
		if h.n[2]%h.m[2] == 0 {
			return h.n[2] / h.m[2]
		}
		return 0
	case strings.EqualFold(filepath.Ext(path), ".mrcs") && h.n[2] > 1:
		if h.n[0] == h.n[1] && h.n[2]%h.n[0] == 0 {
			return h.n[2] / h.n[0]
		}
		return 0
	}
	return 1
}

// mrcWriter streams float32 (mode 2) or uint16 (mode 6) planes and writes
// the header at Commit, when the statistics are known.
type mrcWriter struct {
	*seqWriter
	stats mrcStats
}

// mrcStats accumulates min, max, mean and RMS deviation (the header's
// DMIN, DMAX, DMEAN, RMS) in one pass: sums of x and x² in float64.
type mrcStats struct {
	n          int64
	min, max   float64
	sum, sumsq float64
}

func (s *mrcStats) add(dt DType, b []byte) {
	if s.n == 0 {
		s.min, s.max = math.Inf(1), math.Inf(-1)
	}
	switch dt {
	case Float32:
		for _, v := range Float32s(b) {
			s.one(float64(v))
		}
	case Uint16:
		for _, v := range Uint16s(b) {
			s.one(float64(v))
		}
	}
}

func (s *mrcStats) one(x float64) {
	s.n++
	s.min = min(s.min, x)
	s.max = max(s.max, x)
	s.sum += x
	s.sumsq += x * x
}

// CreateMRC starts writing an MRC2014 file: float32 volumes as mode 2,
// uint16 as mode 6. The voxel size goes into CELLA. A ".mrcs" path is
// marked as an image stack (space group 0).
func CreateMRC(path string, info Info) (Writer, error) {
	ispg := 1
	if strings.EqualFold(filepath.Ext(path), ".mrcs") {
		ispg = 0
	}
	return createMRC(path, info, ispg, info.Shape[0])
}

// createMRC writes the space group ispg and MZ = mz (the planes of one
// volume: nz for a volume or an image stack, the map edge for a volume
// stack, space group 401).
func createMRC(path string, info Info, ispg, mz int) (Writer, error) {
	var mode int
	switch info.DType {
	case Float32:
		mode = 2
	case Uint16:
		mode = 6
	default:
		return nil, fmt.Errorf("create %s: MRC files are written as float32 (mode 2) or uint16 (mode 6), not %s", path, info.DType)
	}
	for i := range 3 {
		if info.Shape[i] > math.MaxInt32 {
			return nil, fmt.Errorf("create %s: dimension %d does not fit a 32-bit MRC header", path, info.Shape[i])
		}
	}
	sw, err := newSeqWriter(path, info, make([]byte, mrcHeaderSize))
	if err != nil {
		return nil, err
	}
	w := &mrcWriter{seqWriter: sw}
	sw.observe = func(b []byte) { w.stats.add(info.DType, b) }
	sw.finish = func(f *outfile.File) error {
		_, err := f.WriteAt(mrcHeaderBytes(info, mode, ispg, mz, w.stats), 0)
		return err
	}
	return w, nil
}

// mrcHeaderBytes builds a little-endian MRC2014 header.
func mrcHeaderBytes(info Info, mode, ispg, mz int, st mrcStats) []byte {
	b := make([]byte, mrcHeaderSize)
	le := binary.LittleEndian
	putI := func(i, v int) { le.PutUint32(b[4*i:], uint32(int32(v))) }
	putF := func(i int, v float64) { le.PutUint32(b[4*i:], math.Float32bits(float32(v))) }
	nx, ny, nz := info.Shape[2], info.Shape[1], info.Shape[0]
	for i, n := range []int{nx, ny, nz} {
		m := []int{nx, ny, mz}[i]
		putI(i, n)
		putI(7+i, m)
		putF(10+i, float64(m)*info.VoxelSize[2-i])
		putF(13+i, 90)
		putI(16+i, i+1)
	}
	putI(3, mode)
	mean := st.sum / float64(max(st.n, 1))
	rms := math.Sqrt(max(st.sumsq/float64(max(st.n, 1))-mean*mean, 0))
	putF(19, st.min)
	putF(20, st.max)
	putF(21, mean)
	putI(22, ispg)
	putI(27, 20140) // NVERSION: MRC2014, format version 0
	copy(b[208:], "MAP ")
	b[212], b[213] = 0x44, 0x44
	putF(54, rms)
	putI(55, 1)
	copy(b[224:], "voxlab")
	return b
}

// decimal32 widens a float32 through its shortest decimal form, so a cell
// written as 137.344 Å gives 2.146 Å voxels, not 2.1459999.
func decimal32(f float32) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	return v
}
