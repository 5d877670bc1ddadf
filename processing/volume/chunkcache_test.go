package volume

import (
	"sync"
	"testing"

	"github.com/voxlab/voxlab/processing/plan"
)

func chunkOf(v byte) []byte {
	b := make([]byte, 100)
	b[0] = v
	return b
}

// TestChunkCacheLRU: the cache holds as many chunks as its capacity
// allows, lets the least recently used go first, counts what it holds in
// the tracker and ignores chunks of another size.
func TestChunkCacheLRU(t *testing.T) {
	tr := plan.NewTracker()
	c := NewChunkCache[int](250, 100, 0, tr)
	if c.Capacity() != 200 {
		t.Fatalf("capacity %d for 250 bytes of 100-byte chunks, want 200", c.Capacity())
	}
	c.Add(1, chunkOf(1), true)
	c.Add(2, chunkOf(2), true)
	if _, release, ok := c.Get(1); !ok { // 1 is now the most recently used
		t.Fatal("chunk 1 missing")
	} else {
		release()
	}
	c.Add(3, chunkOf(3), true) // pushes out 2
	if _, _, ok := c.Get(2); ok {
		t.Error("chunk 2 kept: the least recently used should have gone")
	}
	for _, k := range []int{1, 3} {
		if b, release, ok := c.Get(k); !ok || b[0] != byte(k) {
			t.Errorf("chunk %d: %v %v", k, ok, b[:1])
		} else {
			release()
		}
	}
	c.Add(4, make([]byte, 99), true) // not a chunk of this cache
	if _, _, ok := c.Get(4); ok {
		t.Error("a 99-byte chunk went into a cache of 100-byte chunks")
	}
	c.Add(3, chunkOf(3), true) // already held: counted once
	if tr.Current() != 200 || tr.Peak() != 200 {
		t.Errorf("tracker holds %d (peak %d), want 200", tr.Current(), tr.Peak())
	}
	hits, misses := c.Stats()
	if hits != 3 || misses != 2 {
		t.Errorf("stats %d hits, %d misses; want 3 and 2", hits, misses)
	}
	c.Purge()
	if tr.Current() != 0 {
		t.Errorf("tracker holds %d after Purge", tr.Current())
	}
	if _, _, ok := c.Get(1); ok {
		t.Error("chunk 1 kept after Purge")
	}
}

// TestChunkCacheSpares: a full cache lends the buffer of its least
// recently used chunk to decode into, so that its chunks and those being
// decoded stay within its capacity; a chunk being copied out is never
// lent, and its buffer becomes a spare once released; buffers given back
// are kept as spares up to their number, counted as decode buffers.
func TestChunkCacheSpares(t *testing.T) {
	tr := plan.NewTracker()
	c := NewChunkCache[int](200, 100, 2, tr)
	a := c.Alloc()
	c.Add(1, a, true)
	b := c.Alloc()
	c.Add(2, b, true)
	got, release, ok := c.Get(1) // 2 is now the least recently used
	if !ok || &got[0] != &a[0] {
		t.Fatal("chunk 1 is not the buffer added")
	}
	if c3 := c.Alloc(); &c3[0] != &b[0] {
		t.Error("a full cache did not lend the buffer of its least recently used chunk")
	} else {
		c.Add(3, c3, true)
	}
	if _, _, ok := c.Get(2); ok {
		t.Error("chunk 2 kept after its buffer was lent")
	}
	// Chunk 1, being copied, is the least recently used: it goes out,
	// but its buffer is not lent.
	d := c.Alloc()
	if &d[0] == &a[0] {
		t.Fatal("the buffer of a chunk being copied out was lent")
	}
	if tr.Current() != 100 || tr.Peak() > 200 {
		t.Errorf("tracker holds %d (peak %d): chunk 3 is 100", tr.Current(), tr.Peak())
	}
	c.Recycle(d)
	release()
	if tr.Current() != 300 { // chunk 3, and chunk 1's buffer and d as spares
		t.Errorf("after release: tracker holds %d, want 300", tr.Current())
	}
	if e := c.Alloc(); &e[0] != &a[0] && &e[0] != &d[0] {
		t.Error("a spare was not lent")
	}
	c.Recycle(chunkOf(9))
	c.Recycle(chunkOf(8)) // beyond the two spares: dropped
	if tr.Current() != 300 {
		t.Errorf("tracker holds %d, want 300", tr.Current())
	}
	// A chunk added without keep goes out before older ones kept.
	w := NewChunkCache[int](200, 100, 1, nil)
	w.Add(1, w.Alloc(), true)
	w.Add(2, w.Alloc(), false)
	w.Add(3, w.Alloc(), true)
	for k, want := range map[int]bool{1: true, 2: false, 3: true} {
		if _, release, ok := w.Get(k); ok != want {
			t.Errorf("chunk %d held %v, want %v", k, ok, want)
		} else if ok {
			release()
		}
	}
	none := NewChunkCache[int](0, 100, 2, tr)
	none.Add(1, chunkOf(1), true) // no capacity: a spare
	if _, _, ok := none.Get(1); ok || none.Capacity() != 0 {
		t.Error("a cache of no capacity holds a chunk")
	}
	if b := none.Alloc(); b[0] != 1 {
		t.Error("a cache of no capacity did not keep the buffer as a spare")
	}
}

// TestChunkCacheNil: a cache that holds no chunk and no spare is nil,
// and a nil cache holds nothing.
func TestChunkCacheNil(t *testing.T) {
	c := NewChunkCache[string](99, 100, 0, nil)
	if c != nil {
		t.Fatal("a cache that holds nothing was made")
	}
	c.Add("a", make([]byte, 100), true)
	if _, _, ok := c.Get("a"); ok || c.Capacity() != 0 || c.Alloc() != nil {
		t.Error("a nil cache holds something")
	}
	c.Recycle(make([]byte, 100))
	c.Purge()
}

// TestChunkCacheConcurrent: readers getting, copying, adding and
// recycling at once never make the tracker count more than the capacity
// and the spares, and never lend a buffer being copied (run with -race:
// a lent buffer written while read is a race).
func TestChunkCacheConcurrent(t *testing.T) {
	tr := plan.NewTracker()
	c := NewChunkCache[int](8*64, 64, 4, tr)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			dst := make([]byte, 64)
			for i := range 500 {
				k := (i*7 + g) % 20
				if b, release, ok := c.Get(k); ok {
					copy(dst, b)
					if dst[0] != byte(k) {
						t.Errorf("chunk %d holds %d", k, dst[0])
					}
					release()
					continue
				}
				b := c.Alloc()
				for j := range b {
					b[j] = byte(k)
				}
				if i%3 == 0 {
					c.Recycle(b)
				} else {
					c.Add(k, b, true)
				}
			}
		})
	}
	wg.Wait()
	if limit := c.Capacity() + 4*64; tr.Peak() > limit || tr.Current() > limit {
		t.Errorf("tracker peak %d, now %d, for a capacity of %d and 4 spares", tr.Peak(), tr.Current(), c.Capacity())
	}
}
