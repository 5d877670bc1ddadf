package viewer

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/voxlab/voxlab/processing/volume"
)

// These tests pin down how the loader shares a volume with the goroutines
// around it: the UI goroutine that removes a layer and closes its volume,
// and a pipeline's goroutine that writes planes and refreshes them. Run
// them with -race (make test does): some of what they catch is a data
// race that only the race detector sees.

// gatedSource is a source of uint8 planes whose voxels all hold the
// source's version, the stand-in for a volume still being written (a
// writer bumps the version before it invalidates). With a gate, every
// read announces itself on entered and blocks until the gate lets it go,
// and then fails when failNext is set. Like a real source (a raw file's
// descriptor, a TIFF's strip buffer), it is not safe to close under a
// read: data is a plain field that Close clears, and Close records a
// read it finds in flight.
type gatedSource struct {
	info     volume.Info
	gate     chan struct{} // nil: reads do not block
	entered  chan int
	version  atomic.Int32
	failNext atomic.Bool

	inFlight      atomic.Int32
	closedInRead  atomic.Bool
	data          []byte // cleared by Close; reads copy from it
	reads, closes atomic.Int32
}

func newGatedSource(shape [3]int, gated bool) *gatedSource {
	s := &gatedSource{info: volume.Info{Shape: shape, DType: volume.Uint8}, entered: make(chan int, 16)}
	if gated {
		s.gate = make(chan struct{})
	}
	s.data = make([]byte, s.info.PlaneBytes())
	return s
}

func (s *gatedSource) Info() volume.Info { return s.info }

func (s *gatedSource) ReadSlab(z0, z1 int, dst []byte) error {
	s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	s.reads.Add(1)
	if s.gate != nil {
		s.entered <- z0
		<-s.gate
	}
	if s.failNext.Swap(false) {
		return errors.New("plane not written yet")
	}
	if s.data == nil {
		return errors.New("read after Close")
	}
	v := byte(s.version.Load())
	pb := len(s.data)
	for z := z0; z < z1; z++ {
		for i := range pb {
			dst[(z-z0)*pb+i] = v | s.data[i]
		}
	}
	return nil
}

func (s *gatedSource) Close() error {
	s.closes.Add(1)
	if s.inFlight.Load() > 0 {
		s.closedInRead.Store(true)
	}
	s.data = nil
	return nil
}

// until polls cond until it holds, failing the test after two minutes (a
// hang: the condition is an event).
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// A layer removed while its loader is reading: close waits for the read
// to end (and the loader goroutine to return) before it returns, so the
// volume is closed after the last read, never under it. Without the wait
// the race detector sees Close clear the data the read copies from, and
// the source sees Close come while a read is in flight.
func TestLoaderCloseWaitsForTheReadInFlight(t *testing.T) {
	src := newGatedSource([3]int{10, 4, 4}, true)
	vol := volume.New("gated", src)
	ld := newLoader(vol, 10, nil, nil)
	ld.get(sliceKey{axis: Z, idx: 3})
	if z := <-src.entered; z != 3 {
		t.Fatalf("read plane %d, want 3", z)
	}
	// What RemoveLayer does, on its own goroutine since close blocks
	// while the read is held.
	removed := make(chan struct{})
	go func() {
		ld.close()
		vol.Close()
		close(removed)
	}()
	until(t, "close to start", func() bool {
		ld.mu.Lock()
		defer ld.mu.Unlock()
		return ld.closed
	})
	close(src.gate) // the storage answers
	select {
	case <-removed:
	case <-time.After(2 * time.Minute):
		t.Fatal("close did not return after the read ended")
	}
	if src.closedInRead.Load() {
		t.Error("the volume was closed while the loader was reading it")
	}
	if n := src.closes.Load(); n != 1 {
		t.Errorf("closed %d times", n)
	}
	ld.close() // a second close returns at once
}

