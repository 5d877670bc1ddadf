package zarr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/voxlab/voxlab/processing/volume"
)

func init() {
	volume.RegisterFormat(&volume.Format{
		Name:       "zarr",
		Extensions: []string{".zarr"},
		Open:       Open,
		Inspect:    Inspect,
		Create:     createVolume,
		Folders:    true,
		Detect:     isZarr,
		NumberAttr: numberAttr,
	})
}

// isZarr reports whether dir holds Zarr metadata at its top (the
// store's root array or group), whatever the folder is called.
func isZarr(dir string) bool {
	for _, name := range []string{"zarr.json", ".zarray", ".zgroup", ".zattrs"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// SpecHelp says how a spec names a level, channel and time point, for
// commands' --help.
const SpecHelp = `A Zarr or OME-Zarr store is a folder holding .zarray, .zgroup, .zattrs or
zarr.json (usually named FILE.zarr); FILE.zarr opens the array, or level 0
of an OME-Zarr image at channel 0 and time point 0.
FILE.zarr:/PATH opens the array or OME-Zarr level at PATH inside it (a
dataset path such as 2, or a level's index), and c=N and t=N after a
comma choose the channel and time point: FILE.zarr:/2,c=1,t=0 or
FILE.zarr:/c=1. An N5 container (a folder with attributes.json, usually
FILE.n5) is named the same way: FILE.n5:/PATH opens the dataset at PATH,
or the multiscale group there (levels s0, s1, ...), as BigStitcher's
FILE.n5:/setup0/timepoint0.`

// selection is what the part of a spec after ":/" chooses.
type selection struct {
	path       string
	c, t       int
	hasC, hasT bool
}

func parseSelection(s string) (selection, error) {
	var sel selection
	for _, part := range strings.Split(strings.Trim(s, "/"), ",") {
		part = strings.TrimSpace(part)
		k, v, isKV := strings.Cut(part, "=")
		switch {
		case part == "":
		case isKV && (k == "c" || k == "t"):
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return sel, fmt.Errorf("%s=%q: want a number from 0", k, v)
			}
			if k == "c" {
				sel.c, sel.hasC = n, true
			} else {
				sel.t, sel.hasT = n, true
			}
		case isKV:
			return sel, fmt.Errorf("%q: the selectors are c=N (channel) and t=N (time point)", part)
		default:
			if sel.path != "" {
				return sel, fmt.Errorf("two paths, %q and %q", sel.path, part)
			}
			sel.path = strings.Trim(part, "/")
		}
	}
	return sel, nil
}

// node is a Zarr group or array's metadata.
type node struct {
	dir     string
	format  int
	isArray bool
	// meta is the array's metadata file (.zarray or zarr.json).
	meta  []byte
	attrs json.RawMessage
}

func readNode(dir, name string) (*node, error) {
	n := &node{dir: dir}
	b, err := readMeta(filepath.Join(dir, "zarr.json"))
	if err != nil {
		return nil, err
	}
	if b != nil {
		var m struct {
			Format   *int            `json:"zarr_format"`
			NodeType string          `json:"node_type"`
			Attrs    json.RawMessage `json:"attributes"`
		}
		if err := decodeJSON(filepath.Join(name, "zarr.json"), b, &m); err != nil {
			return nil, err
		}
		if m.Format == nil || *m.Format != 3 {
			return nil, fmt.Errorf("%s: zarr.json: zarr_format is not 3", name)
		}
		n.format, n.attrs = 3, m.Attrs
		switch m.NodeType {
		case "array":
			n.isArray, n.meta = true, b
		case "group":
		default:
			return nil, fmt.Errorf("%s: zarr.json: node_type %q is neither array nor group", name, m.NodeType)
		}
		return n, nil
	}
	n.format = 2
	if b, err := readMeta(filepath.Join(dir, ".zattrs")); err != nil {
		return nil, err
	} else if b != nil {
		if !json.Valid(b) {
			return nil, fmt.Errorf("%s: .zattrs is not valid JSON", name)
		}
		n.attrs = b
	}
	if b, err := readMeta(filepath.Join(dir, ".zarray")); err != nil {
		return nil, err
	} else if b != nil {
		n.isArray, n.meta = true, b
		return n, nil
	}
	if _, err := os.Stat(filepath.Join(dir, ".zgroup")); err == nil || n.attrs != nil {
		return n, nil
	}
	return nil, fmt.Errorf("%s: not a Zarr store (no zarr.json, .zarray or .zgroup)", name)
}

func (n *node) array(name string) (*array, error) {
	if n.format == 3 {
		return parseV3(n.dir, name, n.meta)
	}
	a, err := parseV2(n.dir, name, n.meta)
	if err == nil {
		a.attrs = n.attrs
	}
	return a, err
}

// Axis is an OME-Zarr axis.
type Axis struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Unit string `json:"unit"`
}

