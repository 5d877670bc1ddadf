package gpu

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pinningCPU is a CPU backend that pretends to pin, so the staging pool's
// pinned path and its fall-backs can be tested without a GPU: pinning
// succeeds for the first okPins buffers, then fails.
type pinningCPU struct {
	*CPUBackend
	mu      sync.Mutex
	okPins  int
	pinned  int // pinned buffers held now
	freed   int
	refusal error
}

func (p *pinningCPU) HostAlloc(n int64, pin bool) (*HostBuffer, error) {
	if !pin {
		return p.CPUBackend.HostAlloc(n, false)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.okPins == 0 {
		return nil, p.refusal
	}
	p.okPins--
	p.pinned++
	return &HostBuffer{Bytes: make([]byte, n), Pinned: true, ptr: 1}, nil
}

func (p *pinningCPU) HostFree(h *HostBuffer) {
	if h.Pinned {
		p.mu.Lock()
		p.pinned--
		p.freed++
		p.mu.Unlock()
	}
}

func TestStagingPinning(t *testing.T) {
	refusal := errors.New("CUDA_ERROR_OUT_OF_MEMORY")
	tests := []struct {
		name       string
		okPins     int
		pin        bool
		pinCap     int64
		wantPinned bool
		wantWarn   string
		wantFreed  int
	}{
		{"pin off", 10, false, 0, false, "", 0},
		{"pinned", 10, true, 0, true, "", 0},
		{"pinned under the cap", 10, true, 3 * 64, true, "", 0},
		{"over the cap", 10, true, 3*64 - 1, false, "would pass the pinned-memory cap of 191 bytes; using pageable memory", 0},
		// The third pin fails: the two pinned buffers are released and
		// the whole pool is pageable.
		{"pin fails midway", 2, true, 0, false, "pinning 3 staging buffers of 64 bytes failed (staging buffer 2 of 64 bytes: CUDA_ERROR_OUT_OF_MEMORY); using pageable memory", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			be := &pinningCPU{CPUBackend: NewCPU(), okPins: tc.okPins, refusal: refusal}
			s, err := NewStaging(be, 3, 64, tc.pin, tc.pinCap)
			if err != nil {
				t.Fatal(err)
			}
			if s.Pinned() != tc.wantPinned {
				t.Errorf("Pinned() = %v, want %v", s.Pinned(), tc.wantPinned)
			}
			for _, h := range s.all {
				if h.Pinned != tc.wantPinned {
					t.Errorf("a mixed pool: buffer pinned %v, pool %v", h.Pinned, tc.wantPinned)
				}
			}
			if tc.wantWarn == "" && s.Warning() != "" || !strings.Contains(s.Warning(), tc.wantWarn) {
				t.Errorf("Warning() = %q, want %q", s.Warning(), tc.wantWarn)
			}
			if be.freed != tc.wantFreed {
				t.Errorf("%d pinned buffers released during the fall-back, want %d", be.freed, tc.wantFreed)
			}
			if s.Bytes() != 3*64 {
				t.Errorf("Bytes() = %d", s.Bytes())
			}
			s.Close()
			s.Close()
			// Pinned buffers stay pinned in the backend's pool until
			// ReleasePinned.
			if pooled := PooledPinned(be); tc.wantPinned && pooled != 3*64 || !tc.wantPinned && pooled != 0 {
				t.Errorf("%d bytes pooled after Close", pooled)
			}
			ReleasePinned(be)
			if be.pinned != 0 {
				t.Errorf("%d pinned buffers left after ReleasePinned", be.pinned)
			}
		})
	}
}

