package volume

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Stack is a lazily read set of equally shaped maps (cryo-EM volumes).
// The maps lie one after the other along z of a Source: map i is planes
// [i·Map.Shape[0], (i+1)·Map.Shape[0]). That is the byte layout of a C-order
// (n, box, box, box) NPY array, of the challenge's flat (n, box³) layout and
// of an MRC volume stack, so reading maps i0..i1 is one contiguous read.
type Stack struct {
	// Name is the file or folder the maps came from, for messages.
	Name string
	// N is the number of maps.
	N int
	// Map describes one map: shape (z, y, x), dtype and voxel size.
	Map Info
	src Source
}

// NewStack makes a Stack of n maps over src, whose planes hold the maps
// one after the other (src's z extent must be a multiple of n). It is how
// tests and in-memory pipelines build stacks: NewStack(name, n, memory).
func NewStack(name string, n int, src Source) (*Stack, error) {
	in := src.Info()
	if n <= 0 || in.Shape[0]%n != 0 {
		return nil, fmt.Errorf("stack %s: %d planes do not split into %d maps", name, in.Shape[0], n)
	}
	m := in
	m.Shape[0] /= n
	return &Stack{Name: name, N: n, Map: m, src: src}, nil
}

// Box returns the edge of the maps when they are cubes, else 0.
func (s *Stack) Box() int {
	if sh := s.Map.Shape; sh[0] == sh[1] && sh[1] == sh[2] {
		return sh[0]
	}
	return 0
}

// MapBytes returns the size of one map in bytes.
func (s *Stack) MapBytes() int64 { return s.Map.Bytes() }

// MapLen returns the number of voxels of one map.
func (s *Stack) MapLen() int { return int(s.Map.Len()) }

// ReadMaps reads maps [i0, i1) into dst, which must hold exactly
// (i1-i0)·MapBytes() bytes, in native byte order. Only those maps are read.
func (s *Stack) ReadMaps(i0, i1 int, dst []byte) error {
	if i0 < 0 || i1 > s.N || i0 > i1 {
		return fmt.Errorf("read maps %d-%d of %s: outside [0,%d)", i0, i1, s.Name, s.N)
	}
	if want := int64(i1-i0) * s.MapBytes(); int64(len(dst)) != want {
		return fmt.Errorf("read maps %d-%d of %s: buffer holds %d bytes, the maps need %d", i0, i1, s.Name, len(dst), want)
	}
	nz := s.Map.Shape[0]
	if err := s.src.ReadSlab(i0*nz, i1*nz, dst); err != nil {
		return fmt.Errorf("read maps %d-%d of %s: %w", i0, i1, s.Name, err)
	}
	return nil
}

// Volume returns map i as a Volume sharing the stack's source; closing it
// does nothing (close the Stack).
func (s *Stack) Volume(i int) (*Volume, error) {
	if i < 0 || i >= s.N {
		return nil, fmt.Errorf("map %d of %s: outside [0,%d)", i, s.Name, s.N)
	}
	nz := s.Map.Shape[0]
	src, err := Subset(s.src, rangeInts(i*nz, (i+1)*nz))
	if err != nil {
		return nil, err
	}
	return New(fmt.Sprintf("%s[%d]", s.Name, i), src), nil
}

// Planes returns all maps one after the other along z as one Volume of
// shape (N·z, y, x), for viewing; closing it does nothing.
func (s *Stack) Planes() *Volume {
	return New(s.Name, unclosing{s.src})
}

// Close closes the underlying source.
func (s *Stack) Close() error { return s.src.Close() }

// Reader returns the source the maps are read from, whose read memory a
// plan counts and sets (ReadersOf).
func (s *Stack) Reader() Source { return s.src }

func rangeInts(a, b int) []int {
	out := make([]int, b-a)
	for i := range out {
		out[i] = a + i
	}
	return out
}

// unclosing shares a Source without owning it.
type unclosing struct{ Source }

func (u unclosing) base() Source { return u.Source }

func (unclosing) Close() error { return nil }

