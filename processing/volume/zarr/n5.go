package zarr

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/volume"
)

// N5 (https://github.com/saalfeldlab/n5, the format of BigStitcher,
// BigDataViewer and Fiji's N5 plugins) shares Zarr's model: a folder per
// group or dataset, JSON attributes, and a file per chunk ("block"), so
// it is read by the same machinery (the chunk grid, parallel decoding,
// the codecs, levels as a pyramid). What differs, here:
//   - attributes.json gives dimensions, blockSize, dataType and
//     compression, listed fastest axis first (x, y, z): the array is read
//     with its axes reversed, as C order (z, y, x), and so are block keys
//     ("x/y/z" under the dataset's folder) and block headers;
//   - each block starts with a big-endian header: mode (0 default, 1
//     varlength, 2 object), the number of dimensions, the block's own
//     size (edge blocks are stored cropped to the array), and for
//     varlength blocks the number of elements; elements are big endian;
//   - a multiscale group holds datasets s0, s1, ... with downsampling
//     factors on each level ("downsamplingFactors"), on the group
//     ("scales", n5-viewer) or on its parent (BigDataViewer's setup
//     groups), and the voxel size as "pixelResolution" or "resolution".
// Blocks not stored read as zeros.

func init() {
	volume.RegisterFormat(&volume.Format{
		Name:       "n5",
		Extensions: []string{".n5"},
		Open:       OpenN5,
		Inspect:    InspectN5,
		Folders:    true,
		Detect:     isN5,
	})
}

// isN5 reports whether dir is an N5 container, group or dataset: its
// attributes.json names the N5 version or a dataset's dimensions, or it
// holds a multiscale level s0 that is a dataset. An attributes.json that
// is not a regular file counts (opening it then says what is wrong).
func isN5(dir string) bool {
	p := filepath.Join(dir, "attributes.json")
	st, err := os.Lstat(p)
	if err != nil {
		return false
	}
	if st.Mode().IsRegular() {
		if attrs, err := readN5Attrs(dir, dir); err == nil && (attrs["n5"] != nil || attrs["dimensions"] != nil) {
			return true
		}
		sub, err := readN5Attrs(filepath.Join(dir, "s0"), dir)
		return err == nil && sub["dimensions"] != nil
	}
	return true
}

// n5Attrs is an attributes.json, by key.
type n5Attrs map[string]json.RawMessage

// readN5Attrs reads dir's attributes.json; nil (and no error) when there
// is none.
func readN5Attrs(dir, name string) (n5Attrs, error) {
	b, err := readMeta(filepath.Join(dir, "attributes.json"))
	if err != nil || b == nil {
		return nil, err
	}
	var a n5Attrs
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("%s: attributes.json is not a JSON object: %v", name, err)
	}
	if a == nil {
		a = n5Attrs{}
	}
	return a, nil
}

// get decodes the attribute key into v; false when it is absent or
// does not decode.
func (a n5Attrs) get(key string, v any) bool {
	raw, ok := a[key]
	return ok && json.Unmarshal(raw, v) == nil
}

// reversed returns v with its order reversed, as float64s.
func reversed[T int | int64 | float64](v []T) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[len(v)-1-i] = float64(x)
	}
	return out
}

// parseN5 parses an N5 dataset's attributes into an array read in C
// order (axes reversed).
func parseN5(dir, name string, attrs n5Attrs) (*array, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: attributes.json: %s", name, fmt.Sprintf(format, a...))
	}
	var dims, block []int64
	if !attrs.get("dimensions", &dims) || !attrs.get("blockSize", &block) {
		return nil, bad("dimensions and blockSize must be lists of whole numbers")
	}
	if len(dims) > maxDims || len(block) > maxDims {
		return nil, bad("%d dimensions: want 1 to %d", max(len(dims), len(block)), maxDims)
	}
	a := &array{dir: dir, name: name, format: 0, n5: true, order: "N5 (x fastest: read as z, y, x)"}
	for i := len(dims) - 1; i >= 0; i-- {
		a.shape = append(a.shape, int(dims[i]))
	}
	for i := len(block) - 1; i >= 0; i-- {
		if block[i] > math.MaxInt32 || block[i] < 0 {
			return nil, bad("blockSize %v out of range", block)
		}
		a.chunks = append(a.chunks, int(block[i]))
	}
	if err := a.checkGrid(); err != nil {
		return nil, bad("%v", err)
	}
	var dt string
	if !attrs.get("dataType", &dt) {
		return nil, bad("no dataType")
	}
	var err error
	if a.dtype, err = volume.ParseDType(dt); err != nil || dt != a.dtype.String() {
		return nil, bad("dataType %q: voxlab reads int8 uint8 int16 uint16 int32 uint32 float32 float64", dt)
	}
	a.chain.bigEndian = a.dtype.Size() > 1
	codec, err := n5Compression(attrs)
	if err != nil {
		return nil, bad("%v", err)
	}
	if codec.name != "" {
		a.chain.b2b = []bytesCodec{codec}
	}
	a.fill = make([]byte, a.dtype.Size())
	a.keys = keyEncoding{sep: "/", reversed: true}
	if err := a.checkChunkBytes(); err != nil {
		return nil, bad("%v", err)
	}
	a.codecs = a.chain.describe()
	return a, nil
}

