package zarr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/processing/volume/fileio"
)

// piece is one chunk to decode and place: a whole stored object, or an
// inner chunk of a shard (a byte range of it), or nothing stored (the
// fill value).
type piece struct {
	path string
	// off, n: the byte range of an inner chunk; n < 0 reads the whole file.
	off, n int64
	// max is the most bytes the stored object (or range) can take with
	// the chain's codecs: a larger one is refused before it is read.
	max    int64
	origin []int
	shape  []int
	chain  *chain
}

// read reads the region [lo, hi) of the array into dst, C order over the
// region, native byte order. Chunks the cache holds are copied first;
// the others are decoded by r's decoders in parallel.
func (a *array) read(dst []byte, lo, hi []int, r *reads) error {
	n := len(a.shape)
	es := a.dtype.Size()
	rshape := make([]int, n)
	want := int64(es)
	for d := range n {
		if lo[d] < 0 || hi[d] > a.shape[d] || lo[d] >= hi[d] {
			return fmt.Errorf("%s: region %v-%v outside shape %v", a.name, lo, hi, a.shape)
		}
		rshape[d] = hi[d] - lo[d]
		want *= int64(rshape[d])
	}
	if int64(len(dst)) != want {
		return fmt.Errorf("%s: buffer of %d bytes for a region of %d", a.name, len(dst), want)
	}
	pieces, fill, err := a.pieces(lo, hi)
	if err != nil {
		return err
	}
	if fill {
		// Some chunks are not stored: the region starts as the fill
		// value, and only stored chunks are placed over it.
		fillWith(dst, a.fill)
	}
	dstStr := cStrides(rshape)
	// The cached chunks are all looked up, and copied, before any
	// decoding adds to the cache: they are then the most recently used,
	// what a full cache lets go are the chunks this read is done with,
	// and none is let go while it is copied.
	type hit struct {
		p       piece
		data    []byte
		release func()
	}
	todo := pieces[:0]
	var hits []hit
	for _, p := range pieces {
		if src, release, ok := r.cache.Get(p.key()); ok {
			hits = append(hits, hit{p, src, release})
			continue
		}
		todo = append(todo, p)
	}
	// Copies hold no memory of their own: every CPU takes part.
	parallel(len(hits), runtime.GOMAXPROCS(0), func(i int) error {
		h := &hits[i]
		copyOverlap(dst, dstStr, lo, hi, h.data, chunkStrides(h.p.shape, h.p.chain.perm), h.p.origin, h.p.shape, es)
		h.release()
		return nil
	})
	return parallel(len(todo), max(r.decoders, 1), func(i int) error { return a.place(dst, dstStr, lo, hi, &todo[i], r) })
}

// parallel calls f(i) for i in [0, n) on up to workers goroutines, and
// returns the first error (the others stop taking work once one fails).
func parallel(n, workers int, f func(i int) error) error {
	var next atomic.Int64
	var failed atomic.Bool
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					failed.Store(true)
					once.Do(func() { firstErr = err })
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}

// chunkKey names a decoded chunk in a cache: its file, and its byte
// offset in a shard.
type chunkKey struct {
	path string
	off  int64
}

func (p *piece) key() chunkKey { return chunkKey{p.path, p.off} }

// reads is how a Source's reads use memory: the chunks decoded at once
// and the cache of decoded chunks, set from a plan (SetReadMemory); by
// default every CPU decodes and nothing is cached.
type reads struct {
	decoders int
	cache    *volume.ChunkCache[chunkKey]
	// keep: the planes a read shares with the next; zdim the array
	// dimension of the volume's z axis (-1: none).
	keep, zdim int
	track      *plan.Tracker
	// decoded counts the chunks decoded (tests hold it against the
	// chunks read).
	decoded atomic.Int64
}

// keeps reports whether chunk p is worth caching after a read of [lo,
// hi): it holds planes the next read reads too (the last keep planes,
// or planes past the end).
func (r *reads) keeps(p *piece, hi []int) bool {
	if r.cache.Capacity() == 0 || r.zdim < 0 {
		return false
	}
	return p.origin[r.zdim]+p.shape[r.zdim] > hi[r.zdim]-r.keep
}

// manyChunks and tinyChunk decide when a read lists the array's stored
// objects (chunks, or shards) instead of trying each: when it touches
// more than manyChunks of them, returning less than tinyChunk bytes of
// each on average (a store of tiny chunks, most of them perhaps not
// stored, where a file-system call and a piece per chunk would cost far
// more than the data). The listing is made once and kept; only stored
// objects are then placed, over the fill value, so such a read costs
// what it returns. Chunks of a useful size are tried one by one, as
// listing a large dense store would cost more.
const (
	manyChunks = 1024
	tinyChunk  = 4 << 10
)