type transform struct {
	Type  string    `json:"type"`
	Scale []float64 `json:"scale"`
}

type multiscale struct {
	Version  string          `json:"version"`
	Name     string          `json:"name"`
	AxesRaw  json.RawMessage `json:"axes"`
	Datasets []struct {
		Path string      `json:"path"`
		CT   []transform `json:"coordinateTransformations"`
	} `json:"datasets"`
	CT   []transform `json:"coordinateTransformations"`
	axes []Axis
}

// multiscales finds OME-Zarr multiscale metadata in a group's attributes
// (0.4: at the top; 0.5: under "ome"), with the NGFF version.
func multiscales(attrs json.RawMessage) (*multiscale, string, error) {
	if len(bytes.TrimSpace(attrs)) == 0 {
		return nil, "", nil
	}
	var top struct {
		MS  []multiscale `json:"multiscales"`
		OME *struct {
			Version string       `json:"version"`
			MS      []multiscale `json:"multiscales"`
		} `json:"ome"`
	}
	if err := json.Unmarshal(attrs, &top); err != nil {
		return nil, "", fmt.Errorf("OME-Zarr attributes: %v", err)
	}
	ms, version := top.MS, ""
	if top.OME != nil && len(top.OME.MS) > 0 {
		ms, version = top.OME.MS, top.OME.Version
	}
	if len(ms) == 0 {
		return nil, "", nil
	}
	m := &ms[0]
	if version == "" {
		version = m.Version
	}
	if len(m.Datasets) == 0 {
		return nil, "", errors.New("OME-Zarr multiscales lists no datasets")
	}
	if len(m.AxesRaw) > 0 {
		if err := json.Unmarshal(m.AxesRaw, &m.axes); err != nil {
			// NGFF 0.3 named the axes with strings.
			var names []string
			if json.Unmarshal(m.AxesRaw, &names) != nil {
				return nil, "", fmt.Errorf("OME-Zarr axes %s: %v", m.AxesRaw, err)
			}
			for _, n := range names {
				m.axes = append(m.axes, Axis{Name: n})
			}
		}
	}
	for i := range m.axes {
		if m.axes[i].Type == "" {
			switch m.axes[i].Name {
			case "x", "y", "z":
				m.axes[i].Type = "space"
			case "c":
				m.axes[i].Type = "channel"
			case "t":
				m.axes[i].Type = "time"
			}
		}
	}
	return m, version, nil
}

// store is an opened Zarr store: one array, or the levels of an OME-Zarr
// image.
type store struct {
	path    string
	ms      *multiscale
	version string
	// levels are the arrays of the image (one for a plain array), paths
	// their paths inside the store.
	levels []*array
	paths  []string
	// n5: an N5 container; voxel and factors are its levels' voxel sizes
	// and downsampling factors per array dimension (nil: unknown), from
	// the levels' attributes (levelAttrs).
	n5         bool
	voxel      [][]float64
	factors    [][]float64
	levelAttrs []n5Attrs
}

