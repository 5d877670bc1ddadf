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
	// level is the pyramid level the slice is read from (0: the volume).
	level int
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
//
// Its methods are safe from any goroutine, except that close must not be
// called from the ready or redraw callbacks (it waits for the goroutine
// that runs them).
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
	// redraw (nil: none) asks the viewer for a (throttled) redraw
	// without blocking. The loader goroutine calls it after each piece
	// of a slice read in pieces, and refresh from whichever goroutine
	// wrote the volume: it is the one way a live update reaches the
	// viewer without touching the layer's UI-owned fields.
	redraw func()
	// done is closed when the loader goroutine has returned: from then
	// on nothing reads the volume, and its owner may close it.
	done chan struct{}

	// cache is safe to read from any goroutine; slices are added, and
	// invalidated ones removed, only with mu held, so that a slice read
	// before an invalidate can never be added after it (see commit).
	cache       *lru.Cache[sliceKey, *plane]
	cachedBytes atomic.Int64

	mu   sync.Mutex
	cond *sync.Cond
	// tasks run on the loader goroutine after requested slices and
	// before prefetching: other readers of the source (the 3D view's
	// grids, a slab at a time).
	tasks    []func()
	pending  *sliceKey
	prefetch []sliceKey
	// last is the slice requested last and prev the one before it that
	// differs: the direction of travel.
	last, prev sliceKey
	busy       bool
	gen        uint64 // bumped by invalidate; a load from an older gen is discarded
	closed     bool
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
	// pyr (nil: none) is the volume's pyramid, set before any request;
	// levels the levels opened (loader goroutine only).
	pyr    *pyramid
	levels []*volume.Volume
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

// newLoader starts the loader of v (depth planes per map), which calls
// ready after each requested slice and redraw (nil: none) to show
// progress and refreshed planes; see loader.
func newLoader(v *volume.Volume, depth int, ready func(sliceKey, error), redraw func()) *loader {
	ld := &loader{vol: v, depth: depth, slabBytes: slabBytes, ready: ready, redraw: redraw, done: make(chan struct{})}
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
// goroutines read, never exceeds the budget even for a moment. The
// caller holds mu.
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
	return !ld.busy && ld.pending == nil && len(ld.prefetch) == 0 && len(ld.tasks) == 0
}

// do runs f on the loader goroutine, the one user of the source, after
// any slice requested meanwhile; a closed loader drops it.
func (ld *loader) do(f func()) {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	if ld.closed {
		return
	}
	ld.tasks = append(ld.tasks, f)
	ld.cond.Signal()
}

// invalidate drops the cached z slices of planes [z0, z1) of the volume
// and every y and x slice (each of those crosses all planes of its map),
// for volumes still being written. A read in flight started before the
// new planes were written: its slice is not cached (commit), nor its
// failure remembered.
func (ld *loader) invalidate(z0, z1 int) {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	ld.gen++
	ld.failed = nil
	for _, k := range ld.cache.Keys() {
		if z := k.m*ld.depth + k.idx; k.axis != Z || (z >= z0 && z < z1) {
			ld.cache.Remove(k)
		}
	}
}

// refresh invalidates planes [z0, z1) and asks for a redraw, unless the
// loader is closed (its layer was removed). Safe from any goroutine.
func (ld *loader) refresh(z0, z1 int) {
	ld.invalidate(z0, z1)
	ld.mu.Lock()
	closed := ld.closed
	ld.mu.Unlock()
	if !closed && ld.redraw != nil {
		ld.redraw()
	}
}

// close stops the loader and waits until its goroutine has returned, so
// that the caller may close the volume next: sources are not safe for
// concurrent use, and closing one under a read in flight is a race (a
// raw file's descriptor, a TIFF's strip buffer). The wait is for one read
// at most, since a slice read in pieces is abandoned at its next piece.
// Closing twice is harmless.
func (ld *loader) close() {
	ld.mu.Lock()
	ld.closed = true
	ld.cond.Broadcast()
	ld.mu.Unlock()
	<-ld.done
}