// n5Compression reads a dataset's compression: {"type": raw | gzip
// (useZlib: a zlib stream) | bzip2 | blosc | zstd | xz}, or the
// compressionType of N5 before 1.0.
func n5Compression(attrs n5Attrs) (bytesCodec, error) {
	var c struct {
		Type    string `json:"type"`
		UseZlib bool   `json:"useZlib"`
		CName   string `json:"cname"`
	}
	if !attrs.get("compression", &c) {
		if !attrs.get("compressionType", &c.Type) {
			c.Type = "raw"
		}
	}
	switch c.Type {
	case "raw":
		return bytesCodec{}, nil
	case "gzip":
		if c.UseZlib {
			return bytesCodec{name: "zlib"}, nil
		}
		return bytesCodec{name: "gzip"}, nil
	case "bzip2", "zstd", "xz":
		return bytesCodec{name: c.Type}, nil
	case "blosc":
		return bytesCodec{name: "blosc", cname: c.CName}, nil
	case "lz4":
		return bytesCodec{}, errors.New("lz4 N5 blocks are not supported (voxlab reads raw, gzip, bzip2, blosc, zstd and xz)")
	}
	return bytesCodec{}, fmt.Errorf("compression %q is not supported (voxlab reads raw, gzip, bzip2, blosc, zstd and xz)", c.Type)
}

// n5Block parses the header of a stored N5 block of the array: its
// shape (C order) and the encoded elements after it. A block may be
// stored cropped to the array (n5-java) or whole (zarr's N5Store), but
// never smaller than the part of the array it covers, nor larger than
// the dataset's blockSize.
func (a *array) n5Block(raw []byte, origin []int) ([]int, []byte, error) {
	nd := len(a.shape)
	if len(raw) < 4 {
		return nil, nil, errors.New("N5 block shorter than its header")
	}
	mode, n := binary.BigEndian.Uint16(raw), int(binary.BigEndian.Uint16(raw[2:]))
	if mode == 2 {
		return nil, nil, errors.New("an N5 object block (mode 2) is not an array block")
	}
	if mode > 1 {
		return nil, nil, fmt.Errorf("N5 block mode %d is neither 0 (default) nor 1 (varlength)", mode)
	}
	if n != nd {
		return nil, nil, fmt.Errorf("N5 block of %d dimensions in a dataset of %d", n, nd)
	}
	head := 4 + 4*nd
	if mode == 1 {
		head += 4
	}
	if len(raw) < head {
		return nil, nil, errors.New("N5 block shorter than its header")
	}
	shape := make([]int, nd)
	count := int64(1)
	for i := range nd {
		d := nd - 1 - i // the header lists x first
		s := int64(binary.BigEndian.Uint32(raw[4+4*i:]))
		if want := int64(min(a.chunks[d], a.shape[d]-origin[d])); s < want || s > int64(a.chunks[d]) {
			return nil, nil, fmt.Errorf("N5 block of size %v: the dataset's blocks here are %v (up to %v)", reversed(headerDims(raw, nd)), extent(a, origin), a.chunks)
		}
		shape[d] = int(s)
		count *= s
	}
	if mode == 1 {
		if m := int64(binary.BigEndian.Uint32(raw[4+4*nd:])); m != count {
			return nil, nil, fmt.Errorf("varlength N5 block of %d elements for a block of %v (%d voxels)", m, shape, count)
		}
	}
	return shape, raw[head:], nil
}

// headerDims returns the sizes an N5 block header lists (x first).
func headerDims(raw []byte, nd int) []int64 {
	out := make([]int64, nd)
	for i := range out {
		out[i] = int64(binary.BigEndian.Uint32(raw[4+4*i:]))
	}
	return out
}

// extent returns the part of the array the block at origin covers.
func extent(a *array, origin []int) []int {
	out := make([]int, len(origin))
	for d := range out {
		out[d] = min(a.chunks[d], a.shape[d]-origin[d])
	}
	return out
}

// n5Node is an N5 group or dataset.
type n5Node struct {
	dir   string
	attrs n5Attrs
	array bool
}

func readN5Node(dir, name string) (*n5Node, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not an N5 group or dataset (they are folders)", name)
	}
	attrs, err := readN5Attrs(dir, name)
	if err != nil {
		return nil, err
	}
	return &n5Node{dir: dir, attrs: attrs, array: attrs["dimensions"] != nil}, nil
}

