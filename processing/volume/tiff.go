package volume

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/volume/fileio"
)

// A hand-written baseline TIFF 6.0 parser (classic and BigTIFF) for
// grayscale images in strips or tiles, uncompressed or compressed with
// LZW, Deflate or PackBits (tiffcodec.go), of 8-, 16- and 32-bit
// unsigned and signed integers (SampleFormat 1 and 2) and 32- and 64-bit
// floats; one channel at a time of OME-TIFF, ImageJ hyperstacks and
// images of several samples per pixel, interleaved or separate (ome.go).
// golang.org/x/image/tiff decodes only the first page into an
// image.Image and has no float32 samples, so it can neither read a
// multi-page stack nor read one page of it lazily; here only IFDs are parsed at open and a page's strips are
// read straight into the caller's buffer.

// TIFF tags voxlab reads.
const (
	tagNewSubfileType  = 254
	tagImageWidth      = 256
	tagImageLength     = 257
	tagBitsPerSample   = 258
	tagCompression     = 259
	tagPhotometric     = 262
	tagDescription     = 270
	tagStripOffsets    = 273
	tagSamplesPerPixel = 277
	tagRowsPerStrip    = 278
	tagStripByteCounts = 279
	tagXResolution     = 282
	tagYResolution     = 283
	tagResolutionUnit  = 296
	tagPredictor       = 317
	tagTileWidth       = 322
	tagTileLength      = 323
	tagTileOffsets     = 324
	tagTileByteCounts  = 325
	tagPlanarConfig    = 284
	tagSampleFormat    = 339
)

// tiffTypeSize is the byte size of each TIFF field type (0: unknown).
var tiffTypeSize = [19]int{0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4, 0, 0, 8, 8, 8}

var tiffCompression = map[uint64]string{
	2: "CCITT RLE", 3: "CCITT Group 3 fax", 4: "CCITT Group 4 fax", 5: "LZW",
	6: "old-style JPEG", 7: "JPEG", 8: "Deflate", 32773: "PackBits",
	32946: "Deflate", 34712: "JPEG 2000", 34887: "LERC", 34925: "LZMA",
	50000: "Zstandard", 50001: "WebP",
}

// tiffFile is a parsed TIFF: its byte order and the image pages.
type tiffFile struct {
	path      string
	bigTIFF   bool
	bigEndian bool
	pages     []*tiffPage
	// ome is an OME-TIFF's Pixels (nil for plain TIFF); pages then hold
	// only channel's planes.
	ome     *omePixels
	channel int
	// first is the file's first page, whose description holds the
	// metadata, when pages no longer starts with it.
	first    *tiffPage
	allPages int
	// samples per pixel of the pages as stored, planar how.
	samples, planar int
}

// firstPage returns the file's first page.
func (tf *tiffFile) firstPage() *tiffPage {
	if tf.first != nil {
		return tf.first
	}
	return tf.pages[0]
}

// tiffPage is one image in strips or tiles, of one or more samples per
// pixel.
type tiffPage struct {
	width, height int
	dtype         DType
	rowsPerStrip  int
	// tileW and tileH are the tile shape of a tiled page (0: strips);
	// offsets and counts then locate the tiles, row of tiles by row.
	tileW, tileH int
	// samples per pixel, stored interleaved ("contig", planar 1) or one
	// sample's strips after another's (planar 2; pickSample keeps one
	// sample's, making the page grayscale); sample is the one a contig
	// page is read for.
	samples, planar, sample int
	// stride is the distance between a sample and the one it was
	// differenced against by the predictor, in samples (0 or 1: the one
	// before it; samples for an interleaved page read wide).
	stride int
	// compression is the TIFF code (1 none, 5 LZW, 8 or 32946 Deflate,
	// 32773 PackBits); predictor 1 none, 2 horizontal differencing.
	compression, predictor int
	// offsets and counts locate the strips; counts are the bytes stored
	// (compressed), or for uncompressed strips the bytes of their rows.
	offsets    []int64
	counts     []int64
	desc       string
	xres, yres float64 // pixels per resolution unit, 0 if absent
	resUnit    int
}

// tiffReader reads the structures of one file.
type tiffReader struct {
	path string
	r    io.ReaderAt
	size int64
	bo   binary.ByteOrder
	big  bool
}