// TestPinnedPoolReuse: a staging closed gives its pinned buffers to the
// next one (of the same size or smaller) without pinning again; a larger
// one that the cap of pins cannot serve first unpins the pooled buffers.
func TestPinnedPoolReuse(t *testing.T) {
	be := &pinningCPU{CPUBackend: NewCPU(), okPins: 4, refusal: errors.New("out of pinned memory")}
	defer ReleasePinned(be)
	for i, size := range []int64{64, 64, 48} {
		s, err := NewStaging(be, 2, size, true, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Pinned() || be.okPins != 2 {
			t.Errorf("staging %d: pinned %v, %d pins left, want pinned and 2 (reused)", i, s.Pinned(), be.okPins)
		}
		for _, h := range s.all {
			if int64(len(h.Bytes)) != size {
				t.Errorf("staging %d: buffer of %d bytes, want %d", i, len(h.Bytes), size)
			}
		}
		s.Close()
	}
	// Two pins are left: a pool of three larger buffers pins two, then
	// unpins the two pooled ones (too small to reuse) and tries the third
	// again; this fake's pins do not come back, so the pool falls back to
	// pageable memory, having unpinned all four.
	s, err := NewStaging(be, 3, 128, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Pinned() || be.pinned != 0 || be.freed != 4 {
		t.Errorf("pinned %v, %d held, %d freed: want a pageable pool after freeing all 4", s.Pinned(), be.pinned, be.freed)
	}
	s.Close()
}

func TestStagingBadSizes(t *testing.T) {
	for _, c := range []struct {
		n    int
		size int64
	}{{0, 10}, {-1, 10}, {2, -1}} {
		if _, err := NewStaging(NewCPU(), c.n, c.size, false, 0); err == nil {
			t.Errorf("NewStaging(%d buffers of %d bytes) succeeded", c.n, c.size)
		}
	}
}

func TestStagingGetBlocksAndCancels(t *testing.T) {
	s, err := NewStaging(NewCPU(), 2, 8, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, _ := s.Get(ctx)
	b, _ := s.Get(ctx)
	if a == b || len(a.Bytes) != 8 {
		t.Fatalf("Get returned %p and %p of %d bytes", a, b, len(a.Bytes))
	}
	// The pool is empty: Get waits until its context gives up...
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if h, err := s.Get(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Get on an empty pool returned %v, %v; want to block until the deadline", h, err)
	}
	// ...or a buffer is put back.
	got := make(chan *HostBuffer)
	go func() {
		h, _ := s.Get(ctx)
		got <- h
	}()
	s.Put(b)
	if h := <-got; h != b {
		t.Errorf("Get after Put returned %p, want the buffer put back %p", h, b)
	}
	cancelled, cancel2 := context.WithCancel(ctx)
	cancel2()
	if _, err := s.Get(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a cancelled context: %v", err)
	}
}

func TestStagingPutMisuse(t *testing.T) {
	s, _ := NewStaging(NewCPU(), 1, 8, false, 0)
	h, _ := s.Get(context.Background())
	s.Put(h)
	for name, buf := range map[string]*HostBuffer{"twice": h, "foreign": {Bytes: make([]byte, 8)}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Put %s did not panic", name)
				}
			}()
			s.Put(buf)
		}()
	}
}

// drain consumes every batch, checks it, and puts its buffer back.
func drain(t *testing.T, s *Staging, batches <-chan Batch, check func(Batch)) int {
	t.Helper()
	n := 0
	for b := range batches {
		if check != nil {
			check(b)
		}
		s.Put(b.Buf)
		n++
	}
	return n
}

// allReturned checks that every buffer of the pool is free again.
func allReturned(t *testing.T, s *Staging) {
	t.Helper()
	if len(s.free) != len(s.all) {
		t.Errorf("%d of %d staging buffers returned to the pool", len(s.free), len(s.all))
	}
}

func TestLoadOrderAndContent(t *testing.T) {
	s, _ := NewStaging(NewCPU(), 3, 16, false, 0)
	const count = 20
	read := func(i int, dst []byte) (int, error) {
		n := 1 + i%16
		for j := 0; j < n; j++ {
			dst[j] = byte(i)
		}
		return n, nil
	}
	batches, wait := Load(context.Background(), s, count, read)
	next := 0
	got := drain(t, s, batches, func(b Batch) {
		if b.Index != next || b.N != 1+next%16 || b.Buf.Bytes[b.N-1] != byte(next) {
			t.Errorf("batch %d: index %d, %d bytes, last %d", next, b.Index, b.N, b.Buf.Bytes[b.N-1])
		}
		next++
	})
	if err := wait(); err != nil || got != count {
		t.Errorf("%d batches, err %v", got, err)
	}
	allReturned(t, s)
}