// OpenStack opens a stack of maps: a 4D NPY (n, z, y, x); a 2D NPY in the
// flat layout (n, box³) with box the exact cube root; an MRC volume stack
// (space group 401: nz = n·mz) or ".mrcs" image stack of cubes (nz = n·nx);
// a folder of MRC files, one map each, sorted naturally; or any volume
// Open reads, as a stack of one map. Only headers are read.
func OpenStack(spec string) (*Stack, error) {
	path, dataset := SplitSpec(spec)
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case st.IsDir():
		if f := FormatFor(path); f != nil && f.Name == "mrc-dir" {
			if dataset != "" {
				return nil, fmt.Errorf("%s: a folder of MRC maps has no datasets; drop %q", path, dataset)
			}
			return openMRCDir(path)
		}
	case ext == ".npy" && dataset == "":
		return openNPYStack(path)
	case FormatFor(path) != nil && FormatFor(path).Name == "mrc" && dataset == "":
		return openMRCStack(path)
	}
	v, err := Open(spec)
	if err != nil {
		return nil, err
	}
	return NewStack(v.Name, 1, v.Source())
}

func openNPYStack(path string) (*Stack, error) {
	f, h, err := npyFile(path)
	if err != nil {
		return nil, err
	}
	var n int
	var m [3]int
	switch len(h.shape) {
	case 4:
		n, m = h.shape[0], [3]int{h.shape[1], h.shape[2], h.shape[3]}
	case 3:
		n, m = 1, [3]int{h.shape[0], h.shape[1], h.shape[2]}
	case 2:
		box, ok := cubeRoot(h.shape[1])
		if !ok {
			f.Close()
			return nil, fmt.Errorf("%s: flat map stack of shape %v: %d voxels per map is not a cube (box³)", path, h.shape, h.shape[1])
		}
		n, m = h.shape[0], [3]int{box, box, box}
	default:
		f.Close()
		return nil, fmt.Errorf("%s: array of shape %v is not a stack of maps (want (n, z, y, x) or (n, box³))", path, h.shape)
	}
	info := Info{Shape: [3]int{n * m[0], m[1], m[2]}, DType: h.dtype}
	return NewStack(path, n, &rawSource{info: info, path: path, r: f, c: f, layout: h.layout()})
}

// cubeRoot returns b with b³ = n exactly.
func cubeRoot(n int) (int, bool) {
	b := int(math.Round(math.Cbrt(float64(n))))
	for _, c := range []int{b - 1, b, b + 1} {
		if c > 0 && c*c*c == n {
			return c, true
		}
	}
	return 0, false
}

func openMRCStack(path string) (*Stack, error) {
	f, h, err := mrcFile(path)
	if err != nil {
		return nil, err
	}
	n := stackCount(path, h)
	if n == 0 {
		f.Close()
		return nil, fmt.Errorf("%s: MRC stack of %d x %d x %d (mz %d, space group %d) does not split into whole maps", path, h.n[0], h.n[1], h.n[2], h.m[2], h.ispg)
	}
	return NewStack(path, n, &rawSource{info: h.info(), path: path, r: f, c: f, layout: h.layout()})
}

func init() {
	RegisterFormat(&Format{
		Name:   "mrc-dir",
		Detect: isMRCDir,
		Open: func(path, dataset string) (*Volume, error) {
			if dataset != "" {
				return nil, fmt.Errorf("%s: a folder of MRC maps has no datasets; drop %q", path, dataset)
			}
			s, err := openMRCDir(path)
			if err != nil {
				return nil, err
			}
			// The maps one after the other along z, as the viewer shows
			// them; OpenStack reads them as maps.
			return New(s.Name, s.src), nil
		},
		Inspect:  noDataset(inspectMRCDir),
		Describe: describeWith(inspectMRCDir),
	})
}

// mrcNames lists the MRC maps (*.mrc, any case) of dir, and whether it
// also holds TIFF planes; with stopAtTIFF it stops listing at the first
// TIFF (a folder of planes is then not a folder of maps).
func mrcNames(dir string, stopAtTIFF bool) (names []string, tiff bool, err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	for {
		entries, err := f.ReadDir(1024)
		for _, e := range entries {
			if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			switch strings.ToLower(filepath.Ext(e.Name())) {
			case ".mrc":
				names = append(names, filepath.Join(dir, e.Name()))
			case ".tif", ".tiff":
				if tiff = true; stopAtTIFF {
					return names, tiff, nil
				}
			}
		}
		if err == io.EOF || len(entries) == 0 {
			return names, tiff, nil
		}
		if err != nil {
			return nil, tiff, err
		}
	}
}

// isMRCDir reports whether dir is a folder of MRC maps: it holds .mrc
// files and no TIFF planes (a folder holding both is read as planes).
func isMRCDir(dir string) bool {
	names, tiff, err := mrcNames(dir, true)
	return err == nil && !tiff && len(names) > 0
}