// openStore opens the store at root and the array or image sel.path names.
func openStore(root string, sel selection) (*store, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a Zarr store (a Zarr store is a folder)", root)
	}
	s := &store{path: root}
	rn, err := readNode(root, root)
	if err != nil {
		return nil, err
	}
	n, at := rn, ""
	ms, version, err := multiscales(rn.attrs)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", root, err)
	}
	if sel.path != "" && ms != nil {
		// A level of the image: its path, or its index.
		found := -1
		for i, d := range ms.Datasets {
			if d.Path == sel.path {
				found = i
			}
		}
		if i, err := strconv.Atoi(sel.path); found < 0 && err == nil && i >= 0 && i < len(ms.Datasets) {
			found = i
		}
		if found < 0 {
			// Another node inside the image group (labels/...).
			ms = nil
		}
	}
	if sel.path != "" && ms == nil {
		clean := filepath.ToSlash(filepath.Clean(sel.path))
		if strings.HasPrefix(clean, "..") || filepath.IsAbs(sel.path) {
			return nil, fmt.Errorf("%s: path %q leaves the store", root, sel.path)
		}
		if n, err = readNode(filepath.Join(root, filepath.FromSlash(clean)), root+":/"+clean); err != nil {
			return nil, err
		}
		at = clean
		if !n.isArray {
			if ms, version, err = multiscales(n.attrs); err != nil {
				return nil, fmt.Errorf("%s:/%s: %v", root, clean, err)
			}
		}
	}
	if n.isArray {
		name := root
		if at != "" {
			name += ":/" + at
		}
		a, err := n.array(name)
		if err != nil {
			return nil, err
		}
		s.levels, s.paths = []*array{a}, []string{at}
		return s, nil
	}
	if ms == nil {
		return nil, fmt.Errorf("%s: a Zarr group without OME-Zarr multiscales; name an array inside it (%s)", joinName(root, at), listArrays(n.dir, root, at))
	}
	s.ms, s.version = ms, version
	for _, d := range ms.Datasets {
		p := strings.Trim(d.Path, "/")
		if at != "" {
			p = at + "/" + p
		}
		clean := filepath.ToSlash(filepath.Clean(p))
		if strings.HasPrefix(clean, "..") || d.Path == "" {
			return nil, fmt.Errorf("%s: OME-Zarr dataset path %q is not inside the store", root, d.Path)
		}
		name := root + ":/" + clean
		ln, err := readNode(filepath.Join(root, filepath.FromSlash(clean)), name)
		if err != nil {
			return nil, err
		}
		if !ln.isArray {
			return nil, fmt.Errorf("%s: an OME-Zarr dataset is a group, not an array", name)
		}
		a, err := ln.array(name)
		if err != nil {
			return nil, err
		}
		if len(ms.axes) > 0 && len(ms.axes) != len(a.shape) {
			return nil, fmt.Errorf("%s: %d OME-Zarr axes for an array of %d dimensions", name, len(ms.axes), len(a.shape))
		}
		if len(s.levels) > 0 && len(a.shape) != len(s.levels[0].shape) {
			return nil, fmt.Errorf("%s: level of %d dimensions in a pyramid of %d", name, len(a.shape), len(s.levels[0].shape))
		}
		s.levels, s.paths = append(s.levels, a), append(s.paths, clean)
	}
	return s, nil
}

func joinName(root, at string) string {
	if at == "" {
		return root
	}
	return root + ":/" + at
}

// listArrays names up to a few arrays or images in the group at dir, as
// specs.
func listArrays(dir, root, at string) string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if _, err := readNode(filepath.Join(dir, e.Name()), e.Name()); err == nil {
			p := e.Name()
			if at != "" {
				p = at + "/" + p
			}
			names = append(names, root+":/"+p)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "it holds none"
	}
	if len(names) > 4 {
		names = append(names[:4], "...")
	}
	return strings.Join(names, ", ")
}

// layout maps an array's dimensions to a volume's (z, y, x): dims[i] is
// the array dimension of volume axis i (-1: the volume has one plane
// along it), fixed the index of every other dimension (-1 for the
// spatial ones).
type layout struct {
	dims    [3]int
	fixed   []int
	channel int // array dimension of the channel axis, or -1
	time    int
}

func (s *store) layout(sel selection) (layout, error) {
	a := s.levels[0]
	nd := len(a.shape)
	l := layout{dims: [3]int{-1, -1, -1}, fixed: make([]int, nd), channel: -1, time: -1}
	var spatial []int
	name := s.levelName(0)
	if s.ms != nil && len(s.ms.axes) > 0 {
		for i, ax := range s.ms.axes {
			switch ax.Type {
			case "space":
				spatial = append(spatial, i)
			case "channel":
				l.channel = i
			case "time":
				l.time = i
			}
		}
	} else {
		for i := max(0, nd-3); i < nd; i++ {
			spatial = append(spatial, i)
		}
	}
	if len(spatial) < 2 || len(spatial) > 3 {
		return l, fmt.Errorf("%s: %d spatial axes; voxlab reads images of 2 or 3", name, len(spatial))
	}
	for i, d := range spatial {
		l.dims[3-len(spatial)+i] = d
	}
	if sel.hasC && l.channel < 0 || sel.hasT && l.time < 0 {
		return l, fmt.Errorf("%s: the image has no channel or time axis to choose (c=, t= need OME-Zarr axes of those types)", name)
	}
	for d := range nd {
		l.fixed[d] = 0
		switch {
		case d == l.channel:
			l.fixed[d] = sel.c
		case d == l.time:
			l.fixed[d] = sel.t
		}
		if l.fixed[d] >= a.shape[d] {
			return l, fmt.Errorf("%s: %s %d is out of range: the image has %d", name, axisWord(d, l), l.fixed[d], a.shape[d])
		}
	}
	for _, d := range spatial {
		l.fixed[d] = -1
	}
	for d := range nd {
		if l.fixed[d] == 0 && a.shape[d] > 1 && d != l.channel && d != l.time {
			return l, fmt.Errorf("%s: array of shape %v: voxlab reads 3-D volumes, and dimension %d (%d long) is neither spatial nor an OME-Zarr channel or time axis", name, a.shape, d, a.shape[d])
		}
	}
	return l, nil
}