// RefreshPlanes is called from a pipeline's goroutine while the UI
// goroutine removes the layer: it must not read the layer's viewer field,
// which RemoveLayer clears (the race detector catches it), and after the
// removal it does nothing.
func TestRefreshPlanesWhileTheLayerIsRemoved(t *testing.T) {
	h := newHarness(t)
	src := newGatedSource([3]int{8, 4, 4}, false)
	l, err := h.v.AddImage("live", volume.New("live", src), ImageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.settle()
	stop := make(chan struct{})
	refreshed := make(chan struct{}, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the pipeline writing planes
		defer wg.Done()
		for z := 0; ; z = (z + 1) % 8 {
			select {
			case <-stop:
				return
			default:
			}
			l.Feed().RefreshPlanes(z, z+1)
			select {
			case refreshed <- struct{}{}:
			default:
			}
		}
	}()
	<-refreshed
	h.v.RemoveLayer(l)
	<-refreshed // refreshes go on after the removal
	close(stop)
	wg.Wait()
	if src.closedInRead.Load() {
		t.Error("the volume was closed while the loader was reading it")
	}
}

// A read that fails while the volume is being written (the plane is not
// there yet) is not remembered once an invalidate came during the read:
// the next request reads the plane again and shows it.
func TestLoaderForgetsAFailureThatAnInvalidateMadeStale(t *testing.T) {
	src := newGatedSource([3]int{10, 4, 4}, true)
	errs := make(chan error, 16)
	ld := newLoader(volume.New("live", src), 10, func(k sliceKey, err error) {
		if k.idx == 5 {
			errs <- err
		}
	}, nil)
	defer ld.close()
	k := sliceKey{axis: Z, idx: 5}
	ld.get(k)
	<-src.entered
	// The writer writes plane 5 and refreshes it while the read (which
	// started before) is still on its way; then the read fails.
	src.failNext.Store(true)
	src.version.Store(1)
	ld.invalidate(5, 6)
	src.gate <- struct{}{}
	if err := <-errs; err == nil {
		t.Fatal("the held read did not fail")
	}
	close(src.gate)
	if err := ld.err(k); err != nil {
		t.Fatalf("a failure older than the invalidate is remembered: %v", err)
	}
	if p := ld.get(k); p != nil {
		t.Fatal("a plane was cached from a failed read")
	}
	if err := <-errs; err != nil {
		t.Fatalf("reading plane 5 again: %v", err)
	}
	if p := ld.get(k); p == nil || p.value(0, 0) != 1 {
		t.Fatalf("plane 5 after the retry: %v", p)
	}
}

// A slice read before an invalidate is never cached after it, even when
// the invalidate falls between the loader's check that the read is still
// current and its insert into the cache. The test puts the invalidate
// there: it fills the cache to its budget with one planted slice, so that
// caching the next slice first evicts it, and the eviction callback (run
// just before the insert) writes the plane and invalidates it. Where the
// loader holds its lock across the check and the insert, the invalidate
// has to wait for the insert, and removes what it inserted.
func TestLoaderNeverCachesAPlaneThatAnInvalidateMadeStale(t *testing.T) {
	src := newGatedSource([3]int{10, 4, 4}, false)
	ready := make(chan sliceKey, 16)
	ld := newLoader(volume.New("live", src), 10, func(k sliceKey, err error) {
		if err != nil {
			t.Error(err)
		}
		ready <- k
	}, nil)
	defer ld.close()
	planted := sliceKey{axis: Z, idx: 9}
	var once sync.Once
	var async sync.WaitGroup
	write := func() { // the pipeline's write of plane 5, then its refresh
		src.version.Store(1)
		ld.invalidate(5, 6)
	}
	// No read has started, so the loader goroutine is parked on mu's
	// condition: replacing the cache here is ordered before its reads.
	ld.cache, _ = lru.NewWithEvict(1<<20, func(k sliceKey, p *plane) {
		ld.cachedBytes.Add(-int64(len(p.data)))
		if k != planted {
			return
		}
		once.Do(func() {
			if ld.mu.TryLock() {
				// Between the check and the insert, unlocked: write
				// now, before the insert.
				ld.mu.Unlock()
				write()
				return
			}
			// The check and the insert hold the lock: the write's
			// invalidate waits for the insert.
			async.Add(1)
			go func() { defer async.Done(); write() }()
		})
	})
	ld.mu.Lock()
	ld.add(planted, &plane{dtype: volume.Uint8, rows: 1, cols: cacheBytes, data: make([]byte, cacheBytes)})
	ld.mu.Unlock()

	k := sliceKey{axis: Z, idx: 5}
	ld.get(k)
	for got := <-ready; got != k; got = <-ready {
	}
	async.Wait()
	until(t, "the loader to go idle", ld.idle)
	if ld.cache.Contains(planted) {
		t.Fatal("the planted slice was not evicted: the test did not reach the insert")
	}
	if p, ok := ld.cache.Get(k); ok && p.value(0, 0) != 1 {
		t.Fatalf("plane 5 is cached with the data from before the invalidate (%v, want 1)", p.value(0, 0))
	}
}

// TestRepeatedRequestKeepsDirection: a slice asked for again before it
// was cached (a redraw while it loads) keeps the direction of the move
// to it: after map 30 -> 31 the next maps are prefetched, not the next
// slices (the race behind a flaky TestStackReadsOnlyTheShownMap).
func TestRepeatedRequestKeepsDirection(t *testing.T) {
	const depth, maps = 8, 50
	ld := &loader{depth: depth, vol: volume.New("maps", &synthSource{volume.Info{Shape: [3]int{depth * maps, 4, 4}, DType: volume.Uint8}})}
	ld.queueNeighbours(sliceKey{axis: Z, idx: 5, m: 30})
	k := sliceKey{axis: Z, idx: 5, m: 31}
	ld.queueNeighbours(k)
	ld.prefetch = ld.prefetch[:0] // the repeated request drops the queue
	ld.queueNeighbours(k)
	if len(ld.prefetch) == 0 || ld.prefetch[0] != (sliceKey{axis: Z, idx: 5, m: 32}) {
		t.Errorf("prefetch after map 30, 31, 31: %v, want map 32 slice 5 first", ld.prefetch)
	}
}