// tiffEntry is an IFD entry; value holds the value itself when it fits,
// else its offset.
type tiffEntry struct {
	tag, typ uint16
	count    uint64
	value    [8]byte
}

// readTIFF parses the header and up to maxPages image pages (all when
// maxPages is 0), skipping reduced-resolution images (thumbnails).
func readTIFF(path string, r io.ReaderAt, size int64, maxPages int) (*tiffFile, error) {
	tr := &tiffReader{path: path, r: r, size: size}
	var hdr [16]byte
	if n, _ := r.ReadAt(hdr[:], 0); n < 8 {
		return nil, fmt.Errorf("%s: not a TIFF file: only %d bytes", path, n)
	}
	switch string(hdr[:2]) {
	case "II":
		tr.bo = binary.LittleEndian
	case "MM":
		tr.bo = binary.BigEndian
	default:
		return nil, fmt.Errorf("%s: not a TIFF file: it starts with %q, not II or MM", path, hdr[:4])
	}
	tf := &tiffFile{path: path, bigEndian: hdr[0] == 'M'}
	var next uint64
	switch v := tr.bo.Uint16(hdr[2:]); v {
	case 42:
		next = uint64(tr.bo.Uint32(hdr[4:]))
	case 43:
		if tr.bo.Uint16(hdr[4:]) != 8 || size < 16 {
			return nil, fmt.Errorf("%s: damaged BigTIFF header", path)
		}
		tr.big, tf.bigTIFF = true, true
		next = tr.bo.Uint64(hdr[8:])
	default:
		return nil, fmt.Errorf("%s: not a TIFF file: version %d is neither 42 (TIFF) nor 43 (BigTIFF)", path, v)
	}
	seen := map[uint64]bool{}
	// IFDs do not overlap, so together they hold at most the file's
	// bytes: a damaged chain of IFDs at distinct but overlapping offsets,
	// each claiming most of the file, would otherwise take time and
	// memory quadratic in the file's size to parse.
	ifdBytes := uint64(0)
	for ifd := 0; next != 0; ifd++ {
		if seen[next] {
			return nil, fmt.Errorf("%s: damaged TIFF: IFD %d loops back to byte %d", path, ifd, next)
		}
		seen[next] = true
		entries, nxt, n, err := tr.ifd(next)
		if err != nil {
			return nil, fmt.Errorf("%s: IFD %d: %w", path, ifd, err)
		}
		if ifdBytes += n; ifdBytes > uint64(size) {
			return nil, fmt.Errorf("%s: damaged TIFF: IFD %d overlaps the ones before it (together they claim more than the file's %d bytes)", path, ifd, size)
		}
		next = nxt
		if sub, ok := entries[tagNewSubfileType]; ok {
			if v, err := tr.uint(sub); err == nil && v&1 != 0 {
				continue // a reduced-resolution copy, not a plane
			}
		}
		p, err := tr.page(entries)
		if err != nil {
			return nil, fmt.Errorf("%s: page %d: %w", path, len(tf.pages), err)
		}
		tf.pages = append(tf.pages, p)
		if maxPages > 0 && len(tf.pages) >= maxPages {
			break
		}
	}
	if len(tf.pages) == 0 {
		return nil, fmt.Errorf("%s: the TIFF file holds no image", path)
	}
	return tf, nil
}

