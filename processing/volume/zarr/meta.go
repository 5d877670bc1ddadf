package zarr

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/processing/volume/fileio"
)

// maxDims bounds the rank of an array: OME-Zarr images have at most five
// axes, and a bound keeps a damaged shape from costing loops.
const maxDims = 32

// array is an opened Zarr array: its metadata, parsed and checked.
type array struct {
	// dir is the array's folder; name is how messages call it.
	dir, name string
	format    int
	shape     []int
	// chunks is the shape of the stored objects: the shards of a sharded
	// array, else the chunks.
	chunks []int
	dtype  volume.DType
	// fill is one element of the fill value in native byte order.
	fill []byte
	// chain decodes a stored object.
	chain chain
	// keys names the stored object of a chunk-grid index.
	keys keyEncoding
	// stored lists the objects stored, once a read needs it.
	stored listing
	// codecs describes the codec chain for people; order is "C" or "F"
	// (or a transpose's permutation).
	codecs, order string
	attrs         json.RawMessage
	dimNames      []string
	index         *indexCache
	// n5: the array is an N5 dataset, whose blocks start with a header
	// giving their shape (n5.go).
	n5 bool
}

// chain is a codec pipeline: bytes-to-bytes codecs (in encoding order),
// then the array-to-bytes step (the bytes codec, or sharding).
type chain struct {
	// perm is the transpose applied before encoding: encoded axis k is
	// decoded axis perm[k]; nil is C order.
	perm []int
	// bigEndian: the bytes codec (or a v2 dtype) stored elements big-end first.
	bigEndian bool
	b2b       []bytesCodec
	shard     *shardSpec
}

// shardSpec is the configuration of a sharding_indexed codec.
type shardSpec struct {
	inner        []int
	chain        chain
	indexCRC     bool
	indexAtStart bool
}

type bytesCodec struct {
	name string
	// cname is Blosc's internal compressor (for descriptions).
	cname string
}

type jsonCodec struct {
	Name          string          `json:"name"`
	Configuration json.RawMessage `json:"configuration"`
}

