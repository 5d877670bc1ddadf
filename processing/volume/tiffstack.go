package volume

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

func init() {
	f := singleVolume("tiff", []string{".tif", ".tiff", ".btf", ".tf8"}, "TIFF files have no datasets", openTIFF, inspectTIFF, CreateTIFF)
	// The spec's internal path picks an OME-TIFF's channel.
	f.Open = func(path, dataset string) (*Volume, error) {
		c, err := parseChannel(path, dataset, "TIFF files have no datasets")
		if err != nil {
			return nil, err
		}
		return openTIFFChannel(path, c)
	}
	f.Inspect = func(path, dataset string) (*Description, error) {
		c, err := parseChannel(path, dataset, "the file has no datasets")
		if err != nil {
			return nil, err
		}
		fl, tf, err := tiffFileOf(path, c)
		if err != nil {
			return nil, err
		}
		defer fl.Close()
		return tf.describe(path, "tiff"), nil
	}
	RegisterFormat(f)
}

// tiffFileOf opens and parses a TIFF file, keeps the pages of channel c
// (of an OME-TIFF; 0 for plain TIFF) and checks that they form a stack:
// one size and dtype throughout.
func tiffFileOf(path string, c int) (*os.File, *tiffFile, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, nil, err
	}
	tf, err := readTIFF(path, f, size, 0)
	if err == nil {
		err = tf.expandImageJ(size)
	}
	if err == nil {
		err = tf.selectChannel(c)
	}
	if err == nil {
		err = tf.checkStack()
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, tf, nil
}

func (tf *tiffFile) checkStack() error {
	p0 := tf.pages[0]
	for i, p := range tf.pages[1:] {
		if p.width != p0.width || p.height != p0.height || p.dtype != p0.dtype {
			return fmt.Errorf("%s: page %d is %d x %d %s but page 0 is %d x %d %s; a stack needs one size and type", tf.path, i+1, p.width, p.height, p.dtype, p0.width, p0.height, p0.dtype)
		}
	}
	return nil
}

// expandImageJ handles ImageJ's files of over 4 GB, which hold one IFD and
// the other planes' data right after the first plane's ("images=N").
func (tf *tiffFile) expandImageJ(size int64) error {
	p := tf.pages[0]
	n, err := strconv.Atoi(imageJ(p.desc)["images"])
	if len(tf.pages) != 1 || err != nil || n <= 1 || len(p.offsets) != 1 || p.compression != 1 || p.samples != 1 {
		return nil
	}
	pb := p.planeBytes()
	if int64(n) > (size-p.offsets[0])/pb {
		return fmt.Errorf("%s is truncated: its ImageJ description promises %d images of %d bytes from byte %d, the file has %d bytes", tf.path, n, pb, p.offsets[0], size)
	}
	for i := 1; i < n; i++ {
		q := *p
		q.offsets = []int64{p.offsets[0] + int64(i)*pb}
		tf.pages = append(tf.pages, &q)
	}
	return nil
}

func (tf *tiffFile) info() Info {
	p := tf.pages[0]
	vs := tf.firstPage().voxelSize()
	if tf.ome != nil && !tf.ome.imageJ {
		vs = tf.ome.voxelSize()
	}
	return Info{Shape: [3]int{len(tf.pages), p.height, p.width}, DType: p.dtype, VoxelSize: vs}
}

// tiffSource reads pages of one multi-page TIFF file.
type tiffSource struct {
	info Info
	tf   *tiffFile
	r    io.ReaderAt
	c    io.Closer
	sb   stripBuf // compressed strips, reused from page to page
}

func (s *tiffSource) Info() Info { return s.info }

// ReadBufferBytes returns the most memory the source holds besides the
// caller's buffer: one stored strip of a compressed page.
func (s *tiffSource) ReadBufferBytes() int64 {
	var n int64
	for _, p := range s.tf.pages {
		n = max(n, p.stripBytes())
	}
	return n
}

func (s *tiffSource) ReadSlab(z0, z1 int, dst []byte) error {
	if err := CheckSlab(s.info, z0, z1, len(dst)); err != nil {
		return err
	}
	pb := s.info.PlaneBytes()
	for z := z0; z < z1; z++ {
		part := dst[int64(z-z0)*pb : int64(z-z0+1)*pb]
		if err := s.tf.pages[z].readInto(s.r, s.tf.bigEndian, part, &s.sb); err != nil {
			return fmt.Errorf("%s page %d: %w", s.tf.path, z, err)
		}
	}
	return nil
}

