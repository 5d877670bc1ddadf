package viewer

import (
	"errors"
	"sync"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/voxlab/voxlab/processing/volume"
)

// sliceKey names one slice of a volume: slice idx along axis of map m
// (0 for a plain volume; for a stack idx counts within the map).
type sliceKey struct {
	axis Axis
	idx  int
	m    int
}

// loader reads the slices of one image layer in its own goroutine, the
// only one that touches the layer's Source (sources are single-goroutine).
//
// Requests do not queue: a new request replaces the one waiting, so when
// the slider moves faster than slices load only the newest position is
// read (napari users complain about the opposite). When no request
// waits, the neighbours of the last one are prefetched, nearest first, in
// the direction of travel. Loaded slices go into an LRU cache bounded in
// bytes. A y or x slice is read in pieces (readSide): its progress is
// reported after each, and a newer request abandons it.
type loader struct {
	vol *volume.Volume
	// depth is the planes of one map: vol holds vol.Shape[0]/depth maps
	// one after the other along z (depth = vol.Shape[0] for a plain
	// volume).
	depth     int
	slabBytes int64
	// ready is called from the loader goroutine after a requested
	// (not a prefetched) slice is cached or failed.
	ready func(k sliceKey, err error)
	// progress (nil: none) is called from the loader goroutine after
	// each piece of a slice read in pieces.
	progress func()

	cache       *lru.Cache[sliceKey, *plane]
	cachedBytes atomic.Int64

	mu       sync.Mutex
	cond     *sync.Cond
	pending  *sliceKey
	prefetch []sliceKey
	last     sliceKey
	busy     bool
	gen      uint64 // bumped by invalidate; a load from an older gen is discarded
	closed   bool
	// reads counts source reads, for tests of laziness.
	reads int
	// loading is the slice being read now (when loadingOn), with the
	// bytes read of it so far and in all.
	loading             sliceKey
	loadingOn           bool
	loadDone, loadTotal int64
	// bytesRead counts every byte read since the loader started: a
	// waiter tells a slow read (it keeps moving) from a stalled one.
	bytesRead atomic.Int64
	// failed remembers slices whose read failed, so a broken file is not
	// read again at every redraw (invalidate forgets them).
	failed map[sliceKey]error
	// whole holds a small volume read once for its y and x slices, with
	// the gen it was read at; only the loader goroutine touches it.
	whole    *volume.Volume
	wholeGen uint64
}

// Cache sizing: at most cacheBytes of slices per layer (but always the
// newest slice, however large).
const (
	cacheBytes = 96 << 20
	prefetchN  = 2
	slabBytes  = 32 << 20
	// wholeBytes: volumes up to this size are read whole for y and x
	// slicing, which then costs a copy instead of a pass over the file.
	wholeBytes = 64 << 20
)

// errDropped abandons the read of a slice that a newer request replaced.
var errDropped = errors.New("slice read dropped for a newer request")

func newLoader(v *volume.Volume, depth int, ready func(sliceKey, error), progress func()) *loader {
	ld := &loader{vol: v, depth: depth, slabBytes: slabBytes, ready: ready, progress: progress}
	// The LRU counts entries; the byte budget is kept by evicting the
	// oldest after each insert (slices along z, y and x differ in size).
	ld.cache, _ = lru.NewWithEvict(1<<20, func(_ sliceKey, p *plane) {
		ld.cachedBytes.Add(-int64(len(p.data)))
	})
	ld.cond = sync.NewCond(&ld.mu)
	go ld.run()
	return ld
}

// add caches p after evicting the oldest slices until it fits in
// cacheBytes (a slice larger than the budget is still kept alone). Room
// is made before the slice goes in, so the byte count, which other
// goroutines read, never exceeds the budget even for a moment.
func (ld *loader) add(k sliceKey, p *plane) {
	ld.cache.Remove(k) // Add would replace it without the evict callback
	n := int64(len(p.data))
	for ld.cachedBytes.Load()+n > cacheBytes && ld.cache.Len() > 0 {
		ld.cache.RemoveOldest()
	}
	ld.cache.Add(k, p)
	ld.cachedBytes.Add(n)
}

// get returns the cached slice k, or nil after asking for it (unless
// reading it failed before).
func (ld *loader) get(k sliceKey) *plane {
	if p, ok := ld.cache.Get(k); ok {
		return p
	}
	if ld.err(k) == nil {
		ld.request(k)
	}
	return nil
}

// err returns the error of a failed read of k, or nil.
func (ld *loader) err(k sliceKey) error {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	return ld.failed[k]
}

// request asks for slice k, replacing any request still waiting and
// dropping the prefetch queue.
func (ld *loader) request(k sliceKey) {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	if ld.closed {
		return
	}
	ld.pending = &k
	ld.prefetch = ld.prefetch[:0]
	ld.cond.Signal()
}

// idle reports whether nothing is loading or waiting to load.
func (ld *loader) idle() bool {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	return !ld.busy && ld.pending == nil && len(ld.prefetch) == 0
}

// invalidate drops the cached z slices of planes [z0, z1) of the volume
// and every y and x slice (each of those crosses all planes of its map),
// for volumes still being written.
func (ld *loader) invalidate(z0, z1 int) {
	ld.mu.Lock()
	ld.gen++
	ld.failed = nil
	ld.mu.Unlock()
	for _, k := range ld.cache.Keys() {
		if z := k.m*ld.depth + k.idx; k.axis != Z || (z >= z0 && z < z1) {
			ld.cache.Remove(k)
		}
	}
}

