package volume

import (
	"fmt"
	"runtime"

	"github.com/voxlab/voxlab/processing/plan"
)

// Labels of a reader's memory in plans and trackers.
const (
	LabelDecode = "input decode buffers"
	LabelCache  = "input chunk cache"
)

// ChunkLayout says how a source stores its planes in chunks that are
// decoded whole (compressed Zarr, chunked HDF5): reading any voxel of a
// chunk decodes all of it.
type ChunkLayout struct {
	// Depth is the planes one chunk spans along z, Layers the layers of
	// chunks along z.
	Depth, Layers int
	// Chunk is the decoded bytes of one chunk, Layer those of one layer
	// of chunks: every chunk across a whole plane.
	Chunk, Layer int64
	// PerDecoder is the most a decoder holds for one chunk: its stored
	// bytes (at most what its codecs can expand the chunk to), its
	// decoded bytes and the codecs' buffers. Decoded is the part of it
	// a cache of decoded chunks lends instead (a slot of its own,
	// counted in its capacity), 0 when the cache does not.
	PerDecoder, Decoded int64
	// MaxDecoders is the most chunks the source decodes at once.
	MaxDecoders int
}

// ReadMemory is the host memory a source's reads hold besides the
// caller's buffer: the decoders at work at once, each holding at most
// PerDecoder bytes, and the cache of decoded chunks.
type ReadMemory struct {
	Decoders   int
	PerDecoder int64
	Cache      int64
	// Keep is the planes each read shares with the next (a halo read
	// twice): the chunks holding them, and those a read ends inside, are
	// the ones worth caching.
	Keep int
	// Track, when set, counts the decode buffers (LabelDecode) and the
	// cache (LabelCache) as they are held.
	Track *plan.Tracker
}

// Bytes returns the most bytes the reads hold.
func (m ReadMemory) Bytes() int64 { return int64(m.Decoders)*m.PerDecoder + m.Cache }

// String says it for people.
func (m ReadMemory) String() string {
	if m.Decoders == 0 && m.Cache == 0 {
		return "no decode buffers"
	}
	s := fmt.Sprintf("%d chunk(s) decoded at once (%s each)", m.Decoders, plan.FormatBytes(m.PerDecoder))
	if m.Cache > 0 {
		return s + ", " + plan.FormatBytes(m.Cache) + " cache of decoded chunks"
	}
	return s + ", no cache (a chunk is decoded again for each read that touches it)"
}

// Arrays returns the plan's arrays for the reads' memory (host, fixed).
func (m ReadMemory) Arrays() []plan.Array {
	var a []plan.Array
	if n := int64(m.Decoders) * m.PerDecoder; n > 0 {
		a = append(a, plan.Array{Name: LabelDecode, Where: plan.Host, Fixed: n})
	}
	if m.Cache > 0 {
		a = append(a, plan.Array{Name: LabelCache, Where: plan.Host, Fixed: m.Cache})
	}
	return a
}

// Chunked is implemented by sources that decode whole chunks, so that a
// plan counts what their reads hold and bounds it: the decoders at once
// and the capacity of the decoded-chunk cache.
type Chunked interface {
	ChunkLayout() ChunkLayout
	// ReadMemory returns what reads hold with the present settings.
	ReadMemory() ReadMemory
	// SetReadMemory sets the decoders at once (at least 1, at most
	// MaxDecoders), the cache's capacity, the planes reads share and the
	// tracker. PerDecoder is the layout's, whatever m says.
	SetReadMemory(m ReadMemory)
}

// based is implemented by views that read another source's planes (a
// subset, a float32 view): that source's reader is theirs.
type based interface{ base() Source }

// ChunkedOf returns the Chunked reader under src (through volumes,
// subsets and type views), if any and if it stores its data in chunks
// (an HDF5 dataset may be contiguous: its layout's Chunk is 0).
func ChunkedOf(src Source) (Chunked, bool) {
	for src != nil {
		if c, ok := src.(Chunked); ok {
			return c, c.ChunkLayout().Chunk > 0
		}
		switch w := src.(type) {
		case interface{ Source() Source }:
			src = w.Source()
		case based:
			src = w.base()
		default:
			return nil, false
		}
	}
	return nil, false
}

// The levels of ReadOptions, from the fastest to the leanest.
const (
	// ReadAllCached: every decoder, a cache of the chunks reads share.
	ReadAllCached = iota
	// ReadOneCached: one decoder, the same cache.
	ReadOneCached
	// ReadOneLayer: one decoder, a cache of one layer of chunks (a read
	// that shares two layers with the next decodes one of them again).
	ReadOneLayer
	// ReadAll: every decoder, no cache.
	ReadAll
	// ReadOne: one decoder, no cache.
	ReadOne
	// ReadLevels is the number of levels.
	ReadLevels
)