// OpenN5 opens the N5 dataset or multiscale group at path's dataset
// (the part of a spec after ":/").
func OpenN5(path, dataset string) (*volume.Volume, error) {
	sel, err := parseSelection(dataset)
	if err != nil {
		return nil, fmt.Errorf("%s:%s: %v", path, dataset, err)
	}
	st, err := openN5Store(path, sel.path)
	if err != nil {
		return nil, err
	}
	l, err := st.layout(sel)
	if err != nil {
		return nil, err
	}
	return volume.New(st.levelName(0), st.source(0, l)), nil
}

// openN5Store opens the dataset, or the levels of the multiscale group,
// at rel inside the container root.
func openN5Store(root, rel string) (*store, error) {
	clean := ""
	if rel != "" {
		clean = filepath.ToSlash(filepath.Clean(rel))
		if strings.HasPrefix(clean, "..") || filepath.IsAbs(rel) {
			return nil, fmt.Errorf("%s: path %q leaves the container", root, rel)
		}
	}
	dir := filepath.Join(root, filepath.FromSlash(clean))
	name := joinName(root, clean)
	n, err := readN5Node(dir, name)
	if err != nil {
		return nil, err
	}
	s := &store{path: root, n5: true}
	if n.array {
		a, err := parseN5(dir, name, n.attrs)
		if err != nil {
			return nil, err
		}
		s.levels, s.paths = []*array{a}, []string{clean}
		if res := n5Resolution(n.attrs); len(res) == len(a.shape) {
			s.voxel = [][]float64{res}
		}
		return s, nil
	}
	// A multiscale group: s0, s1, ... while they exist.
	for i := 0; ; i++ {
		lp := "s" + strconv.Itoa(i)
		if clean != "" {
			lp = clean + "/" + lp
		}
		ldir := filepath.Join(root, filepath.FromSlash(lp))
		if _, err := os.Stat(ldir); err != nil {
			break
		}
		ln, err := readN5Node(ldir, joinName(root, lp))
		if err != nil {
			return nil, err
		}
		if !ln.array {
			return nil, fmt.Errorf("%s: a multiscale level is a group, not a dataset", joinName(root, lp))
		}
		a, err := parseN5(ldir, joinName(root, lp), ln.attrs)
		if err != nil {
			return nil, err
		}
		if len(s.levels) > 0 && len(a.shape) != len(s.levels[0].shape) {
			return nil, fmt.Errorf("%s: level of %d dimensions in a pyramid of %d", joinName(root, lp), len(a.shape), len(s.levels[0].shape))
		}
		s.levels, s.paths = append(s.levels, a), append(s.paths, lp)
		s.levelAttrs = append(s.levelAttrs, ln.attrs)
	}
	if len(s.levels) == 0 {
		return nil, fmt.Errorf("%s: an N5 group that is not a multiscale image (no dataset s0); name a dataset inside it (%s)", name, listN5(dir, root, clean))
	}
	s.n5Scales(n.attrs, filepath.Dir(dir))
	return s, nil
}

// n5Resolution reads a voxel size (pixelResolution {dimensions}, or
// resolution), reversed to C order; nil when absent.
func n5Resolution(attrs n5Attrs) []float64 {
	var pr struct {
		Dimensions []float64 `json:"dimensions"`
	}
	if attrs.get("pixelResolution", &pr) && len(pr.Dimensions) > 0 {
		return reversed(pr.Dimensions)
	}
	var res []float64
	if attrs.get("pixelResolution", &res) && len(res) > 0 || attrs.get("resolution", &res) && len(res) > 0 {
		return reversed(res)
	}
	return nil
}

// n5Scales finds the levels' downsampling factors and voxel sizes of a
// multiscale group (attrs; parent is the folder above it): each level's
// downsamplingFactors, else the group's scales (n5-viewer), else the
// group's or its parent's downsamplingFactors list (BigDataViewer keeps
// it on the setup group above the time points). The voxel size is the
// group's resolution (or s0's) times the factors.
func (s *store) n5Scales(attrs n5Attrs, parent string) {
	nd := len(s.levels[0].shape)
	var lists [][][]float64
	var list [][]float64
	if attrs.get("scales", &list) {
		lists = append(lists, list)
	}
	if attrs.get("downsamplingFactors", &list) {
		lists = append(lists, list)
	}
	if p, err := readN5Attrs(parent, parent); err == nil && p.get("downsamplingFactors", &list) {
		lists = append(lists, list)
	}
	factors := make([][]float64, len(s.levels))
	for i := range s.levels {
		var f []float64
		if s.levelAttrs[i].get("downsamplingFactors", &f) && len(f) == nd {
			factors[i] = reversed(f)
			continue
		}
		for _, l := range lists {
			if i < len(l) && len(l[i]) == nd {
				factors[i] = reversed(l[i])
				break
			}
		}
		if factors[i] == nil && i == 0 {
			factors[0] = reversed(make([]float64, nd))
			for d := range factors[0] {
				factors[0][d] = 1
			}
		}
		if factors[i] == nil {
			return // unknown: the levels' shapes give the scale
		}
	}
	for _, f := range factors {
		for _, x := range f {
			if !(x > 0) {
				return
			}
		}
	}
	s.factors = factors
	res := n5Resolution(attrs)
	if res == nil {
		res = n5Resolution(s.levelAttrs[0])
	}
	if len(res) != nd {
		return
	}
	s.voxel = make([][]float64, len(s.levels))
	for i, f := range factors {
		s.voxel[i] = make([]float64, nd)
		for d := range f {
			s.voxel[i][d] = res[d] * f[d] / factors[0][d]
		}
	}
}