// ifd reads the IFD at off: its entries by tag, the next IFD's offset
// and the IFD's size in bytes.
func (t *tiffReader) ifd(off uint64) (map[uint16]tiffEntry, uint64, uint64, error) {
	countSize, entrySize, nextSize := 2, 12, 4
	if t.big {
		countSize, entrySize, nextSize = 8, 20, 8
	}
	head, err := t.bytes(off, uint64(countSize))
	if err != nil {
		return nil, 0, 0, err
	}
	var n uint64
	if t.big {
		n = t.bo.Uint64(head)
	} else {
		n = uint64(t.bo.Uint16(head))
	}
	if n == 0 || n > uint64(t.size)/uint64(entrySize) {
		return nil, 0, 0, fmt.Errorf("damaged: %d entries", n)
	}
	body, err := t.bytes(off+uint64(countSize), n*uint64(entrySize)+uint64(nextSize))
	if err != nil {
		return nil, 0, 0, err
	}
	entries := make(map[uint16]tiffEntry, n)
	for i := uint64(0); i < n; i++ {
		b := body[i*uint64(entrySize):]
		e := tiffEntry{tag: t.bo.Uint16(b), typ: t.bo.Uint16(b[2:])}
		if t.big {
			e.count = t.bo.Uint64(b[4:])
			copy(e.value[:], b[12:20])
		} else {
			e.count = uint64(t.bo.Uint32(b[4:]))
			copy(e.value[:4], b[8:12])
		}
		entries[e.tag] = e
	}
	tail := body[n*uint64(entrySize):]
	size := uint64(countSize) + uint64(len(body))
	if t.big {
		return entries, t.bo.Uint64(tail), size, nil
	}
	return entries, uint64(t.bo.Uint32(tail)), size, nil
}

// bytes reads n bytes at off, refusing ranges outside the file.
func (t *tiffReader) bytes(off, n uint64) ([]byte, error) {
	if off > uint64(t.size) || n > uint64(t.size)-off {
		return nil, fmt.Errorf("damaged or truncated: %d bytes at byte %d lie past the end of the file (%d bytes)", n, off, t.size)
	}
	b := make([]byte, n)
	if _, err := t.r.ReadAt(b, int64(off)); err != nil {
		return nil, err
	}
	return b, nil
}

// data returns an entry's value bytes.
func (t *tiffReader) data(e tiffEntry) ([]byte, error) {
	if int(e.typ) >= len(tiffTypeSize) || tiffTypeSize[e.typ] == 0 {
		return nil, fmt.Errorf("tag %d has unknown type %d", e.tag, e.typ)
	}
	sz := uint64(tiffTypeSize[e.typ])
	if e.count > uint64(t.size)/sz {
		return nil, fmt.Errorf("tag %d claims %d values, more than the file holds", e.tag, e.count)
	}
	n := sz * e.count
	inline := uint64(4)
	if t.big {
		inline = 8
	}
	if n <= inline {
		return e.value[:n], nil
	}
	var off uint64
	if t.big {
		off = t.bo.Uint64(e.value[:])
	} else {
		off = uint64(t.bo.Uint32(e.value[:]))
	}
	return t.bytes(off, n)
}

// uints decodes an unsigned integer entry.
func (t *tiffReader) uints(e tiffEntry) ([]uint64, error) {
	b, err := t.data(e)
	if err != nil {
		return nil, err
	}
	out := make([]uint64, e.count)
	for i := range out {
		switch e.typ {
		case 1, 7:
			out[i] = uint64(b[i])
		case 3:
			out[i] = uint64(t.bo.Uint16(b[2*i:]))
		case 4, 13:
			out[i] = uint64(t.bo.Uint32(b[4*i:]))
		case 16, 18:
			out[i] = t.bo.Uint64(b[8*i:])
		default:
			return nil, fmt.Errorf("tag %d has type %d, not an unsigned integer", e.tag, e.typ)
		}
	}
	return out, nil
}

func (t *tiffReader) uint(e tiffEntry) (uint64, error) {
	v, err := t.uints(e)
	if err != nil {
		return 0, err
	}
	if len(v) == 0 {
		return 0, fmt.Errorf("tag %d has no value", e.tag)
	}
	return v[0], nil
}

// rational decodes the first RATIONAL of an entry.
func (t *tiffReader) rational(e tiffEntry) float64 {
	if e.typ != 5 || e.count == 0 {
		return 0
	}
	b, err := t.data(e)
	if err != nil {
		return 0
	}
	num, den := t.bo.Uint32(b), t.bo.Uint32(b[4:])
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}