// ReadOptions returns a chunked source's read memory at each level of
// ReadLevels for reads of consecutive slabs that share overlap planes
// (twice the halo; 0 for reads that follow each other). A cache pays
// when chunks span several planes: a read ending inside a chunk leaves
// the rest for the next, and the shared planes straddle at most
// ceil((overlap-1)/Depth)+1 layers (and the volume has at most Layers). Sources whose chunks hold one plane
// get no cache: reads share whole planes only. With a cache, decoders
// decode into its slots (ChunkLayout.Decoded), at most one each. Levels
// that do not apply repeat the one before.
func ReadOptions(c Chunked, overlap int) [ReadLevels]ReadMemory {
	l := c.ChunkLayout()
	w := max(1, min(l.MaxDecoders, runtime.GOMAXPROCS(0)))
	var cache, layer int64
	if l.Depth > 1 {
		layers := 1
		if overlap > 1 {
			layers = (overlap-2)/l.Depth + 2
		}
		if l.Layers > 0 {
			layers = min(layers, l.Layers)
		}
		cache, layer = int64(layers)*l.Layer, l.Layer
	}
	mk := func(d int, c int64) ReadMemory {
		per := l.PerDecoder
		if c >= l.Chunk && l.Chunk > 0 {
			// Decoders decode into slots of the cache: no more at once
			// than it has slots, and a slot more for each decoder but
			// one, so that a chunk another decoder has not yet added
			// (whose keep is not yet known) never makes the cache let
			// go of one the next read needs.
			per -= l.Decoded
			d = max(1, min(d, int(c/l.Chunk)))
			c += int64(d-1) * l.Chunk
		}
		return ReadMemory{Decoders: d, PerDecoder: per, Cache: c, Keep: overlap}
	}
	return [ReadLevels]ReadMemory{
		ReadAllCached: mk(w, cache),
		ReadOneCached: mk(1, cache),
		ReadOneLayer:  mk(1, layer),
		ReadAll:       mk(w, 0),
		ReadOne:       mk(1, 0),
	}
}

// Readers are the distinct chunked readers under a run's inputs (the
// projections, darks and flats of one NeXus file share one), planned
// together: level k of the whole is level k of each.
type Readers struct {
	list []Chunked
	// overlap is the planes consecutive reads share (Overlap).
	overlap int
	// Other is what other readers hold whatever the plan (a TIFF
	// reader's strip buffer).
	Other int64
}

// ReadersOf returns the readers under srcs (nil entries are skipped), for
// reads that follow each other without sharing planes (see Overlap).
func ReadersOf(srcs ...Source) Readers {
	var r Readers
	for _, src := range srcs {
		if src == nil {
			continue
		}
		c, ok := ChunkedOf(src)
		if !ok {
			r.Other += ReadBufferBytes(src)
			continue
		}
		dup := false
		for _, o := range r.list {
			dup = dup || o == c
		}
		if !dup {
			r.list = append(r.list, c)
		}
	}
	return r
}

// Overlap returns r for reads that share n planes with the next (twice a
// filter's halo).
func (r Readers) Overlap(n int) Readers {
	r.overlap = max(n, 0)
	return r
}

// Chunked reports whether any reader decodes chunks.
func (r Readers) Chunked() bool { return len(r.list) > 0 }

// Depth returns the deepest chunks' planes (1 when none decodes chunks).
func (r Readers) Depth() int {
	d := 1
	for _, c := range r.list {
		d = max(d, c.ChunkLayout().Depth)
	}
	return d
}

// Levels returns the levels worth planning: one when no reader decodes
// chunks, else ReadLevels.
func (r Readers) Levels() int {
	if len(r.list) == 0 {
		return 1
	}
	return ReadLevels
}

// At returns the memory of every reader at level k.
func (r Readers) At(k int) []ReadMemory {
	out := make([]ReadMemory, len(r.list))
	for i, c := range r.list {
		out[i] = ReadOptions(c, r.overlap)[min(max(k, 0), ReadLevels-1)]
	}
	return out
}

// Arrays returns the plan's arrays at level k: each reader's decode
// buffers and cache (named for the reader when there are several) and
// the other readers' buffers.
func (r Readers) Arrays(k int) []plan.Array {
	var out []plan.Array
	for i, m := range r.At(k) {
		for _, a := range m.Arrays() {
			if len(r.list) > 1 {
				a.Name = fmt.Sprintf("%s %d", a.Name, i+1)
			}
			out = append(out, a)
		}
	}
	if r.Other > 0 {
		out = append(out, plan.Array{Name: "input read buffers", Where: plan.Host, Fixed: r.Other})
	}
	return out
}

// Describe says level k's settings for people, "" when no reader decodes
// chunks.
func (r Readers) Describe(k int) string {
	s := ""
	for i, m := range r.At(k) {
		if i > 0 {
			s += "; "
		}
		s += m.String()
	}
	return s
}

// Apply sets every reader to level k, counting in track, and returns the
// func that sets them back as they were (dropping the caches): to their
// defaults, for readers with a ResetReadMemory method.
func (r Readers) Apply(k int, track *plan.Tracker) (restore func()) {
	prev := make([]ReadMemory, len(r.list))
	for i, m := range r.At(k) {
		prev[i] = r.list[i].ReadMemory()
		m.Track = track
		r.list[i].SetReadMemory(m)
	}
	return func() {
		for i, c := range r.list {
			if rs, ok := c.(interface{ ResetReadMemory() }); ok {
				rs.ResetReadMemory()
			} else {
				c.SetReadMemory(prev[i])
			}
		}
	}
}

// CacheBytes returns the capacity of the cache of decoded chunks under
// src (libhdf5's chunk cache), 0 when it has none.
func CacheBytes(src Source) int64 {
	if c, ok := ChunkedOf(src); ok {
		return c.ReadMemory().Cache
	}
	return 0
}

// ReadBufferBytes returns the memory src's reader holds besides the
// caller's buffer when it decodes no chunks (a TIFF reader's buffer for
// a compressed strip): sources that hold any say so with a
// ReadBufferBytes method.
func ReadBufferBytes(src Source) int64 {
	for src != nil {
		if r, ok := src.(interface{ ReadBufferBytes() int64 }); ok {
			return r.ReadBufferBytes()
		}
		switch w := src.(type) {
		case interface{ Source() Source }:
			src = w.Source()
		case based:
			src = w.base()
		default:
			return 0
		}
	}
	return 0
}