func (s *tiffSource) Close() error {
	if s.c == nil {
		return nil
	}
	c := s.c
	s.c = nil
	return c.Close()
}

func openTIFF(path string) (*Volume, error) { return openTIFFChannel(path, 0) }

func openTIFFChannel(path string, c int) (*Volume, error) {
	f, tf, err := tiffFileOf(path, c)
	if err != nil {
		return nil, err
	}
	return New(path, &tiffSource{info: tf.info(), tf: tf, r: f, c: f}), nil
}

func inspectTIFF(path string) (*Description, error) {
	f, tf, err := tiffFileOf(path, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return tf.describe(path, "tiff"), nil
}

func (tf *tiffFile) describe(path, format string) *Description {
	in := tf.info()
	d := &Description{Path: path, Format: format, Shape: in.Shape[:], DType: in.DType.String(),
		VoxelSize: voxelSlice(in.VoxelSize), Volume: true}
	kind, order := "classic TIFF", "little"
	if tf.bigTIFF {
		kind = "BigTIFF"
	}
	if tf.bigEndian {
		order = "big"
	}
	p := tf.pages[0]
	d.Header = []Field{
		{"variant", kind},
		{"byte order", order},
		{"pages", pagesText(tf)},
	}
	if p.tileW > 0 {
		d.Header = append(d.Header, Field{"tiles", fmt.Sprintf("%d x %d (rows x columns), %d per page", p.tileH, p.tileW, len(p.offsets))})
	} else {
		d.Header = append(d.Header, Field{"strips", fmt.Sprintf("%d per page, %d rows each", len(p.offsets), p.rowsPerStrip)})
	}
	d.Header = append(d.Header, Field{"compression", p.compressionName()})
	if n := tf.channels(); n > 1 {
		var names []string
		for i := range n {
			name := strconv.Itoa(i)
			if px := tf.ome; px != nil && i < len(px.Channels) && px.Channels[i].Name != "" {
				name += " " + px.Channels[i].Name
			}
			names = append(names, name)
		}
		d.Header = append(d.Header, Field{"channels", fmt.Sprintf("%d (%s); reading channel %d, pick one as FILE:/channel/N", n, strings.Join(names, ", "), tf.channel)})
	} else {
		d.Header = append(d.Header, Field{"channels", "1"})
	}
	if tf.samples > 1 {
		how := map[int]string{1: "interleaved", 2: "stored separately"}[tf.planar]
		d.Header = append(d.Header, Field{"samples", fmt.Sprintf("%d per pixel, %s", tf.samples, how)})
	}
	if px := tf.ome; px != nil {
		if !px.imageJ {
			d.Format = "ome-tiff"
		}
		d.Header = append(d.Header, Field{"dimensions", fmt.Sprintf("Z %d, C %d, T %d (order %s)", px.SizeZ, tf.channels(), px.SizeT, px.DimensionOrder)})
		if px.SizeT > 1 {
			d.Notes = append(d.Notes, fmt.Sprintf("%d time points: voxlab reads the first", px.SizeT))
		}
	}
	if desc := tf.firstPage().desc; desc != "" {
		d.Header = append(d.Header, Field{"description", clip(strings.ReplaceAll(desc, "\n", " "))})
	}
	return d
}

// tiffLayout is the fixed layout of a written multi-page TIFF. Every
// page's size is known in advance, so each IFD can point to the next one
// and the file is written front to back in one pass: for each page its
// IFD, the IFD's out-of-line values, then the plane as one strip.
type tiffLayout struct {
	info       Info
	big        bool
	desc       string // the first page's ImageDescription
	firstBytes int64  // first IFD plus its values (it holds desc)
	ifdBytes   int64  // any other IFD plus its values
}

// tiffClassicLimit is the largest classic TIFF; SetBigTIFFThreshold
// lowers it in tests.
var tiffClassicLimit int64 = 1<<32 - 1

// CreateTIFF starts writing a multi-page TIFF: uncompressed planes of any
// voxlab type (SampleFormat 2 for the signed ones), one strip per page, little endian. Files that
// would pass 4 GiB are written as BigTIFF. The voxel size (microns) goes
// into ImageJ-style metadata that Fiji and tifffile read back.
func CreateTIFF(path string, info Info) (Writer, error) {
	return createTIFF(path, info, false)
}

func createTIFF(path string, info Info, bigTIFF bool) (Writer, error) {
	if err := info.Validate(); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	l := newTIFFLayout(info, true, bigTIFF)
	sw, err := newSeqWriter(path, info, l.header())
	if err != nil {
		return nil, err
	}
	sw.before = func(z int, f io.Writer) error {
		_, err := f.Write(l.ifd(z))
		return err
	}
	return sw, nil
}

// newTIFFLayout lays out a file as classic TIFF when it fits under 4 GiB
// and bigTIFF is false, else as BigTIFF.
func newTIFFLayout(info Info, imagej, bigTIFF bool) tiffLayout {
	l := tiffLayout{info: info}
	if imagej {
		l.desc = imageJDescription(info)
	}
	for _, big := range []bool{bigTIFF, true} {
		l.big = big
		l.firstBytes = int64(len(l.ifdAt(l.headerBytes(), 0)))
		l.ifdBytes = int64(len(l.ifdAt(0, 0)))
		if l.pageStart(info.Shape[0]) <= tiffClassicLimit {
			break
		}
	}
	return l
}

func (l tiffLayout) headerBytes() int64 {
	if l.big {
		return 16
	}
	return 8
}

func (l tiffLayout) header() []byte {
	le := binary.LittleEndian
	if l.big {
		b := []byte("II")
		b = le.AppendUint16(b, 43)
		b = le.AppendUint16(b, 8)
		b = le.AppendUint16(b, 0)
		return le.AppendUint64(b, 16)
	}
	b := []byte("II")
	b = le.AppendUint16(b, 42)
	return le.AppendUint32(b, 8)
}

// pageStart is the offset of page z's IFD (for z = pages: the file size).
func (l tiffLayout) pageStart(z int) int64 {
	if z == 0 {
		return l.headerBytes()
	}
	pb := l.info.PlaneBytes()
	return l.headerBytes() + l.firstBytes + pb + int64(z-1)*(l.ifdBytes+pb)
}

func (l tiffLayout) ifd(z int) []byte {
	next := int64(0)
	if z+1 < l.info.Shape[0] {
		next = l.pageStart(z + 1)
	}
	return l.ifdAt(l.pageStart(z), next)
}

// ifdAt builds the IFD of a page starting at off, pointing to next.
func (l tiffLayout) ifdAt(off, next int64) []byte {
	in := l.info
	bits := uint64(in.DType.Size() * 8)
	format := uint64(1)
	switch {
	case in.DType.IsFloat():
		format = 3
	case in.DType.IsSigned():
		format = 2
	}
	desc := ""
	if off == l.headerBytes() {
		desc = l.desc // ImageJ reads the first page's description
	}
	type ent struct {
		tag, typ uint16
		vals     []uint64 // integers, or num/den pairs for RATIONAL
		ascii    string
	}
	xres, yres := rationalOf(in.VoxelSize[2]), rationalOf(in.VoxelSize[1])
	ents := []ent{
		{tag: tagNewSubfileType, typ: 4, vals: []uint64{0}},
		{tag: tagImageWidth, typ: 4, vals: []uint64{uint64(in.Shape[2])}},
		{tag: tagImageLength, typ: 4, vals: []uint64{uint64(in.Shape[1])}},
		{tag: tagBitsPerSample, typ: 3, vals: []uint64{bits}},
		{tag: tagCompression, typ: 3, vals: []uint64{1}},
		{tag: tagPhotometric, typ: 3, vals: []uint64{1}},
	}
	if desc != "" {
		ents = append(ents, ent{tag: tagDescription, typ: 2, ascii: desc})
	}
	offType := uint16(4)
	if l.big {
		offType = 16
	}
	ents = append(ents,
		ent{tag: tagStripOffsets, typ: offType, vals: []uint64{0}}, // patched below
		ent{tag: tagSamplesPerPixel, typ: 3, vals: []uint64{1}},
		ent{tag: tagRowsPerStrip, typ: 4, vals: []uint64{uint64(in.Shape[1])}},
		ent{tag: tagStripByteCounts, typ: offType, vals: []uint64{uint64(in.PlaneBytes())}},
	)
	if xres != nil {
		ents = append(ents,
			ent{tag: tagXResolution, typ: 5, vals: xres},
			ent{tag: tagYResolution, typ: 5, vals: yres},
			ent{tag: tagResolutionUnit, typ: 3, vals: []uint64{1}})
	}
	ents = append(ents, ent{tag: tagSampleFormat, typ: 3, vals: []uint64{format}})

	le := binary.LittleEndian
	countSize, entrySize, nextSize, inline := 2, 12, 4, 4
	if l.big {
		countSize, entrySize, nextSize, inline = 8, 20, 8, 8
	}
	fixed := countSize + len(ents)*entrySize + nextSize
	var out, extra []byte
	if l.big {
		out = le.AppendUint64(out, uint64(len(ents)))
	} else {
		out = le.AppendUint16(out, uint16(len(ents)))
	}
	putUint := func(b []byte, typ uint16, v uint64) []byte {
		switch typ {
		case 3:
			return le.AppendUint16(b, uint16(v))
		case 4, 5:
			return le.AppendUint32(b, uint32(v))
		}
		return le.AppendUint64(b, v)
	}
	for _, e := range ents {
		var val []byte
		count := uint64(len(e.vals))
		switch {
		case e.typ == 2:
			val = append([]byte(e.ascii), 0)
			count = uint64(len(val))
		case e.typ == 5:
			count = uint64(len(e.vals) / 2)
			for _, v := range e.vals {
				val = putUint(val, 5, v)
			}
		default:
			for _, v := range e.vals {
				val = putUint(val, e.typ, v)
			}
		}
		out = le.AppendUint16(out, e.tag)
		out = le.AppendUint16(out, e.typ)
		if l.big {
			out = le.AppendUint64(out, count)
		} else {
			out = le.AppendUint32(out, uint32(count))
		}
		if len(val) <= inline {
			slot := make([]byte, inline)
			copy(slot, val)
			out = append(out, slot...)
			continue
		}
		ptr := uint64(off) + uint64(fixed) + uint64(len(extra))
		if l.big {
			out = le.AppendUint64(out, ptr)
		} else {
			out = le.AppendUint32(out, uint32(ptr))
		}
		extra = append(extra, val...)
		if len(extra)%2 == 1 {
			extra = append(extra, 0) // values start on word boundaries
		}
	}
	if l.big {
		out = le.AppendUint64(out, uint64(next))
	} else {
		out = le.AppendUint32(out, uint32(next))
	}
	out = append(out, extra...)
	// The strip follows the IFD and its values.
	stripAt := uint64(off) + uint64(len(out))
	patchStripOffset(out, countSize, entrySize, tagStripOffsets, stripAt, l.big)
	return out
}

func patchStripOffset(ifd []byte, countSize, entrySize int, tag uint16, v uint64, big bool) {
	le := binary.LittleEndian
	for i := countSize; i+entrySize <= len(ifd); i += entrySize {
		if le.Uint16(ifd[i:]) == tag {
			if big {
				le.PutUint64(ifd[i+12:], v)
			} else {
				le.PutUint32(ifd[i+8:], uint32(v))
			}
			return
		}
	}
}

// rationalOf returns pixels per micron for a voxel size in microns as a
// TIFF RATIONAL (num, den), or nil when the size is unknown.
func rationalOf(vs float64) []uint64 {
	if vs <= 0 || vs > 4e3 {
		return nil
	}
	return []uint64{1e6, uint64(math.Round(vs * 1e6))}
}

// imageJDescription is the ImageJ hyperstack header: N slices, and the
// voxel size in microns when known.
func imageJDescription(in Info) string {
	if in.DType == Float64 {
		return "" // ImageJ has no 64-bit images
	}
	n := in.Shape[0]
	s := fmt.Sprintf("ImageJ=1.11a\nimages=%d\n", n)
	if n > 1 {
		s += fmt.Sprintf("slices=%d\n", n)
	}
	if in.VoxelSize[1] > 0 && in.VoxelSize[2] > 0 {
		s += "unit=micron\n"
		if in.VoxelSize[0] > 0 {
			s += "spacing=" + strconv.FormatFloat(in.VoxelSize[0], 'g', -1, 64) + "\n"
		}
	}
	return s + "loop=false\n"
}

// pagesText counts the pages read, and the file's when a channel is only
// some of them.
func pagesText(tf *tiffFile) string {
	if tf.allPages > len(tf.pages) {
		return fmt.Sprintf("%d (channel %d's, of %d in the file)", len(tf.pages), tf.channel, tf.allPages)
	}
	return strconv.Itoa(len(tf.pages))
}