// page checks that an IFD is an image voxlab reads and records its strips.
func (t *tiffReader) page(en map[uint16]tiffEntry) (*tiffPage, error) {
	get := func(tag uint16, def uint64) (uint64, error) {
		e, ok := en[tag]
		if !ok {
			return def, nil
		}
		return t.uint(e)
	}
	p := &tiffPage{}
	w, err := get(tagImageWidth, 0)
	if err != nil {
		return nil, err
	}
	h, err := get(tagImageLength, 0)
	if err != nil {
		return nil, err
	}
	if w == 0 || h == 0 || w > math.MaxInt32 || h > math.MaxInt32 {
		return nil, fmt.Errorf("image size %d x %d is missing or invalid", w, h)
	}
	p.width, p.height = int(w), int(h)
	if c, err := get(tagCompression, 1); err != nil {
		return nil, err
	} else if !tiffCodecs[c] {
		name := tiffCompression[c]
		if name == "" {
			name = "unknown"
		}
		return nil, fmt.Errorf("compression %d (%s) is not supported: voxlab reads uncompressed, LZW, Deflate, PackBits and Zstandard TIFF (save with one of those, e.g. tifffile.imwrite(path, a, compression='zlib'))", c, name)
	} else {
		p.compression = int(c)
	}
	if pr, err := get(tagPredictor, 1); err != nil {
		return nil, err
	} else if pr != 1 && pr != 2 && pr != 3 {
		return nil, fmt.Errorf("predictor %d is not supported: voxlab undoes horizontal differencing (2) and the floating-point predictor (3)", pr)
	} else {
		p.predictor = int(pr)
	}
	if spp, err := get(tagSamplesPerPixel, 1); err != nil {
		return nil, err
	} else if spp == 0 || spp > 64 {
		return nil, fmt.Errorf("%d samples per pixel", spp)
	} else {
		p.samples = int(spp)
	}
	if pc, err := get(tagPlanarConfig, 1); err != nil {
		return nil, err
	} else if pc != 1 && pc != 2 {
		return nil, fmt.Errorf("planar configuration %d is neither 1 (interleaved) nor 2 (separate)", pc)
	} else {
		p.planar = int(pc)
	}
	if ph, err := get(tagPhotometric, 1); err != nil {
		return nil, err
	} else if ph > 2 || (ph == 2 && p.samples < 3) {
		return nil, fmt.Errorf("photometric interpretation %d (palette, CMYK, YCbCr, ...): voxlab reads grayscale images and the channels of RGB or multi-sample ones", ph)
	}
	if p.dtype, err = t.sampleType(en, get); err != nil {
		return nil, err
	}
	if p.predictor == 3 && !p.dtype.IsFloat() {
		return nil, fmt.Errorf("the floating-point predictor (3) on %s samples: it applies to float32 and float64 only (the file is damaged)", p.dtype)
	}
	if _, tiled := en[tagTileWidth]; tiled {
		err = t.tiles(p, en, get)
	} else {
		err = t.strips(p, en, get)
	}
	if err != nil {
		return nil, err
	}
	if e, ok := en[tagDescription]; ok && e.typ == 2 {
		if e.count > fileio.MetadataLimit {
			return nil, fmt.Errorf("ImageDescription of %d bytes is larger than voxlab's limit of %d MiB for metadata (the file is damaged)", e.count, fileio.MetadataLimit>>20)
		}
		if b, err := t.data(e); err == nil {
			p.desc = strings.TrimRight(string(b), "\x00")
		}
	}
	p.xres, p.yres = t.rational(en[tagXResolution]), t.rational(en[tagYResolution])
	ru, _ := get(tagResolutionUnit, 2)
	p.resUnit = int(ru)
	return p, nil
}

func (t *tiffReader) sampleType(en map[uint16]tiffEntry, get func(uint16, uint64) (uint64, error)) (DType, error) {
	bits, err := get(tagBitsPerSample, 1)
	if err != nil {
		return InvalidDType, err
	}
	format, err := get(tagSampleFormat, 1)
	if err != nil {
		return InvalidDType, err
	}
	for _, tag := range []uint16{tagBitsPerSample, tagSampleFormat} {
		if e, ok := en[tag]; ok && e.count > 1 {
			vs, err := t.uints(e)
			if err != nil {
				return InvalidDType, err
			}
			for _, v := range vs {
				if v != vs[0] {
					return InvalidDType, fmt.Errorf("samples of different types (tag %d: %v): voxlab reads samples of one type", tag, vs)
				}
			}
		}
	}
	switch {
	case format == 1 && bits == 8:
		return Uint8, nil
	case format == 1 && bits == 16:
		return Uint16, nil
	case format == 1 && bits == 32:
		return Uint32, nil
	case format == 2 && bits == 8:
		return Int8, nil
	case format == 2 && bits == 16:
		return Int16, nil
	case format == 2 && bits == 32:
		return Int32, nil
	case format == 3 && bits == 32:
		return Float32, nil
	case format == 3 && bits == 64:
		return Float64, nil
	}
	kind := map[uint64]string{1: "unsigned integer", 2: "signed integer", 3: "floating point"}[format]
	if kind == "" {
		kind = "sample format " + strconv.FormatUint(format, 10)
	}
	return InvalidDType, fmt.Errorf("%d-bit %s samples are not supported (voxlab reads 8-, 16- and 32-bit integers, signed or not, float32 and float64)", bits, kind)
}