// maxListed bounds a listing: a folder of more entries than this is not
// listed (its reads try chunk by chunk), so that a listing stays within
// tens of MiB (a variable for tests).
var maxListed = 1 << 22

// pieces lists the stored chunks (or inner chunks) that overlap [lo,
// hi), and whether the region must first be filled with the fill value
// because some of them are not stored (a chunk not yet known to be
// missing is listed: place fills it when it is not found).
func (a *array) pieces(lo, hi []int) (out []piece, fill bool, err error) {
	var stored []int64
	var gstr []int64
	region := int64(a.dtype.Size())
	for d := range lo {
		region *= int64(hi[d] - lo[d])
	}
	if n := regionChunks(a.chunks, lo, hi); n > manyChunks && region/n < tinyChunk {
		var listed bool
		if stored, listed, err = a.stored.get(a); err != nil {
			return nil, false, err
		}
		if listed {
			gstr = a.gridStrides()
		}
	}
	eachChunk(a.chunks, lo, hi, func(idx []int) bool {
		if gstr != nil {
			lin := int64(0)
			for d, i := range idx {
				lin += int64(i) * gstr[d]
			}
			if _, found := slices.BinarySearch(stored, lin); !found {
				fill = true
				return true
			}
		}
		origin := make([]int, len(idx))
		for d, i := range idx {
			origin[d] = i * a.chunks[d]
		}
		path := filepath.Join(a.dir, filepath.FromSlash(a.keys.key(idx)))
		if a.chain.shard == nil {
			out = append(out, piece{path: path, n: -1, max: a.storedBound(), origin: origin, shape: a.chunks, chain: &a.chain})
			return true
		}
		s := a.chain.shard
		var index []uint64
		if index, err = a.shardIndex(path); err != nil {
			return false
		}
		if index == nil {
			fill = true // the shard is not stored
			return true
		}
		// Inner chunks of this shard that overlap the region.
		slo, shi := make([]int, len(idx)), make([]int, len(idx))
		per := make([]int, len(idx))
		for d := range idx {
			slo[d] = max(lo[d], origin[d]) - origin[d]
			shi[d] = min(hi[d], origin[d]+a.chunks[d]) - origin[d]
			per[d] = a.chunks[d] / s.inner[d]
		}
		eachChunk(s.inner, slo, shi, func(in []int) bool {
			k := 0
			o := make([]int, len(in))
			for d, i := range in {
				k = k*per[d] + i
				o[d] = origin[d] + i*s.inner[d]
			}
			if index[2*k] == math.MaxUint64 && index[2*k+1] == math.MaxUint64 {
				fill = true // the inner chunk is not stored
				return true
			}
			out = append(out, piece{path: path, off: int64(index[2*k]), n: int64(index[2*k+1]),
				max: s.chain.storedBound(a.chunkBytes()), origin: o, shape: s.inner, chain: &s.chain})
			return true
		})
		return true
	})
	return out, fill, err
}

// regionChunks counts the chunks of shape chunks overlapping [lo, hi),
// saturating at MaxInt64.
func regionChunks(chunks, lo, hi []int) int64 {
	n := int64(1)
	for d := range chunks {
		k := int64((hi[d]-1)/chunks[d] - lo[d]/chunks[d] + 1)
		if n > math.MaxInt64/k {
			return math.MaxInt64
		}
		n *= k
	}
	return n
}

// fillWith fills dst with copies of the element v, doubling the filled
// part at each copy.
func fillWith(dst, v []byte) {
	if len(dst) == 0 {
		return
	}
	if !slices.ContainsFunc(v, func(b byte) bool { return b != 0 }) {
		clear(dst)
		return
	}
	n := copy(dst, v)
	for n < len(dst) {
		n += copy(dst[n:], dst[:n])
	}
}

// eachChunk calls f with the grid index of every chunk (of shape chunks)
// overlapping [lo, hi), in C order, until f returns false. idx is
// reused from call to call: f copies what it keeps.
func eachChunk(chunks, lo, hi []int, f func(idx []int) bool) {
	n := len(chunks)
	first, last := make([]int, n), make([]int, n)
	for d := range n {
		first[d], last[d] = lo[d]/chunks[d], (hi[d]-1)/chunks[d]
	}
	idx := append([]int(nil), first...)
	for {
		if !f(idx) {
			return
		}
		d := n - 1
		for ; d >= 0; d-- {
			if idx[d] < last[d] {
				idx[d]++
				break
			}
			idx[d] = first[d]
		}
		if d < 0 {
			return
		}
	}
}