// readMeta reads a metadata file (.zarray, zarr.json, .zattrs, N5's
// attributes.json): a regular file of at most fileio.MetadataLimit
// bytes. A file that does not exist gives nil and no error.
func readMeta(path string) ([]byte, error) {
	b, err := fileio.ReadFile(path, fileio.MetadataLimit, filepath.Base(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

func decodeJSON(path string, b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%s: not valid Zarr metadata: %v", path, err)
	}
	return nil
}

type v2Meta struct {
	Format     *int            `json:"zarr_format"`
	Shape      []int           `json:"shape"`
	Chunks     []int           `json:"chunks"`
	DType      json.RawMessage `json:"dtype"`
	Compressor json.RawMessage `json:"compressor"`
	Fill       json.RawMessage `json:"fill_value"`
	Order      string          `json:"order"`
	Filters    json.RawMessage `json:"filters"`
	Separator  string          `json:"dimension_separator"`
}

// parseV2 parses a .zarray file's contents; dir is the array's folder.
func parseV2(dir, name string, b []byte) (*array, error) {
	var m v2Meta
	if err := decodeJSON(filepath.Join(dir, ".zarray"), b, &m); err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: .zarray: %s", name, fmt.Sprintf(format, a...))
	}
	if m.Format == nil || *m.Format != 2 {
		return nil, bad("zarr_format is not 2")
	}
	a := &array{dir: dir, name: name, format: 2, shape: m.Shape, chunks: m.Chunks, order: m.Order}
	if err := a.checkGrid(); err != nil {
		return nil, bad("%v", err)
	}
	var dt string
	if err := json.Unmarshal(m.DType, &dt); err != nil {
		return nil, bad("dtype %s is not a simple type (structured dtypes are not volumes)", m.DType)
	}
	var err error
	if a.dtype, err = volume.ParseDType(dt); err != nil || len(dt) != 3 {
		return nil, bad("dtype %q: voxlab reads |u1 |i1 <u2 <i2 <u4 <i4 <f4 <f8 (or big-endian >)", dt)
	}
	a.chain.bigEndian = dt[0] == '>' && a.dtype.Size() > 1
	switch m.Order {
	case "C":
	case "F":
		a.chain.perm = make([]int, len(a.shape))
		for i := range a.chain.perm {
			a.chain.perm[i] = len(a.shape) - 1 - i
		}
	default:
		return nil, bad("order %q is neither C nor F", m.Order)
	}
	if f := bytes.TrimSpace(m.Filters); len(f) > 0 && !bytes.Equal(f, []byte("null")) && !bytes.Equal(f, []byte("[]")) {
		return nil, bad("filters %s: voxlab reads arrays without filters", f)
	}
	if c := bytes.TrimSpace(m.Compressor); len(c) > 0 && !bytes.Equal(c, []byte("null")) {
		var cc struct {
			ID    string `json:"id"`
			CName string `json:"cname"`
		}
		if err := json.Unmarshal(c, &cc); err != nil {
			return nil, bad("compressor %s: %v", c, err)
		}
		bc, err := newBytesCodec(cc.ID, cc.CName)
		if err != nil {
			return nil, bad("%v", err)
		}
		a.chain.b2b = []bytesCodec{bc}
	}
	if a.fill, err = fillBytes(m.Fill, a.dtype); err != nil {
		return nil, bad("fill_value: %v", err)
	}
	sep := m.Separator
	switch sep {
	case "":
		sep = "."
	case ".", "/":
	default:
		return nil, bad("dimension_separator %q is neither . nor /", sep)
	}
	a.keys = keyEncoding{sep: sep}
	if err := a.checkChunkBytes(); err != nil {
		return nil, bad("%v", err)
	}
	a.codecs = a.chain.describe()
	return a, nil
}

// keyEncoding is a chunk key encoding: prefix then the grid indices
// joined by sep ("0.0.0", "c/0/0/0"); reversed writes them last axis
// first (N5's "x/y/z" for an array read as z, y, x).
type keyEncoding struct {
	prefix, sep string
	reversed    bool
}

// key returns the key of grid index idx.
func (k keyEncoding) key(idx []int) string {
	var b strings.Builder
	b.WriteString(k.prefix)
	for i := range idx {
		if i > 0 {
			b.WriteString(k.sep)
		}
		n := idx[i]
		if k.reversed {
			n = idx[len(idx)-1-i]
		}
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

// parse reads a key (with "/" separating folders) back into dst, the
// grid index of an array of len(dst) dimensions; false if it is not a
// chunk's key.
func (k keyEncoding) parse(key string, dst []int) bool {
	rest, ok := strings.CutPrefix(key, k.prefix)
	if !ok {
		return false
	}
	for i := range dst {
		var part string
		if i < len(dst)-1 {
			if part, rest, ok = strings.Cut(rest, k.sep); !ok {
				return false
			}
		} else {
			part = rest
		}
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 || len(part) > 1 && part[0] == '0' {
			return false
		}
		if k.reversed {
			dst[len(dst)-1-i] = n
		} else {
			dst[i] = n
		}
	}
	return true
}

// maxChunkBytes bounds a decoded chunk (an inner chunk of a shard):
// voxlab decodes a chunk whole, one per CPU at a time, so a chunk that
// no memory budget can hold is refused when the array is opened rather
// than when a read allocates it. 2 GiB is Blosc's own limit on a buffer;
// writers chunk volumes at a few MiB to a few hundred.
const maxChunkBytes = 2 << 30

// checkChunkBytes refuses an array whose decoded chunks (inner chunks of
// a sharded array) are larger than maxChunkBytes.
func (a *array) checkChunkBytes() error {
	shape := a.chunks
	if a.chain.shard != nil {
		shape = a.chain.shard.inner
	}
	if n := a.chunkBytes(); n > maxChunkBytes {
		return fmt.Errorf("chunks of %v %s are %d MiB each, more than voxlab's limit of %d MiB for a chunk it decodes whole (rechunk the array)", shape, a.dtype, n>>20, maxChunkBytes>>20)
	}
	return nil
}

// chunkBytes returns the bytes of one decoded chunk (an inner chunk of
// a sharded array).
func (a *array) chunkBytes() int64 {
	shape := a.chunks
	if a.chain.shard != nil {
		shape = a.chain.shard.inner
	}
	n := int64(a.dtype.Size())
	for _, c := range shape {
		n *= int64(c)
	}
	return n
}

// storedBound returns the most bytes one stored chunk can take: its
// decoded bytes through the codecs' bounds, and an N5 block's header.
func (a *array) storedBound() int64 {
	n := a.chain.storedBound(a.chunkBytes())
	if a.n5 {
		n += n5HeaderBytes(len(a.shape))
	}
	return n
}

// checkGrid checks shape against chunks: positive sizes, chunks of at
// most 2^31 elements, and an array of at most 2^63 elements (so that a
// chunk's place in the grid is a number).
func (a *array) checkGrid() error {
	if len(a.shape) == 0 || len(a.shape) > maxDims {
		return fmt.Errorf("shape %v: want 1 to %d dimensions", a.shape, maxDims)
	}
	if len(a.chunks) != len(a.shape) {
		return fmt.Errorf("chunk shape %v does not match shape %v", a.chunks, a.shape)
	}
	total, all := int64(1), int64(1)
	for i, n := range a.shape {
		if n <= 0 || a.chunks[i] <= 0 {
			return fmt.Errorf("shape %v, chunks %v: every size must be positive", a.shape, a.chunks)
		}
		if total > math.MaxInt32/int64(a.chunks[i]) {
			return fmt.Errorf("chunk shape %v is too large (over 2^31 elements)", a.chunks)
		}
		total *= int64(a.chunks[i])
		if all > math.MaxInt64/int64(n) {
			return fmt.Errorf("shape %v is too large (over 2^63 elements)", a.shape)
		}
		all *= int64(n)
	}
	return nil
}

type v3Meta struct {
	Format    *int            `json:"zarr_format"`
	NodeType  string          `json:"node_type"`
	Shape     []int           `json:"shape"`
	DataType  json.RawMessage `json:"data_type"`
	ChunkGrid struct {
		Name string `json:"name"`
		Conf struct {
			Shape []int `json:"chunk_shape"`
		} `json:"configuration"`
	} `json:"chunk_grid"`
	KeyEncoding struct {
		Name string `json:"name"`
		Conf struct {
			Separator string `json:"separator"`
		} `json:"configuration"`
	} `json:"chunk_key_encoding"`
	Fill       json.RawMessage `json:"fill_value"`
	Codecs     []jsonCodec     `json:"codecs"`
	Attributes json.RawMessage `json:"attributes"`
	DimNames   []*string       `json:"dimension_names"`
	Storage    json.RawMessage `json:"storage_transformers"`
}

// parseV3 parses an array's zarr.json contents.
func parseV3(dir, name string, b []byte) (*array, error) {
	var m v3Meta
	if err := decodeJSON(filepath.Join(dir, "zarr.json"), b, &m); err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: zarr.json: %s", name, fmt.Sprintf(format, a...))
	}
	if m.Format == nil || *m.Format != 3 {
		return nil, bad("zarr_format is not 3")
	}
	if m.NodeType != "array" {
		return nil, bad("node_type %q is not an array", m.NodeType)
	}
	if s := bytes.TrimSpace(m.Storage); len(s) > 0 && !bytes.Equal(s, []byte("[]")) && !bytes.Equal(s, []byte("null")) {
		return nil, bad("storage_transformers %s are not supported", s)
	}
	if m.ChunkGrid.Name != "regular" {
		return nil, bad("chunk_grid %q: voxlab reads regular chunk grids", m.ChunkGrid.Name)
	}
	a := &array{dir: dir, name: name, format: 3, shape: m.Shape, chunks: m.ChunkGrid.Conf.Shape, attrs: m.Attributes, order: "C"}
	if err := a.checkGrid(); err != nil {
		return nil, bad("%v", err)
	}
	for _, n := range m.DimNames {
		if n != nil {
			a.dimNames = append(a.dimNames, *n)
		} else {
			a.dimNames = append(a.dimNames, "")
		}
	}
	var dt string
	if err := json.Unmarshal(m.DataType, &dt); err != nil {
		return nil, bad("data_type %s is not a named type", m.DataType)
	}
	var err error
	if a.dtype, err = volume.ParseDType(dt); err != nil || dt != a.dtype.String() {
		return nil, bad("data_type %q: voxlab reads int8 uint8 int16 uint16 int32 uint32 float32 float64", dt)
	}
	switch m.KeyEncoding.Name {
	case "default":
		sep := m.KeyEncoding.Conf.Separator
		if sep == "" {
			sep = "/"
		}
		if sep != "/" && sep != "." {
			return nil, bad("chunk_key_encoding separator %q is neither / nor .", sep)
		}
		a.keys = keyEncoding{prefix: "c" + sep, sep: sep}
	case "v2":
		sep := m.KeyEncoding.Conf.Separator
		if sep == "" {
			sep = "."
		}
		if sep != "/" && sep != "." {
			return nil, bad("chunk_key_encoding separator %q is neither / nor .", sep)
		}
		a.keys = keyEncoding{sep: sep}
	default:
		return nil, bad("chunk_key_encoding %q: voxlab reads default and v2", m.KeyEncoding.Name)
	}
	if a.chain, err = parseChain(m.Codecs, a.chunks, a.dtype, 0); err != nil {
		return nil, bad("codecs: %v", err)
	}
	if a.chain.perm != nil {
		a.order = fmt.Sprint(a.chain.perm)
	}
	if a.fill, err = fillBytes(m.Fill, a.dtype); err != nil {
		return nil, bad("fill_value: %v", err)
	}
	if err := a.checkChunkBytes(); err != nil {
		return nil, bad("%v", err)
	}
	a.codecs = a.chain.describe()
	if a.chain.shard != nil {
		a.index = newIndexCache()
	}
	return a, nil
}

// parseChain parses a v3 codec list for chunks of shape cshape; depth
// counts nested sharding.
func parseChain(codecs []jsonCodec, cshape []int, dt volume.DType, depth int) (chain, error) {
	var c chain
	stage := 0 // 0 array-to-array, 1 after array-to-bytes
	for _, jc := range codecs {
		switch jc.Name {
		case "transpose":
			if stage != 0 || c.perm != nil {
				return c, errors.New("transpose must come once, before the bytes codec")
			}
			p, err := parsePerm(jc.Configuration, len(cshape))
			if err != nil {
				return c, err
			}
			c.perm = p
		case "bytes":
			if stage != 0 {
				return c, errors.New("two array-to-bytes codecs")
			}
			stage = 1
			var conf struct {
				Endian string `json:"endian"`
			}
			if len(jc.Configuration) > 0 {
				if err := json.Unmarshal(jc.Configuration, &conf); err != nil {
					return c, fmt.Errorf("bytes: %v", err)
				}
			}
			switch conf.Endian {
			case "little":
			case "big":
				c.bigEndian = dt.Size() > 1
			case "":
				if dt.Size() > 1 {
					return c, errors.New("bytes codec without endian for a multi-byte type")
				}
			default:
				return c, fmt.Errorf("bytes: endian %q is neither little nor big", conf.Endian)
			}
		case "sharding_indexed":
			if stage != 0 {
				return c, errors.New("two array-to-bytes codecs")
			}
			if c.perm != nil {
				return c, errors.New("a transpose before sharding_indexed is not supported")
			}
			if depth > 0 {
				return c, errors.New("nested sharding is not supported")
			}
			stage = 1
			s, err := parseShard(jc.Configuration, cshape, dt)
			if err != nil {
				return c, fmt.Errorf("sharding_indexed: %v", err)
			}
			c.shard = s
		default:
			if stage == 0 {
				return c, fmt.Errorf("codec %q is not supported (voxlab reads transpose, bytes, sharding_indexed, zstd, blosc, gzip, zlib, crc32c)", jc.Name)
			}
			var conf struct {
				CName string `json:"cname"`
			}
			if len(jc.Configuration) > 0 {
				json.Unmarshal(jc.Configuration, &conf)
			}
			bc, err := newBytesCodec(strings.TrimPrefix(jc.Name, "numcodecs."), conf.CName)
			if err != nil {
				return c, err
			}
			c.b2b = append(c.b2b, bc)
		}
	}
	if stage == 0 {
		return c, errors.New("no bytes or sharding_indexed codec")
	}
	return c, nil
}

func parsePerm(conf json.RawMessage, n int) ([]int, error) {
	var v struct {
		Order json.RawMessage `json:"order"`
	}
	if err := json.Unmarshal(conf, &v); err != nil {
		return nil, fmt.Errorf("transpose: %v", err)
	}
	p := make([]int, n)
	var s string
	if json.Unmarshal(v.Order, &s) == nil {
		// Early v3 drafts wrote "C" or "F".
		for i := range p {
			p[i] = i
			if s == "F" {
				p[i] = n - 1 - i
			}
		}
		if s != "C" && s != "F" {
			return nil, fmt.Errorf("transpose order %q", s)
		}
	} else {
		var q []int
		if err := json.Unmarshal(v.Order, &q); err != nil || len(q) != n {
			return nil, fmt.Errorf("transpose order %s is not a permutation of %d axes", v.Order, n)
		}
		seen := make([]bool, n)
		for i, a := range q {
			if a < 0 || a >= n || seen[a] {
				return nil, fmt.Errorf("transpose order %v is not a permutation", q)
			}
			seen[a], p[i] = true, a
		}
	}
	for i := range p {
		if p[i] != i {
			return p, nil
		}
	}
	return nil, nil
}

func parseShard(conf json.RawMessage, shape []int, dt volume.DType) (*shardSpec, error) {
	var v struct {
		Shape    []int       `json:"chunk_shape"`
		Codecs   []jsonCodec `json:"codecs"`
		Index    []jsonCodec `json:"index_codecs"`
		Location string      `json:"index_location"`
	}
	if err := json.Unmarshal(conf, &v); err != nil {
		return nil, err
	}
	if len(v.Shape) != len(shape) {
		return nil, fmt.Errorf("inner chunk shape %v does not match shard shape %v", v.Shape, shape)
	}
	for i, n := range v.Shape {
		if n <= 0 || shape[i]%n != 0 {
			return nil, fmt.Errorf("inner chunk shape %v does not divide shard shape %v", v.Shape, shape)
		}
	}
	s := &shardSpec{inner: v.Shape}
	var err error
	if s.chain, err = parseChain(v.Codecs, v.Shape, dt, 1); err != nil {
		return nil, err
	}
	switch v.Location {
	case "", "end":
	case "start":
		s.indexAtStart = true
	default:
		return nil, fmt.Errorf("index_location %q is neither start nor end", v.Location)
	}
	for _, c := range v.Index {
		switch c.Name {
		case "bytes":
			var e struct {
				Endian string `json:"endian"`
			}
			json.Unmarshal(c.Configuration, &e)
			if e.Endian == "big" {
				return nil, errors.New("a big-endian shard index is not supported")
			}
		case "crc32c":
			s.indexCRC = true
		default:
			return nil, fmt.Errorf("index codec %q is not supported (bytes and crc32c are)", c.Name)
		}
	}
	return s, nil
}

// describe writes the chain for people: "bytes(little) | zstd".
func (c chain) describe() string {
	var parts []string
	if c.perm != nil {
		parts = append(parts, fmt.Sprintf("transpose%v", c.perm))
	}
	if c.shard != nil {
		idx := "index at end"
		if c.shard.indexAtStart {
			idx = "index at start"
		}
		if c.shard.indexCRC {
			idx += ", crc32c"
		}
		parts = append(parts, fmt.Sprintf("sharding_indexed(inner %v: %s; %s)", c.shard.inner, c.shard.chain.describe(), idx))
	} else if c.bigEndian {
		parts = append(parts, "bytes(big)")
	} else {
		parts = append(parts, "bytes(little)")
	}
	for _, b := range c.b2b {
		if b.cname != "" {
			parts = append(parts, b.name+"("+b.cname+")")
		} else {
			parts = append(parts, b.name)
		}
	}
	return strings.Join(parts, " | ")
}

// fillBytes converts a JSON fill value to one element in native order
// (little-endian: voxlab runs on little-endian machines).
func fillBytes(raw json.RawMessage, dt volume.DType) ([]byte, error) {
	out := make([]byte, dt.Size())
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return out, nil
	}
	var f float64
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch {
		case s == "NaN":
			f = math.NaN()
		case s == "Infinity":
			f = math.Inf(1)
		case s == "-Infinity":
			f = math.Inf(-1)
		case strings.HasPrefix(s, "0x") && dt.IsFloat():
			// v3: the raw bits in hexadecimal.
			u, err := strconv.ParseUint(s[2:], 16, 64)
			if err != nil || len(s)-2 != 2*dt.Size() {
				return nil, fmt.Errorf("%q is not %d bytes in hex", s, dt.Size())
			}
			if dt == volume.Float32 {
				binary.LittleEndian.PutUint32(out, uint32(u))
			} else {
				binary.LittleEndian.PutUint64(out, u)
			}
			return out, nil
		default:
			return nil, fmt.Errorf("%q is not a number", s)
		}
	} else {
		var b bool
		if json.Unmarshal(raw, &b) == nil {
			if b {
				f = 1
			}
		} else {
			var n json.Number
			if err := json.Unmarshal(raw, &n); err != nil {
				return nil, fmt.Errorf("%s is not a number", raw)
			}
			var err error
			if f, err = strconv.ParseFloat(n.String(), 64); err != nil {
				return nil, fmt.Errorf("%s is not a number", raw)
			}
		}
	}
	if dt.IsInteger() && (f != math.Trunc(f) || f < dt.MinValue() || f > dt.MaxValue()) {
		return nil, fmt.Errorf("%v does not fit %s", f, dt)
	}
	switch dt {
	case volume.Uint8:
		out[0] = uint8(f)
	case volume.Int8:
		out[0] = uint8(int8(f))
	case volume.Uint16:
		binary.LittleEndian.PutUint16(out, uint16(f))
	case volume.Int16:
		binary.LittleEndian.PutUint16(out, uint16(int16(f)))
	case volume.Uint32:
		binary.LittleEndian.PutUint32(out, uint32(f))
	case volume.Int32:
		binary.LittleEndian.PutUint32(out, uint32(int32(f)))
	case volume.Float32:
		binary.LittleEndian.PutUint32(out, math.Float32bits(float32(f)))
	case volume.Float64:
		binary.LittleEndian.PutUint64(out, math.Float64bits(f))
	}
	return out, nil
}

// n5HeaderBytes is the largest N5 block header of an array of nd
// dimensions: mode and dimension count, the block's size, and a
// varlength block's element count.
func n5HeaderBytes(nd int) int64 { return 4 + 4*int64(nd) + 4 }
