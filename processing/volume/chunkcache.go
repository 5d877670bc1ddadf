package volume

import (
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/voxlab/voxlab/processing/plan"
)

// ChunkCache keeps decoded chunks of one array, least recently used out
// first, within a capacity in bytes, and lends its readers chunk buffers
// to decode into. Every chunk of an array decodes to the same size (edge
// chunks are stored whole), so the capacity is a number of chunks and the
// cache is hashicorp's LRU. A reader that reads slab after slab keeps in
// it the chunks the next slab will read again (a block ending inside a
// chunk, the halo planes of the next block), so that each chunk is
// decoded once.
//
// A reader decodes into a buffer the cache lends (Alloc) and either
// gives it back (Recycle) or adds the chunk (Add). A cache with a
// capacity holds a slot for each buffer it lends, letting its least
// recently used chunk go first when full, and lends that chunk's buffer:
// its chunks and the chunks being decoded into it together stay within
// the capacity, and decodes write into memory already touched instead of
// fresh pages the kernel faults in and zeroes, which halves the cost of
// a decode. Buffers given back, and those of chunks that go out, are
// kept as spares up to a number (one per decoder). A chunk being copied
// out (Get, until released) is never lent.
// Cached chunks are never written to after Add. Spares count under
// LabelDecode, cached chunks under LabelCache, in the tracker. A nil
// *ChunkCache caches and keeps nothing. It is safe for concurrent use.
type ChunkCache[K comparable] struct {
	mu        sync.Mutex
	chunk     int64
	capacity  int64
	lru       *simplelru.LRU[K, *cached]
	spares    [][]byte
	maxSpares int
	// slots is the chunks the cache holds at most, reserved those lent
	// out by Alloc and not yet added or given back.
	slots, reserved int
	track           *plan.Tracker

	hits, misses int64
}

// cached is a chunk in the cache: its bytes, whether a reader expects to
// read it again (keep), the readers copying out of it, and whether it has
// gone out (its buffer then becomes a spare when the last reader is
// done).
type cached struct {
	data []byte
	keep bool
	refs int
	out  bool
}

// NewChunkCache returns a cache of capacity bytes for chunks of
// chunkBytes each, keeping up to spares chunk buffers to lend, or nil
// when it would hold neither a chunk nor a spare. What it holds is
// counted in track (may be nil).
func NewChunkCache[K comparable](capacity, chunkBytes int64, spares int, track *plan.Tracker) *ChunkCache[K] {
	if chunkBytes <= 0 || capacity < chunkBytes && spares <= 0 {
		return nil
	}
	n := min(max(capacity/chunkBytes, 0), 1<<30)
	c := &ChunkCache[K]{chunk: chunkBytes, capacity: n * chunkBytes, maxSpares: max(spares, 0), slots: int(n), track: track}
	if n > 0 {
		// The callback runs inside the LRU's calls, which hold c.mu.
		c.lru, _ = simplelru.NewLRU[K, *cached](int(n), func(_ K, e *cached) {
			c.track.Add(LabelCache, -c.chunk)
			e.out = true
			if e.refs == 0 {
				c.spare(e.data)
			}
		})
	}
	return c
}

// Capacity returns the bytes the cache may hold, spares aside.
func (c *ChunkCache[K]) Capacity() int64 {
	if c == nil {
		return 0
	}
	return c.capacity
}

// Get returns chunk k's decoded bytes, marking it used, and the func to
// call once they are copied (until then its buffer is never lent).
func (c *ChunkCache[K]) Get(k K) (data []byte, release func(), ok bool) {
	if c == nil || c.lru == nil {
		return nil, nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.lru.Get(k)
	if !ok {
		c.misses++
		return nil, nil, false
	}
	c.hits++
	e.refs++
	return e.data, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if e.refs--; e.refs == 0 && e.out {
			c.spare(e.data)
		}
	}, true
}

// Add keeps chunk k's decoded bytes, which must be one chunk long and are
// not written to again; keep says the reader expects to read it again
// (a chunk it is done with goes out first). The least recently used
// chunk goes out when the cache is full. A chunk already held, or a
// cache of no capacity, keeps b as a spare.
func (c *ChunkCache[K]) Add(k K, b []byte, keep bool) {
	if c == nil || int64(len(b)) != c.chunk {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.release()
	if c.lru == nil || c.lru.Contains(k) {
		c.spare(b)
		return
	}
	// Counted once in: the chunk it pushes out is uncounted first (in
	// the LRU's callback), so the count never passes the capacity.
	c.lru.Add(k, &cached{data: b, keep: keep})
	c.track.Add(LabelCache, c.chunk)
}

// Alloc returns a buffer of one chunk to decode into: a spare, or a new
// one; in a cache with a capacity it holds a slot for the chunk, first
// letting a chunk go when the cache is full: the least recently used of
// those added without keep, else the least recently used. Its bytes are
// whatever they were. The buffer goes back with Add or Recycle.
func (c *ChunkCache[K]) Alloc() []byte {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	if c.lru != nil {
		if c.lru.Len()+c.reserved >= c.slots {
			c.evictOne()
		}
		c.reserved++
	}
	if n := len(c.spares); n > 0 {
		b := c.spares[n-1]
		c.spares = c.spares[:n-1]
		c.track.Add(LabelDecode, -c.chunk)
		c.mu.Unlock()
		return b
	}
	c.mu.Unlock()
	return make([]byte, c.chunk)
}

// Recycle gives back a buffer from Alloc that is no longer used.
func (c *ChunkCache[K]) Recycle(b []byte) {
	if c == nil || int64(len(b)) != c.chunk {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.release()
	c.spare(b)
}

// evictOne lets the least recently used chunk not kept go, else the
// least recently used. Call with c.mu held.
func (c *ChunkCache[K]) evictOne() {
	for _, k := range c.lru.Keys() { // oldest first
		if e, _ := c.lru.Peek(k); !e.keep {
			c.lru.Remove(k)
			return
		}
	}
	c.lru.RemoveOldest()
}

// release gives back a slot held by Alloc. Call with c.mu held.
func (c *ChunkCache[K]) release() {
	if c.reserved > 0 {
		c.reserved--
	}
}

// spare keeps b for Alloc, if the spares are not full. Call with c.mu
// held.
func (c *ChunkCache[K]) spare(b []byte) {
	if len(c.spares) < c.maxSpares {
		c.spares = append(c.spares, b)
		c.track.Add(LabelDecode, c.chunk)
	}
}

// Purge lets every chunk and spare go.
func (c *ChunkCache[K]) Purge() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.maxSpares, c.reserved = 0, 0
	if c.lru != nil {
		c.lru.Purge()
	}
	c.track.Add(LabelDecode, -int64(len(c.spares))*c.chunk)
	c.spares = nil
}

// Stats returns the lookups that found their chunk and those that did not.
func (c *ChunkCache[K]) Stats() (hits, misses int64) {
	if c == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}
