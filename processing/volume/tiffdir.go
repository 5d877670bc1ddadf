package volume

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/volume/fileio"
)

func init() {
	RegisterFormat(singleVolume("tiff-dir", []string{"/"}, "a folder of TIFF planes has no datasets", openPlaneDir, inspectPlaneDir, CreatePlaneDir))
}

// planeFile is one 2D TIFF of a plane folder.
type planeFile struct {
	path      string
	page      *tiffPage
	bigEndian bool
}

// planeDir lists and parses the TIFF planes of dir, sorted naturally
// (plane2 before plane10), and checks they share one size and dtype.
func planeDir(dir string) ([]planeFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if !e.IsDir() && (ext == ".tif" || ext == ".tiff") && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: the folder holds no .tif or .tiff planes", dir)
	}
	SortNatural(names)
	planes := make([]planeFile, len(names))
	for i, name := range names {
		p, err := readPlane(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		planes[i] = p
		if a, b := planes[0].page, p.page; a.width != b.width || a.height != b.height || a.dtype != b.dtype {
			return nil, fmt.Errorf("%s: planes differ: %s is %d x %d %s but %s is %d x %d %s", dir,
				names[0], a.width, a.height, a.dtype, name, b.width, b.height, b.dtype)
		}
	}
	return planes, nil
}

// readPlane parses a single-page TIFF.
func readPlane(path string) (planeFile, error) {
	f, size, err := openSized(path)
	if err != nil {
		return planeFile{}, err
	}
	defer f.Close()
	tf, err := readTIFF(path, f, size, 2)
	if err != nil {
		return planeFile{}, err
	}
	if len(tf.pages) > 1 {
		return planeFile{}, fmt.Errorf("%s holds several pages; a folder of planes needs one 2D image per file (open multi-page files on their own)", path)
	}
	// A plane of several samples (RGB) is read for its first.
	if err := tf.pages[0].pickSample(0); err != nil {
		return planeFile{}, fmt.Errorf("%s: %w", path, err)
	}
	return planeFile{path: path, page: tf.pages[0], bigEndian: tf.bigEndian}, nil
}

// planeSource reads planes, opening each file only while reading it, so a
// folder of thousands of planes holds no descriptors.
type planeSource struct {
	info   Info
	planes []planeFile
	sb     stripBuf // compressed strips, reused from plane to plane
}

func (s *planeSource) Info() Info { return s.info }

// ReadBufferBytes returns the most memory the source holds besides the
// caller's buffer: one stored strip of a compressed plane.
func (s *planeSource) ReadBufferBytes() int64 {
	var n int64
	for _, p := range s.planes {
		n = max(n, p.page.stripBytes())
	}
	return n
}

func (s *planeSource) ReadSlab(z0, z1 int, dst []byte) error {
	if err := CheckSlab(s.info, z0, z1, len(dst)); err != nil {
		return err
	}
	pb := s.info.PlaneBytes()
	for z := z0; z < z1; z++ {
		p := s.planes[z]
		if err := readPlaneFile(p, dst[int64(z-z0)*pb:int64(z-z0+1)*pb], &s.sb); err != nil {
			return err
		}
	}
	return nil
}

// readPlaneFile reads one plane's file into dst: open, one read per run
// of strips (one for a plane written as one strip), close.
func readPlaneFile(p planeFile, dst []byte, sb *stripBuf) error {
	f, _, err := fileio.Open(p.path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := p.page.readInto(f, p.bigEndian, dst, sb); err != nil {
		return fmt.Errorf("%s: %w", p.path, err)
	}
	return nil
}

func (s *planeSource) Close() error { return nil }

func openPlaneDir(dir string) (*Volume, error) {
	planes, err := planeDir(dir)
	if err != nil {
		return nil, err
	}
	p := planes[0].page
	info := Info{Shape: [3]int{len(planes), p.height, p.width}, DType: p.dtype, VoxelSize: p.voxelSize()}
	return New(dir, &planeSource{info: info, planes: planes}), nil
}

func inspectPlaneDir(dir string) (*Description, error) {
	v, err := openPlaneDir(dir)
	if err != nil {
		return nil, err
	}
	s := v.Source().(*planeSource)
	d := &Description{Path: dir, Format: "tiff-dir", Shape: v.Shape[:], DType: v.DType.String(),
		VoxelSize: voxelSlice(v.VoxelSize), Volume: true}
	d.Header = []Field{
		{"planes", strconv.Itoa(len(s.planes))},
		{"first", filepath.Base(s.planes[0].path)},
		{"last", filepath.Base(s.planes[len(s.planes)-1].path)},
	}
	return d, nil
}

// planeDirWriter writes each plane as its own single-page TIFF into a
// temporary folder beside the target, moved into place by Commit.
type planeDirWriter struct {
	info   Info
	dir    *outfile.Dir
	next   int
	width  int
	layout tiffLayout
	failed error
}

// CreatePlaneDir starts writing a folder of 2D TIFF planes named
// plane_0000.tif, plane_0001.tif, ... (zero-padded to sort the same
// naturally and by name). The folder must not already hold TIFF files.
// Each plane carries the voxel size (z spacing included) in ImageJ-style
// metadata; the reader takes it from the first plane.
func CreatePlaneDir(dir string, info Info) (Writer, error) {
	if err := info.Validate(); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*.tif*")); len(names) > 0 {
		return nil, fmt.Errorf("create %s: the folder already holds TIFF files (%s, ...); choose an empty folder", dir, filepath.Base(names[0]))
	}
	d, err := outfile.CreateDir(dir)
	if err != nil {
		return nil, err
	}
	one := info
	one.Shape[0] = 1
	return &planeDirWriter{info: info, dir: d, width: max(4, len(strconv.Itoa(info.Shape[0]-1))), layout: newTIFFLayout(one, true, false)}, nil
}

func (w *planeDirWriter) Info() Info { return w.info }

func (w *planeDirWriter) WriteSlab(z0 int, src []byte) error {
	if w.failed != nil {
		return w.failed
	}
	pb := w.info.PlaneBytes()
	if int64(len(src))%pb != 0 {
		return fmt.Errorf("write %s: slab of %d bytes is not a whole number of %d-byte planes", w.dir.Target(), len(src), pb)
	}
	z1 := z0 + int(int64(len(src))/pb)
	if z0 != w.next || z1 > w.info.Shape[0] {
		return fmt.Errorf("write %s: planes %d-%d out of order (next is %d of %d)", w.dir.Target(), z0, z1, w.next, w.info.Shape[0])
	}
	for z := z0; z < z1; z++ {
		if err := w.plane(z, src[int64(z-z0)*pb:int64(z-z0+1)*pb]); err != nil {
			w.failed = fmt.Errorf("write %s: %w", w.dir.Target(), err)
			return w.failed
		}
	}
	w.next = z1
	return nil
}

func (w *planeDirWriter) plane(z int, src []byte) error {
	name := filepath.Join(w.dir.Path, fmt.Sprintf("plane_%0*d.tif", w.width, z))
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(append(w.layout.header(), w.layout.ifd(0)...))
	if err == nil {
		_, err = f.Write(src)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (w *planeDirWriter) Commit() error {
	if w.failed != nil {
		w.dir.Abort()
		return w.failed
	}
	if w.next != w.info.Shape[0] {
		w.dir.Abort()
		return fmt.Errorf("write %s: only %d of %d planes were written; nothing was saved", w.dir.Target(), w.next, w.info.Shape[0])
	}
	return w.dir.Commit()
}

func (w *planeDirWriter) Abort() error { return w.dir.Abort() }