func (ld *loader) run() {
	defer close(ld.done)
	defer ld.closeLevels()
	for {
		ld.mu.Lock()
		for !ld.closed && ld.pending == nil && len(ld.prefetch) == 0 && len(ld.tasks) == 0 {
			ld.busy = false
			ld.cond.Wait()
		}
		if ld.closed {
			ld.busy = false
			ld.mu.Unlock()
			return
		}
		if ld.pending == nil && len(ld.tasks) > 0 {
			t := ld.tasks[0]
			ld.tasks = ld.tasks[1:]
			ld.busy = true
			ld.mu.Unlock()
			t()
			continue
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
	p, err := ld.readSlice(k, gen)
	if errors.Is(err, errDropped) {
		return err
	}
	ld.commit(k, gen, p, err)
	return err
}

// readSlice reads slice k at generation gen: a y or x slice of a small
// volume from a copy of the whole volume in memory (read again after an
// invalidate), anything else from the volume.
func (ld *loader) readSlice(k sliceKey, gen uint64) (*plane, error) {
	// Which planes a running job has not written, taken before the read:
	// one written meanwhile is invalidated, and this read dropped.
	var off []bool
	if lv, ok := ld.vol.Source().(*LiveVolume); ok && k.level == 0 {
		z0 := k.m * ld.depth
		if k.axis == Z {
			off = lv.unwritten(z0+k.idx, z0+k.idx+1)
		} else {
			off = lv.unwritten(z0, z0+ld.depth)
		}
	}
	p, err := ld.readSlice0(k, gen)
	if err == nil && off != nil {
		if k.axis == Z {
			off = make([]bool, p.rows)
			for r := range off {
				off[r] = true
			}
		}
		p.off = off
		p.stats = statsOn(p)
	}
	return p, err
}

// readSlice0 is readSlice without the marks of planes not written.
func (ld *loader) readSlice0(k sliceKey, gen uint64) (*plane, error) {
	if k.level > 0 {
		return ld.readLevel(k)
	}
	src := ld.vol
	if k.axis != Z && ld.vol.Bytes() <= wholeBytes {
		if ld.whole == nil || ld.wholeGen != gen {
			data, err := ld.vol.ReadAll()
			if err != nil {
				return nil, err
			}
			ld.bytesRead.Add(int64(len(data)))
			m, err := volume.NewMemory(ld.vol.Info, data)
			if err != nil {
				return nil, err
			}
			ld.whole, ld.wholeGen = volume.New(ld.vol.Name, m), gen
		}
		src = ld.whole
	}
	return ld.readPlane(src, k)
}

// commit caches the slice k read at generation gen, or remembers that
// reading it failed, unless an invalidate came since the read began: the
// data (or the error) may then predate planes written since. The check
// and the insert hold mu, as invalidate does, so no invalidate can fall
// between them.
func (ld *loader) commit(k sliceKey, gen uint64, p *plane, err error) {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	if gen != ld.gen {
		return
	}
	if err != nil {
		if ld.failed == nil {
			ld.failed = map[sliceKey]error{}
		}
		ld.failed[k] = err
		return
	}
	ld.add(k, p)
}

// readPlane reads slice k from src (the volume, or a copy of it in
// memory): a z slice is one plane; a y or x slice of a stack reads only
// the planes of its map, in pieces (readSide).
func (ld *loader) readPlane(src *volume.Volume, k sliceKey) (*plane, error) {
	z0 := k.m * ld.depth
	if k.axis == Z {
		p, err := readPlaneStep(src, Z, z0+k.idx, ld.slabBytes, ld.step(k))
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
		if ld.redraw != nil {
			ld.redraw()
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
	// The same slice asked for again (a redraw before it was cached)
	// keeps the direction the move to it set.
	if k != ld.last {
		ld.prev, ld.last = ld.last, k
	}
	last := ld.prev
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