func cStrides(shape []int) []int {
	s := make([]int, len(shape))
	acc := 1
	for d := len(shape) - 1; d >= 0; d-- {
		s[d] = acc
		acc *= shape[d]
	}
	return s
}

// chunkStrides returns the element strides, per decoded axis, of a chunk
// of shape stored after the transpose perm.
func chunkStrides(shape, perm []int) []int {
	if perm == nil {
		return cStrides(shape)
	}
	enc := make([]int, len(shape))
	for k, p := range perm {
		enc[k] = shape[p]
	}
	es := cStrides(enc)
	s := make([]int, len(shape))
	for k, p := range perm {
		s[p] = es[k]
	}
	return s
}

// place decodes piece p and copies its overlap with [lo, hi) into dst:
// a chunk that fills a run of dst is decoded straight into it unless the
// next read needs it too (keeps), others into a buffer the cache lends
// and then keeps. The decode buffers are counted in r.track while held.
func (a *array) place(dst []byte, dstStr, lo, hi []int, p *piece, r *reads) error {
	es := a.dtype.Size()
	raw, err := readPiece(p)
	if errors.Is(err, fs.ErrNotExist) { // not stored: the fill value
		copyOverlap(dst, dstStr, lo, hi, a.fill, make([]int, len(lo)), p.origin, p.shape, es)
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: read %s %s: %w", a.name, a.chunkWord(), rel(a.dir, p.path), err)
	}
	r.decoded.Add(1)
	r.track.Add(volume.LabelDecode, int64(len(raw)))
	defer r.track.Add(volume.LabelDecode, -int64(len(raw)))
	shape := p.shape
	if a.n5 {
		if shape, raw, err = a.n5Block(raw, p.origin); err != nil {
			return fmt.Errorf("%s: block %s: %w", a.name, rel(a.dir, p.path), err)
		}
	}
	want := es
	for _, n := range shape {
		want *= n
	}
	// An N5 block stored cropped to the array's edge is smaller than the
	// cache's slots: it is decoded into a buffer of its own, not cached.
	whole := slices.Equal(shape, p.shape)
	keep := whole && r.keeps(p, hi)
	if off, ok := inside(dstStr, lo, hi, p.origin, shape); ok && p.chain.perm == nil && !keep {
		run := dst[off*es : off*es+want]
		if err := p.chain.decodeInto(run, raw); err != nil {
			return fmt.Errorf("%s: %s %s at %v: %w", a.name, a.chunkWord(), rel(a.dir, p.path), p.origin, err)
		}
		if p.chain.bigEndian {
			swapBytes(run, es)
		}
		return nil
	}
	// A buffer the cache lends (a slot in it, when it has a capacity),
	// else a new one.
	var src []byte
	if whole {
		src = r.cache.Alloc()
	}
	if src == nil {
		src = make([]byte, want)
	}
	r.track.Add(volume.LabelDecode, int64(want))
	err = p.chain.decodeInto(src, raw)
	if err == nil && p.chain.bigEndian {
		swapBytes(src, es)
	}
	if err == nil {
		copyOverlap(dst, dstStr, lo, hi, src, chunkStrides(shape, p.chain.perm), p.origin, shape, es)
	}
	switch {
	case !whole:
	case err == nil && r.cache.Capacity() > 0:
		// The decoded chunk takes its slot in the cache, which counts
		// it: one the next read needs stays; one it does not goes out
		// first when the cache is full.
		r.cache.Add(p.key(), src, keep)
	default:
		r.cache.Recycle(src)
	}
	r.track.Add(volume.LabelDecode, -int64(want))
	if err != nil {
		return fmt.Errorf("%s: %s %s at %v: %w", a.name, a.chunkWord(), rel(a.dir, p.path), p.origin, err)
	}
	return nil
}

// chunkWord is what the array's format calls a chunk, for messages.
func (a *array) chunkWord() string {
	if a.n5 {
		return "block"
	}
	return "chunk"
}

// inside reports whether a chunk at origin of shape cshape lies whole in
// the region [lo, hi) and its elements (C order) are one run of dst,
// and where that run starts.
func inside(dstStr, lo, hi, origin, cshape []int) (int, bool) {
	n := len(lo)
	off := 0
	for d := range n {
		if origin[d] < lo[d] || origin[d]+cshape[d] > hi[d] {
			return 0, false
		}
		off += (origin[d] - lo[d]) * dstStr[d]
	}
	// Contiguous: past the first axis the chunk spans more than one
	// element along, it spans the region whole.
	d := 0
	for d < n && cshape[d] == 1 {
		d++
	}
	for d++; d < n; d++ {
		if cshape[d] != hi[d]-lo[d] {
			return 0, false
		}
	}
	return off, true
}