func (ld *loader) close() {
	ld.mu.Lock()
	ld.closed = true
	ld.cond.Broadcast()
	ld.mu.Unlock()
}

func (ld *loader) run() {
	for {
		ld.mu.Lock()
		for !ld.closed && ld.pending == nil && len(ld.prefetch) == 0 {
			ld.busy = false
			ld.cond.Wait()
		}
		if ld.closed {
			ld.busy = false
			ld.mu.Unlock()
			return
		}
		var k sliceKey
		requested := ld.pending != nil
		if requested {
			k = *ld.pending
			ld.pending = nil
		} else {
			k = ld.prefetch[0]
			ld.prefetch = ld.prefetch[1:]
		}
		ld.busy = true
		gen := ld.gen
		ld.mu.Unlock()

		err := ld.load(k, gen)
		if errors.Is(err, errDropped) {
			continue
		}
		if requested {
			ld.queueNeighbours(k)
			if ld.ready != nil {
				ld.ready(k, err)
			}
		}
	}
}

func (ld *loader) load(k sliceKey, gen uint64) error {
	if ld.cache.Contains(k) {
		return nil
	}
	ld.mu.Lock()
	ld.reads++
	ld.loading, ld.loadingOn, ld.loadDone, ld.loadTotal = k, true, 0, 0
	ld.mu.Unlock()
	defer func() {
		ld.mu.Lock()
		ld.loadingOn = false
		ld.mu.Unlock()
	}()
	src := ld.vol
	if k.axis != Z && ld.vol.Bytes() <= wholeBytes {
		if ld.whole == nil || ld.wholeGen != gen {
			data, err := ld.vol.ReadAll()
			if err != nil {
				return err
			}
			ld.bytesRead.Add(int64(len(data)))
			m, err := volume.NewMemory(ld.vol.Info, data)
			if err != nil {
				return err
			}
			ld.whole, ld.wholeGen = volume.New(ld.vol.Name, m), gen
		}
		src = ld.whole
	}
	p, err := ld.readPlane(src, k)
	if errors.Is(err, errDropped) {
		return err
	}
	if err != nil {
		ld.mu.Lock()
		if ld.failed == nil {
			ld.failed = map[sliceKey]error{}
		}
		ld.failed[k] = err
		ld.mu.Unlock()
		return err
	}
	ld.mu.Lock()
	stale := gen != ld.gen
	ld.mu.Unlock()
	if !stale {
		ld.add(k, p)
	}
	return nil
}

// readPlane reads slice k from src (the volume, or a copy of it in
// memory): a z slice is one plane; a y or x slice of a stack reads only
// the planes of its map, in pieces (readSide).
func (ld *loader) readPlane(src *volume.Volume, k sliceKey) (*plane, error) {
	z0 := k.m * ld.depth
	if k.axis == Z {
		p, err := readPlane(src, Z, z0+k.idx, ld.slabBytes)
		if err == nil {
			ld.bytesRead.Add(int64(len(p.data)))
		}
		return p, err
	}
	return readSide(src, k.axis, k.idx, z0, z0+ld.depth, ld.slabBytes, ld.step(k))
}

// step follows the read of slice k piece by piece: it records its
// progress, tells the viewer, and abandons the read once a request for
// another slice waits (the slider moved on) or the loader closed.
func (ld *loader) step(k sliceKey) stepFunc {
	return func(done, total int64) error {
		ld.mu.Lock()
		delta := done - ld.loadDone
		ld.loadDone, ld.loadTotal = done, total
		stale := ld.closed || ld.pending != nil && *ld.pending != k
		ld.mu.Unlock()
		ld.bytesRead.Add(delta)
		if ld.progress != nil {
			ld.progress()
		}
		if stale {
			return errDropped
		}
		return nil
	}
}

// loadProgress returns how much of slice k was read, when k is being
// read in pieces now.
func (ld *loader) loadProgress(k sliceKey) (done, total int64, ok bool) {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	if !ld.loadingOn || ld.loading != k || ld.loadTotal == 0 {
		return 0, 0, false
	}
	return ld.loadDone, ld.loadTotal, true
}

// queueNeighbours queues k's neighbours for prefetch unless a newer
// request is already waiting: the next slices in the direction of
// travel, or the next maps when the map slider moved. Prefetch along y
// and x costs a pass over the whole volume (or map), so it only runs
// along z.
func (ld *loader) queueNeighbours(k sliceKey) {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	last := ld.last
	ld.last = k
	if ld.pending != nil || k.axis != Z {
		return
	}
	// byMap: the map changed and the slice did not.
	byMap := k.axis == last.axis && k.idx == last.idx && k.m != last.m
	dir := 1
	if byMap && k.m < last.m || !byMap && k.axis == last.axis && k.idx < last.idx {
		dir = -1
	}
	for d := 1; d <= prefetchN; d++ {
		for _, s := range [2]int{dir, -dir} {
			n := k
			if byMap {
				n.m += s * d
			} else {
				n.idx += s * d
			}
			if n.idx >= 0 && n.idx < ld.depth && n.m >= 0 && n.m*ld.depth < ld.vol.Shape[0] {
				ld.prefetch = append(ld.prefetch, n)
			}
		}
	}
}