// TestLoadOverlap shows that reading batch i+1 happens while the consumer
// still holds batch i, and that the loader runs at most the pool's size
// ahead: every read is checked, when it starts, against the batches the
// consumer has not yet put back (no sleep stands for "the loader is
// blocked").
func TestLoadOverlap(t *testing.T) {
	s, _ := NewStaging(NewCPU(), 2, 4, false, 0)
	var mu sync.Mutex
	putBack := 0 // batches the consumer has put back
	var reads atomic.Int32
	readStarted := make(chan int, 10)
	read := func(i int, dst []byte) (int, error) {
		mu.Lock()
		ahead := i - putBack
		mu.Unlock()
		if ahead >= 2 {
			t.Errorf("batch %d read while %d batches were not put back: more than the pool's 2 buffers ahead", i, ahead)
		}
		reads.Add(1)
		readStarted <- i
		return len(dst), nil
	}
	put := func(b Batch) {
		mu.Lock()
		putBack++
		mu.Unlock()
		s.Put(b.Buf)
	}
	batches, wait := Load(context.Background(), s, 5, read)
	b0 := <-batches
	select {
	case i := <-readStarted: // batch 0's own read
		if i != 0 {
			t.Fatalf("first read of batch %d", i)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("no read")
	}
	select {
	case i := <-readStarted:
		if i != 1 {
			t.Fatalf("read of batch %d while batch 0 is held, want 1", i)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("batch 1 was not read while the consumer held batch 0: no overlap")
	}
	b1 := <-batches
	put(b0)
	put(b1)
	n := 0
	for b := range batches {
		put(b)
		n++
	}
	if n != 3 || reads.Load() != 5 {
		t.Errorf("%d remaining batches after %d reads, want 3 after 5", n, reads.Load())
	}
	if err := wait(); err != nil {
		t.Error(err)
	}
	allReturned(t, s)
}

func TestLoadReadError(t *testing.T) {
	s, _ := NewStaging(NewCPU(), 2, 4, false, 0)
	bad := errors.New("truncated file")
	read := func(i int, dst []byte) (int, error) {
		if i == 3 {
			return 0, bad
		}
		return len(dst), nil
	}
	batches, wait := Load(context.Background(), s, 10, read)
	n := drain(t, s, batches, nil)
	err := wait()
	if n != 3 || !errors.Is(err, bad) || !strings.Contains(err.Error(), "load batch 3 of 10") {
		t.Errorf("%d batches before the error, err %v; want 3 and the read error with its batch", n, err)
	}
	allReturned(t, s)

	s2, _ := NewStaging(NewCPU(), 1, 4, false, 0)
	batches, wait = Load(context.Background(), s2, 2, func(int, []byte) (int, error) { return 5, nil })
	drain(t, s2, batches, nil)
	if err := wait(); err == nil || !strings.Contains(err.Error(), "5 bytes for a 4-byte buffer") {
		t.Errorf("read overrunning its buffer: %v", err)
	}
}

func TestLoadCancel(t *testing.T) {
	for _, holdAll := range []bool{false, true} {
		t.Run(fmt.Sprintf("loader blocked in Get: %v", holdAll), func(t *testing.T) {
			s, _ := NewStaging(NewCPU(), 2, 4, false, 0)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			batches, wait := Load(ctx, s, 1000, func(_ int, dst []byte) (int, error) { return len(dst), nil })
			var held []*HostBuffer
			held = append(held, (<-batches).Buf)
			if holdAll {
				held = append(held, (<-batches).Buf)
			}
			cancel()
			for _, h := range held {
				s.Put(h)
			}
			n := drain(t, s, batches, nil)
			if err := wait(); !errors.Is(err, context.Canceled) {
				t.Errorf("after cancel: err %v", err)
			}
			if n > 2 {
				t.Errorf("%d batches delivered after cancel", n)
			}
			allReturned(t, s)
		})
	}
}

// TestPoolsForgetClosedBackends: opening and closing backends that stage
// data, pinned or not, leaves no pool behind (the map of pools grew by
// one entry per CPU backend, never shrinking: every command and plan
// opens one).
func TestPoolsForgetClosedBackends(t *testing.T) {
	before := poolCount()
	for i := range 20 {
		be := NewCPU()
		s, err := NewStaging(be, 2, 1<<10, i%2 == 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		be.Close()
	}
	if n := poolCount(); n != before {
		t.Errorf("%d pools after 20 backends were opened and closed, %d before", n, before)
	}
}