// strips records the strip offsets and checks that each strip holds its
// rows and lies inside the file.
func (t *tiffReader) strips(p *tiffPage, en map[uint16]tiffEntry, get func(uint16, uint64) (uint64, error)) error {
	oe, ok1 := en[tagStripOffsets]
	ce, ok2 := en[tagStripByteCounts]
	if !ok1 || !ok2 {
		return errors.New("no StripOffsets or StripByteCounts: not a stripped image")
	}
	rps, err := get(tagRowsPerStrip, uint64(p.height))
	if err != nil {
		return err
	}
	p.rowsPerStrip = int(min(max(rps, 1), uint64(p.height)))
	perSample := (p.height + p.rowsPerStrip - 1) / p.rowsPerStrip
	nstrips := perSample * p.sampleSets()
	offs, err := t.uints(oe)
	if err != nil {
		return err
	}
	counts, err := t.uints(ce)
	if err != nil {
		return err
	}
	if len(offs) != nstrips || len(counts) != nstrips {
		return fmt.Errorf("%d strip offsets and %d byte counts for %d strips of %d rows", len(offs), len(counts), nstrips, p.rowsPerStrip)
	}
	rowBytes := int64(p.width) * int64(p.dtype.Size()) * int64(p.interleaved())
	for i := range offs {
		rows := min(p.rowsPerStrip, p.height-i%perSample*p.rowsPerStrip)
		need := int64(rows) * rowBytes
		if p.compression != 1 {
			need = int64(min(counts[i], math.MaxInt64)) // what a decoder reads
		} else if counts[i] < uint64(need) {
			return fmt.Errorf("strip %d holds %d bytes, its %d rows need %d", i, counts[i], rows, need)
		}
		if offs[i] > uint64(t.size) || uint64(need) > uint64(t.size)-offs[i] {
			return fmt.Errorf("truncated: strip %d (%d bytes at byte %d) lies past the end of the file (%d bytes)", i, need, offs[i], t.size)
		}
		p.offsets = append(p.offsets, int64(offs[i]))
		p.counts = append(p.counts, need)
	}
	return nil
}

// maxTileBytes bounds the tile a reader decodes into memory: microscopes
// write tiles of 256 to 1024 pixels a side; a damaged tag could ask for
// gigabytes.
const maxTileBytes = 256 << 20