func inspectMRCDir(dir string) (*Description, error) {
	s, err := openMRCDir(dir)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	c := s.src.(*concat)
	first, last := c.srcs[0].(*rawSource).path, c.srcs[len(c.srcs)-1].(*rawSource).path
	d := &Description{Path: dir, Format: "mrc-dir", Shape: []int{s.N, s.Map.Shape[0], s.Map.Shape[1], s.Map.Shape[2]},
		DType: s.Map.DType.String(), VoxelSize: voxelSlice(s.Map.VoxelSize), Volume: true, Maps: s.N}
	d.Header = []Field{
		{"files", strconv.Itoa(s.N) + " MRC maps, one map each"},
		{"first", filepath.Base(first)},
		{"last", filepath.Base(last)},
	}
	d.Notes = append(d.Notes, "opens as the maps one after the other along z; distance reads them as a stack of maps")
	return d, nil
}

// openMRCDir opens every *.mrc of dir, in natural order, as one map each.
// Files are opened only while a read needs them.
func openMRCDir(dir string) (*Stack, error) {
	names, _, err := mrcNames(dir, false)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: the folder holds no .mrc maps", dir)
	}
	SortNatural(names)
	srcs := make([]Source, 0, len(names))
	var first *mrcHeader
	for _, name := range names {
		f, h, err := mrcFile(name)
		if err != nil {
			return nil, err
		}
		f.Close()
		if first == nil {
			first = h
		} else if h.info() != first.info() {
			a, b := first.info(), h.info()
			return nil, fmt.Errorf("%s: maps differ: %s is %v %s voxel %v but %s is %v %s voxel %v", dir,
				names[0], a.Shape, a.DType, a.VoxelSize, name, b.Shape, b.DType, b.VoxelSize)
		}
		srcs = append(srcs, &rawSource{info: h.info(), path: name, layout: h.layout()})
	}
	src, err := Concat(srcs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return NewStack(dir, len(names), src)
}

// CreateStack starts writing n maps of shape and type info to path: a 4D
// NPY (n, z, y, x) for ".npy", an MRC volume stack (space group 401, MZ =
// z) for ".mrc"/".mrcs". The Writer takes the maps' planes one after the
// other (Info().Shape is (n·z, y, x)).
func CreateStack(path string, n int, info Info) (Writer, error) {
	if err := info.Validate(); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	all := info
	if n <= 0 || info.Shape[0] > math.MaxInt/n {
		return nil, fmt.Errorf("create %s: %d maps of %v: bad count", path, n, info.Shape)
	}
	all.Shape[0] *= n
	if err := all.Validate(); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		return createNPY(path, all, []int{n, info.Shape[0], info.Shape[1], info.Shape[2]})
	case ".mrc", ".mrcs":
		return createMRC(path, all, 401, info.Shape[0])
	}
	return nil, fmt.Errorf("create %s: map stacks are written as .npy or .mrc/.mrcs", path)
}

// Concat joins sources with equal plane shape and dtype along z. A read
// that spans several sources reads each part with one call. Close closes
// every source.
func Concat(srcs []Source) (Source, error) {
	if len(srcs) == 0 {
		return nil, errors.New("concat: no sources")
	}
	c := &concat{starts: make([]int, len(srcs)+1), srcs: srcs}
	c.info = srcs[0].Info()
	c.info.Shape[0] = 0
	for i, s := range srcs {
		in := s.Info()
		if in.Shape[1] != c.info.Shape[1] || in.Shape[2] != c.info.Shape[2] || in.DType != c.info.DType {
			return nil, fmt.Errorf("concat: part %d is %v %s, part 0 is %v %s", i, in.Shape, in.DType, srcs[0].Info().Shape, c.info.DType)
		}
		c.starts[i] = c.info.Shape[0]
		c.info.Shape[0] += in.Shape[0]
	}
	c.starts[len(srcs)] = c.info.Shape[0]
	return c, nil
}

type concat struct {
	info   Info
	starts []int // first plane of each source, then the total
	srcs   []Source
}

func (c *concat) Info() Info { return c.info }

func (c *concat) ReadSlab(z0, z1 int, dst []byte) error {
	if err := CheckSlab(c.info, z0, z1, len(dst)); err != nil {
		return err
	}
	pb := c.info.PlaneBytes()
	for i, s := range c.srcs {
		a, b := max(z0, c.starts[i]), min(z1, c.starts[i+1])
		if a >= b {
			continue
		}
		if err := s.ReadSlab(a-c.starts[i], b-c.starts[i], dst[int64(a-z0)*pb:int64(b-z0)*pb]); err != nil {
			return err
		}
	}
	return nil
}

func (c *concat) Close() error {
	var errs []error
	for _, s := range c.srcs {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}