func axisWord(d int, l layout) string {
	if d == l.channel {
		return "channel"
	}
	return "time point"
}

func (s *store) levelName(i int) string { return joinName(s.path, s.paths[i]) }

// info returns the volume info of level i under layout l.
func (s *store) info(i int, l layout) volume.Info {
	a := s.levels[i]
	in := volume.Info{DType: a.dtype, Shape: [3]int{1, 1, 1}}
	sc := s.scale(i)
	for k, d := range l.dims {
		if d >= 0 {
			in.Shape[k] = a.shape[d]
			if sc != nil {
				in.VoxelSize[k] = sc[d]
			}
		}
	}
	return in
}

// scale returns the physical voxel size of level i along every array
// dimension (its own scale transform times the image's), or nil.
func (s *store) scale(i int) []float64 {
	if s.voxel != nil {
		return s.voxel[i]
	}
	if s.ms == nil {
		return nil
	}
	nd := len(s.levels[i].shape)
	var out []float64
	apply := func(ts []transform) {
		for _, t := range ts {
			if t.Type == "scale" && len(t.Scale) == nd {
				if out == nil {
					out = make([]float64, nd)
					for d := range out {
						out[d] = 1
					}
				}
				for d := range out {
					out[d] *= t.Scale[d]
				}
			}
		}
	}
	apply(s.ms.Datasets[i].CT)
	apply(s.ms.CT)
	return out
}

// Source reads one level of a store as a volume.
type Source struct {
	st    *store
	level int
	arr   *array
	l     layout
	info  volume.Info
	rd    atomic.Pointer[reads]
}

// Open opens the Zarr array or OME-Zarr image at path; dataset is the
// spec's selection (see the package documentation).
func Open(path, dataset string) (*volume.Volume, error) {
	sel, err := parseSelection(dataset)
	if err != nil {
		return nil, fmt.Errorf("%s:%s: %v", path, dataset, err)
	}
	st, err := openStore(path, sel)
	if err != nil {
		return nil, err
	}
	level := 0
	if st.ms != nil && sel.path != "" {
		for i, p := range st.paths {
			if p == sel.path || strings.TrimPrefix(p, "/") == sel.path {
				level = i
			}
		}
		if n, err := strconv.Atoi(sel.path); err == nil && st.paths[level] != sel.path && n < len(st.levels) {
			level = n
		}
	}
	l, err := st.layout(sel)
	if err != nil {
		return nil, err
	}
	src := st.source(level, l)
	return volume.New(st.levelName(level), src), nil
}

func (s *store) source(level int, l layout) *Source {
	return &Source{st: s, level: level, arr: s.levels[level], l: l, info: s.info(level, l)}
}

// Info implements volume.Source.
func (s *Source) Info() volume.Info { return s.info }

// Close implements volume.Source; files are opened per read.
func (s *Source) Close() error { return nil }

// ReadSlab implements volume.Source.
func (s *Source) ReadSlab(z0, z1 int, dst []byte) error {
	if err := volume.CheckSlab(s.info, z0, z1, len(dst)); err != nil {
		return err
	}
	if z0 == z1 {
		return nil
	}
	return s.ReadBox(volume.Box{Z0: z0, Z1: z1, Y1: s.info.Shape[1], X1: s.info.Shape[2]}, dst)
}

// ReadBox implements volume.BoxReader: only the chunks the box touches
// are read.
func (s *Source) ReadBox(b volume.Box, dst []byte) error {
	if err := volume.CheckBox(s.info, b, len(dst)); err != nil {
		return err
	}
	if b.Len() == 0 {
		return nil
	}
	nd := len(s.arr.shape)
	lo, hi := make([]int, nd), make([]int, nd)
	for d, f := range s.l.fixed {
		if f >= 0 {
			lo[d], hi[d] = f, f+1
		}
	}
	box := [3][2]int{{b.Z0, b.Z1}, {b.Y0, b.Y1}, {b.X0, b.X1}}
	for k, d := range s.l.dims {
		if d >= 0 {
			lo[d], hi[d] = box[k][0], box[k][1]
		}
	}
	return s.arr.read(dst, lo, hi, s.reads())
}