// tiles records the tile offsets and checks that each tile lies inside
// the file (and, uncompressed, holds its whole tile: edge tiles are
// stored padded to the full tile shape).
func (t *tiffReader) tiles(p *tiffPage, en map[uint16]tiffEntry, get func(uint16, uint64) (uint64, error)) error {
	oe, ok1 := en[tagTileOffsets]
	ce, ok2 := en[tagTileByteCounts]
	if !ok1 || !ok2 {
		return errors.New("tiled, but no TileOffsets or TileByteCounts")
	}
	tw, err := get(tagTileWidth, 0)
	if err != nil {
		return err
	}
	th, err := get(tagTileLength, 0)
	if err != nil {
		return err
	}
	if tw == 0 || th == 0 || tw > 1<<16 || th > 1<<16 {
		return fmt.Errorf("tile shape %d x %d is missing or invalid", tw, th)
	}
	p.tileW, p.tileH = int(tw), int(th)
	across, down := (p.width+p.tileW-1)/p.tileW, (p.height+p.tileH-1)/p.tileH
	offs, err := t.uints(oe)
	if err != nil {
		return err
	}
	counts, err := t.uints(ce)
	if err != nil {
		return err
	}
	if n := across * down * p.sampleSets(); len(offs) != n || len(counts) != n {
		return fmt.Errorf("%d tile offsets and %d byte counts for %d x %d tiles of %d x %d (x %d sample sets)", len(offs), len(counts), down, across, p.tileH, p.tileW, p.sampleSets())
	}
	tileBytes := int64(p.tileW) * int64(p.tileH) * int64(p.dtype.Size()) * int64(p.interleaved())
	if tileBytes > maxTileBytes {
		return fmt.Errorf("tiles of %d x %d %s (%d MiB each) are larger than voxlab's limit of %d MiB", p.tileH, p.tileW, p.dtype, tileBytes>>20, maxTileBytes>>20)
	}
	for i := range offs {
		need := tileBytes
		if p.compression != 1 {
			need = int64(min(counts[i], math.MaxInt64))
		} else if counts[i] < uint64(need) {
			return fmt.Errorf("tile %d holds %d bytes, a %d x %d tile needs %d", i, counts[i], p.tileH, p.tileW, need)
		}
		if offs[i] > uint64(t.size) || uint64(need) > uint64(t.size)-offs[i] {
			return fmt.Errorf("truncated: tile %d (%d bytes at byte %d) lies past the end of the file (%d bytes)", i, need, offs[i], t.size)
		}
		p.offsets = append(p.offsets, int64(offs[i]))
		p.counts = append(p.counts, need)
	}
	return nil
}

// sampleSets is the number of sets of strips or tiles: one per sample
// when samples are stored separately.
func (p *tiffPage) sampleSets() int {
	if p.planar == 2 {
		return p.samples
	}
	return 1
}

// interleaved is the number of samples stored side by side per pixel.
func (p *tiffPage) interleaved() int {
	if p.planar == 2 {
		return 1
	}
	return p.samples
}

// pickSample makes the page read sample c: a separate page keeps c's
// strips or tiles alone (a grayscale page), an interleaved one reads c
// out of each pixel.
func (p *tiffPage) pickSample(c int) error {
	if c < 0 || c >= p.samples {
		return fmt.Errorf("channel %d asked for, but the image has %d samples per pixel (channels 0-%d)", c, p.samples, p.samples-1)
	}
	if p.planar == 2 {
		n := len(p.offsets) / p.samples
		p.offsets, p.counts = p.offsets[c*n:(c+1)*n:(c+1)*n], p.counts[c*n:(c+1)*n:(c+1)*n]
		p.samples, p.planar = 1, 1
		return nil
	}
	p.sample = c
	return nil
}

// wide returns the interleaved page as a grayscale page samples times as
// wide, which strips and tiles read as they are (its predictor runs with
// a stride of samples, see finish).
func (p *tiffPage) wide() *tiffPage {
	q := *p
	q.width *= p.samples
	q.tileW *= p.samples
	q.samples = 1
	q.stride = p.samples
	return &q
}

// planeBytes returns the bytes of the page's image.
func (p *tiffPage) planeBytes() int64 {
	return int64(p.width) * int64(p.height) * int64(p.dtype.Size())
}

// readInto reads the page's image into dst. Uncompressed strips are read
// straight into dst, one ReadAt per run of strips lying back to back (a
// writer lays out a page as one run: one read per plane); compressed
// strips are read one at a time into sb's buffer, which a source keeps
// from page to page (nil: a buffer for this call).
func (p *tiffPage) readInto(r io.ReaderAt, bigEndian bool, dst []byte, sb *stripBuf) error {
	if p.samples > 1 {
		return p.readSample(r, bigEndian, dst, sb)
	}
	if p.tileW > 0 {
		return p.readTiles(r, bigEndian, dst, sb)
	}
	if p.compression != 1 {
		return p.readCompressed(r, bigEndian, dst, sb)
	}
	var at int64
	for i := 0; i < len(p.offsets); {
		j, n := i+1, p.counts[i]
		for ; j < len(p.offsets) && p.offsets[j] == p.offsets[j-1]+p.counts[j-1]; j++ {
			n += p.counts[j]
		}
		if _, err := r.ReadAt(dst[at:at+n], p.offsets[i]); err != nil {
			if errors.Is(err, io.EOF) {
				return errors.New("truncated: the file ended inside an image strip")
			}
			return err
		}
		at, i = at+n, j
	}
	p.finish(bigEndian, dst, sb)
	return nil
}