func rel(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil {
		return filepath.ToSlash(r)
	}
	return path
}

// readPiece reads a piece's stored bytes: the whole file, or an inner
// chunk's range of a shard. Only a regular file is read, and no more
// than its codecs can make of a chunk (p.max).
func readPiece(p *piece) ([]byte, error) {
	f, size, err := fileio.Open(p.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	off, n := p.off, p.n
	if n < 0 {
		off, n = 0, size
		if n > p.max {
			return nil, fmt.Errorf("the file holds %d bytes, more than a chunk can take with its codecs (%d)", n, p.max)
		}
	} else if off < 0 || off > size || n > size-off {
		return nil, fmt.Errorf("inner chunk at byte %d of %d bytes lies outside the shard's %d bytes", off, n, size)
	} else if n > p.max {
		return nil, fmt.Errorf("inner chunk of %d bytes, more than a chunk can take with its codecs (%d)", n, p.max)
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return nil, err
	}
	return buf, nil
}

// decodeHeld is the most one chunk of n decoded bytes holds while it is
// decoded through c, stored in at most stored bytes: its stored bytes,
// the decoded chunk (n, in a slot of the cache when there is one), the
// output of every codec but the last (a checksum's is a view of its
// input) and the decompressors' state.
func decodeHeld(n, stored int64, c *chain) int64 {
	total := stored + n + codecState
	for i := 1; i < len(c.b2b); i++ {
		if c.b2b[i].name != "crc32c" {
			total += n + 1<<16
		}
	}
	return total
}

// codecState is what a decompressor holds besides its input and output:
// a zstd or deflate window and block buffers, Blosc's per-call scratch.
const codecState = 1 << 20

// copyOverlap copies the overlap of a chunk (src, with element strides
// srcStr per axis — all zero for a fill value of one element — placed at
// origin with shape cshape) and the region [lo, hi) into dst (C order
// over the region, strides dstStr).
func copyOverlap(dst []byte, dstStr, lo, hi []int, src []byte, srcStr, origin, cshape []int, es int) {
	n := len(lo)
	a, b := make([]int, n), make([]int, n)
	for d := range n {
		a[d], b[d] = max(lo[d], origin[d]), min(hi[d], origin[d]+cshape[d])
		if a[d] >= b[d] {
			return
		}
	}
	last := n - 1
	run := b[last] - a[last]
	idx := append([]int(nil), a...)
	for {
		do, so := 0, 0
		for d := range n {
			do += (idx[d] - lo[d]) * dstStr[d]
			so += (idx[d] - origin[d]) * srcStr[d]
		}
		dr := dst[do*es : (do+run)*es]
		switch srcStr[last] {
		case 1:
			copy(dr, src[so*es:(so+run)*es])
		default:
			step := srcStr[last]
			for i := 0; i < len(dr); i += es {
				copy(dr[i:i+es], src[so*es:so*es+es])
				so += step
			}
		}
		d := last - 1
		for ; d >= 0; d-- {
			if idx[d] < b[d]-1 {
				idx[d]++
				break
			}
			idx[d] = a[d]
		}
		if d < 0 {
			return
		}
	}
}

func swapBytes(b []byte, es int) {
	switch es {
	case 2:
		for i := 0; i+1 < len(b); i += 2 {
			b[i], b[i+1] = b[i+1], b[i]
		}
	case 4:
		for i := 0; i+3 < len(b); i += 4 {
			binary.LittleEndian.PutUint32(b[i:], binary.BigEndian.Uint32(b[i:]))
		}
	case 8:
		for i := 0; i+7 < len(b); i += 8 {
			binary.LittleEndian.PutUint64(b[i:], binary.BigEndian.Uint64(b[i:]))
		}
	}
}

// indexCache keeps the shard indices read, so that reading plane after
// plane of one shard reads its index once. nil marks a missing shard.
type indexCache struct {
	mu sync.Mutex
	m  map[string][]uint64
}

func newIndexCache() *indexCache { return &indexCache{m: map[string][]uint64{}} }

// shardIndex returns the (offset, nbytes) pairs of a shard's inner
// chunks, nil when the shard is not stored.
func (a *array) shardIndex(path string) ([]uint64, error) {
	c := a.index
	c.mu.Lock()
	idx, ok := c.m[path]
	c.mu.Unlock()
	if ok {
		return idx, nil
	}
	idx, err := a.readIndex(path)
	if err != nil {
		return nil, fmt.Errorf("%s: shard %s: %w", a.name, rel(a.dir, path), err)
	}
	c.mu.Lock()
	if len(c.m) > 1<<14 {
		clear(c.m)
	}
	c.m[path] = idx
	c.mu.Unlock()
	return idx, nil
}

func (a *array) readIndex(path string) ([]uint64, error) {
	s := a.chain.shard
	f, fileSize, err := fileio.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	count := int64(1)
	for d, n := range a.chunks {
		count *= int64(n / s.inner[d])
	}
	size := 16 * count
	if s.indexCRC {
		size += 4
	}
	if size > fileSize {
		return nil, fmt.Errorf("%d bytes cannot hold the index of %d inner chunks (%d bytes)", fileSize, count, size)
	}
	off := int64(0)
	if !s.indexAtStart {
		off = fileSize - size
	}
	buf := make([]byte, size)
	if _, err := f.ReadAt(buf, off); err != nil {
		return nil, err
	}
	if s.indexCRC {
		body := buf[:len(buf)-4]
		if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(buf[len(buf)-4:]) {
			return nil, errors.New("the index's crc32c checksum does not match (the shard is damaged)")
		}
	}
	idx := make([]uint64, 2*count)
	for i := range idx {
		idx[i] = binary.LittleEndian.Uint64(buf[8*i:])
	}
	for k := int64(0); k < count; k++ {
		o, n := idx[2*k], idx[2*k+1]
		if o == math.MaxUint64 && n == math.MaxUint64 {
			continue
		}
		if o > uint64(fileSize) || n > uint64(fileSize)-o {
			return nil, fmt.Errorf("inner chunk %d at byte %d of %d bytes lies outside the shard's %d bytes", k, o, n, fileSize)
		}
	}
	return idx, nil
}

// listing is the sorted places in the chunk grid (linear, C order) of
// the objects stored in an array's folder, listed once, when a read
// first touches many tiny chunks (listed false: the folder holds too
// many entries to list). A chunk stored after the listing reads as the
// fill value until the store is opened again.
type listing struct {
	once   sync.Once
	stored []int64
	listed bool
	err    error
}

func (l *listing) get(a *array) ([]int64, bool, error) {
	l.once.Do(func() { l.stored, l.listed, l.err = a.list() })
	return l.stored, l.listed, l.err
}

// gridStrides returns the linear strides of the chunk grid (C order).
func (a *array) gridStrides() []int64 {
	n := len(a.shape)
	s := make([]int64, n)
	acc := int64(1)
	for d := n - 1; d >= 0; d-- {
		s[d] = acc
		acc *= int64((a.shape[d] + a.chunks[d] - 1) / a.chunks[d])
	}
	return s
}

// errTooMany stops a listing of more than maxListed entries.
var errTooMany = errors.New("too many entries")

// list walks the array's folder for the keys of stored objects (at most
// as deep as a key goes), reading folders a batch of entries at a time,
// and returns their linear grid places, sorted; false when there are
// more than maxListed entries.
func (a *array) list() ([]int64, bool, error) {
	nd := len(a.shape)
	gstr := a.gridStrides()
	idx := make([]int, nd)
	var out []int64
	seen := 0
	var walk func(dir, rel string, depth int) error
	walk = func(dir, rel string, depth int) error {
		f, err := os.Open(dir)
		if err != nil {
			return err
		}
		defer f.Close()
		for {
			entries, err := f.ReadDir(4096)
			for _, e := range entries {
				if seen++; seen > maxListed {
					return errTooMany
				}
				key := rel + e.Name()
				if e.IsDir() {
					if depth < nd { // a key has at most nd+1 parts ("c/0/0/0")
						if err := walk(filepath.Join(dir, e.Name()), key+"/", depth+1); err != nil {
							return err
						}
					}
					continue
				}
				if !a.keys.parse(key, idx) {
					continue
				}
				lin, inGrid := int64(0), true
				for k, i := range idx {
					if i >= (a.shape[k]+a.chunks[k]-1)/a.chunks[k] {
						inGrid = false // not a chunk of this array
						break
					}
					lin += int64(i) * gstr[k]
				}
				if inGrid {
					out = append(out, lin)
				}
			}
			if err == io.EOF || len(entries) == 0 {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	switch err := walk(a.dir, "", 0); {
	case errors.Is(err, errTooMany):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("%s: listing the stored chunks: %w", a.name, err)
	}
	slices.Sort(out)
	return out, true, nil
}