// Levels implements volume.Pyramid.
func (s *Source) Levels() int { return len(s.st.levels) - s.level }

// LevelInfo implements volume.Pyramid, counting levels from this one.
func (s *Source) LevelInfo(i int) (volume.Info, [3]float64) {
	in := s.st.info(s.level+i, s.l)
	var f [3]float64
	for k := range f {
		f[k] = float64(s.info.Shape[k]) / float64(in.Shape[k])
		if s.info.VoxelSize[k] > 0 && in.VoxelSize[k] > 0 {
			f[k] = in.VoxelSize[k] / s.info.VoxelSize[k]
		} else if fs := s.st.factors; fs != nil && s.l.dims[k] >= 0 {
			d := s.l.dims[k]
			f[k] = fs[s.level+i][d] / fs[s.level][d]
		}
	}
	return in, f
}

// OpenLevel implements volume.Pyramid.
func (s *Source) OpenLevel(i int) (*volume.Volume, error) {
	if i < 0 || s.level+i >= len(s.st.levels) {
		return nil, fmt.Errorf("%s: level %d out of range (%d levels)", s.st.path, i, s.Levels())
	}
	return volume.New(s.st.levelName(s.level+i), s.st.source(s.level+i, s.l)), nil
}

// chunk returns the shape of the chunks a read decodes (the inner chunks
// of a sharded array), their codecs and the most bytes one is stored in.
func (s *Source) chunk() ([]int, *chain, int64) {
	if sh := s.arr.chain.shard; sh != nil {
		return sh.inner, &sh.chain, sh.chain.storedBound(s.arr.chunkBytes())
	}
	return s.arr.chunks, &s.arr.chain, s.arr.storedBound()
}

// ChunkLayout implements volume.Chunked.
func (s *Source) ChunkLayout() volume.ChunkLayout {
	shape, c, stored := s.chunk()
	n := int64(s.arr.dtype.Size())
	for _, k := range shape {
		n *= int64(k)
	}
	l := volume.ChunkLayout{Depth: 1, Layers: 1, Chunk: n, Layer: n, PerDecoder: decodeHeld(n, stored, c), Decoded: n}
	chunks := 1
	for k, d := range s.l.dims {
		if d < 0 {
			continue
		}
		across := (s.arr.shape[d] + shape[d] - 1) / shape[d]
		chunks = min(chunks*across, 1<<20)
		if k == 0 {
			l.Depth, l.Layers = shape[d], across
		} else {
			l.Layer *= int64(across)
		}
	}
	// More decoders than chunks would hold buffers for nothing.
	l.MaxDecoders = min(runtime.GOMAXPROCS(0), chunks)
	return l
}

// ReadMemory implements volume.Chunked.
func (s *Source) ReadMemory() volume.ReadMemory {
	r := s.reads()
	return volume.ReadMemory{Decoders: r.decoders, PerDecoder: s.ChunkLayout().PerDecoder, Cache: r.cache.Capacity(), Keep: r.keep, Track: r.track}
}

// SetReadMemory implements volume.Chunked: the next reads decode at most
// m.Decoders chunks at once and cache up to m.Cache bytes of decoded
// chunks (a new, empty cache).
func (s *Source) SetReadMemory(m volume.ReadMemory) {
	l := s.ChunkLayout()
	r := &reads{decoders: max(1, min(m.Decoders, l.MaxDecoders)), keep: max(m.Keep, 0), zdim: s.l.dims[0], track: m.Track}
	// One spare chunk buffer per decoder: decodes reuse memory.
	r.cache = volume.NewChunkCache[chunkKey](m.Cache, l.Chunk, r.decoders, m.Track)
	if old := s.rd.Swap(r); old != nil {
		old.cache.Purge()
	}
}

// ResetReadMemory sets the reads back to their defaults (every CPU
// decoding, no cache, no spare buffers), letting the cache go.
func (s *Source) ResetReadMemory() {
	if old := s.rd.Swap(nil); old != nil {
		old.cache.Purge()
	}
}

// reads returns the reads' settings: the plan's, or every CPU decoding
// and no cache.
func (s *Source) reads() *reads {
	if r := s.rd.Load(); r != nil {
		return r
	}
	return &reads{decoders: runtime.GOMAXPROCS(0), zdim: s.l.dims[0]}
}