// listN5 names up to a few datasets or multiscale groups in the group
// at dir, as specs.
func listN5(dir, root, at string) string {
	var names []string
	walkN5(dir, at, 0, func(p string, n *n5Node, multiscale bool) bool {
		if n.array || multiscale {
			names = append(names, root+":/"+p)
		}
		return len(names) <= 4 && !multiscale
	})
	if len(names) == 0 {
		return "it holds none"
	}
	if len(names) > 4 {
		names = append(names[:4], "...")
	}
	return strings.Join(names, ", ")
}

// walkN5 calls f for each group or dataset under dir (rel its path in
// the container), depth first in name order, at most 8 deep; f says
// whether to go on into a group.
func walkN5(dir, rel string, depth int, f func(p string, n *n5Node, multiscale bool) bool) {
	entries, err := os.ReadDir(dir)
	if err != nil || depth > 8 {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := e.Name()
		if rel != "" {
			p = rel + "/" + p
		}
		sub := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(sub, "attributes.json")); err != nil {
			continue // block folders, and anything else
		}
		n, err := readN5Node(sub, p)
		if err != nil {
			continue
		}
		if n.array {
			f(p, n, false)
			continue
		}
		s0, err := readN5Node(filepath.Join(sub, "s0"), p+"/s0")
		multiscale := err == nil && s0.array
		if f(p, n, multiscale) {
			walkN5(sub, p, depth+1, f)
		}
	}
}

// InspectN5 validates the N5 dataset or multiscale group at path (and
// dataset) and describes it for voxlab info; a group that is neither is
// described as its tree of groups and datasets.
func InspectN5(path, dataset string) (*volume.Description, error) {
	v, err := OpenN5(path, dataset)
	if err != nil {
		if d := inspectN5Group(path, dataset); d != nil {
			return d, nil
		}
		return nil, err
	}
	defer v.Close()
	src := v.Source().(*Source)
	return src.describe(path, dataset, v), nil
}

func inspectN5Group(path, dataset string) *volume.Description {
	sel, err := parseSelection(dataset)
	if err != nil || sel.hasC || sel.hasT {
		return nil
	}
	dir := filepath.Join(path, filepath.FromSlash(sel.path))
	n, err := readN5Node(dir, path)
	if err != nil || n.array {
		return nil
	}
	d := &volume.Description{Path: path, Format: "N5 group"}
	if sel.path != "" {
		d.Dataset = "/" + strings.Trim(sel.path, "/")
	}
	d.Tree = append(d.Tree, volume.Node{Path: "/", Kind: "group"})
	walkN5(dir, "", 0, func(p string, n *n5Node, multiscale bool) bool {
		if len(d.Tree) >= 1000 {
			return false
		}
		if !n.array {
			d.Tree = append(d.Tree, volume.Node{Path: "/" + p, Kind: "group"})
			return true
		}
		if a, err := parseN5(n.dir, p, n.attrs); err == nil {
			d.Tree = append(d.Tree, volume.Node{Path: "/" + p, Kind: "dataset", Shape: a.shape, DType: a.dtype.String()})
		} else {
			d.Tree = append(d.Tree, volume.Node{Path: "/" + p, Kind: "dataset", DType: "unreadable"})
		}
		return true
	})
	spec := path + ":"
	if sel.path != "" {
		spec += "/" + strings.Trim(sel.path, "/")
	}
	d.Notes = append(d.Notes, "a group: name a dataset or multiscale group inside it, "+spec+"/PATH (shapes are z, y, x: N5's reversed)")
	return d
}

// n5Dims returns the dataset's dimensions as N5 lists them (x first).
func n5Dims(a *array) string {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := len(a.shape) - 1; i >= 0; i-- {
		b.WriteString(strconv.Itoa(a.shape[i]))
		if i > 0 {
			b.WriteByte(' ')
		}
	}
	b.WriteByte(']')
	return b.String()
}