// readSample reads the interleaved page whole into sb's plane buffer and
// copies sample p.sample of each pixel into dst.
func (p *tiffPage) readSample(r io.ReaderAt, bigEndian bool, dst []byte, sb *stripBuf) error {
	if sb == nil {
		sb = &stripBuf{}
	}
	w := p.wide()
	n := int(w.planeBytes())
	if cap(sb.plane) < n {
		sb.plane = make([]byte, n)
	}
	all := sb.plane[:n]
	if err := w.readInto(r, bigEndian, all, sb); err != nil {
		return err
	}
	es := p.dtype.Size()
	step := es * p.samples
	for i, o := 0, p.sample*es; i+es <= len(dst); i, o = i+es, o+step {
		copy(dst[i:i+es], all[o:o+es])
	}
	return nil
}

// stripBytes returns the largest stored strip of a compressed page, the
// buffer reading it takes (0 for an uncompressed page, read in place).
func (p *tiffPage) stripBytes() int64 {
	if p.samples > 1 { // the whole interleaved plane, and its strips or tiles
		return p.wide().planeBytes() + p.wide().stripBytes()
	}
	var row int64 // the floating-point predictor's row
	if p.predictor == 3 {
		row = int64(max(p.width, p.tileW)) * int64(p.dtype.Size())
	}
	if p.tileW > 0 { // a stored tile and its decoded copy
		return 2*int64(p.tileW)*int64(p.tileH)*int64(p.dtype.Size()) + row
	}
	if p.compression == 1 {
		return row
	}
	var n int64
	for _, c := range p.counts {
		n = max(n, c)
	}
	return n + row
}

// finish turns the stored samples of a whole image into host order and
// undoes the predictor (sb lends the floating-point predictor a row; nil:
// one for this call).
func (p *tiffPage) finish(bigEndian bool, dst []byte, sb *stripBuf) {
	undoPredictor(dst, p.width, p.dtype.Size(), max(p.stride, 1), p.predictor, bigEndian, sb)
}

// undoPredictor puts stored samples in rows of width samples of size
// bytes into host order and undoes predictor 2 or 3 (stride: samples
// between a sample and the one it was differenced against). The
// floating-point predictor's output is in host order whatever the
// file's byte order, so its rows are never swapped (as libtiff's fpAcc).
func undoPredictor(b []byte, width, size, stride, predictor int, bigEndian bool, sb *stripBuf) {
	if predictor == 3 {
		if sb == nil {
			sb = &stripBuf{}
		}
		if cap(sb.row) < width*size {
			sb.row = make([]byte, width*size)
		}
		undoFloatPredictor(b, sb.row[:width*size], size, stride)
		return
	}
	if bigEndian {
		swapBytes(b, size)
	}
	if predictor == 2 {
		undoHorizontalDiff(b, width, size, stride)
	}
}

// imageJ reads the fields of an ImageJ description ("ImageJ=1.54f\n
// images=60\nspacing=5\nunit=micron\n..."), or nil.
func imageJ(desc string) map[string]string {
	if !strings.HasPrefix(desc, "ImageJ=") {
		return nil
	}
	out := map[string]string{}
	for _, line := range strings.Split(desc, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out
}

// voxelSize reads the voxel size in microns: from an ImageJ description
// (unit micron; X/YResolution in pixels per micron; spacing = z step), or
// from X/YResolution in pixels per centimetre. Zero where unknown.
func (p *tiffPage) voxelSize() [3]float64 {
	var vs [3]float64
	scale := 0.0
	if ij := imageJ(p.desc); ij != nil {
		switch u := ij["unit"]; u {
		case "micron", "um", "µm", "\\u00B5m", "microns":
			scale = 1
			if s, err := strconv.ParseFloat(ij["spacing"], 64); err == nil && s > 0 {
				vs[0] = s
			}
		}
	} else if p.resUnit == 3 {
		scale = 1e4
	}
	if scale > 0 && p.yres > 0 && p.xres > 0 {
		vs[1], vs[2] = scale/p.yres, scale/p.xres
	}
	return vs
}
