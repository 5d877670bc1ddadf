package gpu

import (
	"context"
	"fmt"
)

// Staging is a bounded pool of equally sized host staging buffers for
// uploads. With pin, the buffers are page-locked where the backend can pin
// (CUDA) and the pool stays under pinCap bytes; when pinning the whole pool
// would pass the cap, or the backend refuses to pin (its own cap, or the
// driver), every buffer is pageable instead and Warning says why: a pool
// is either all pinned or all pageable.
type Staging struct {
	be      Backend
	size    int64
	free    chan *HostBuffer
	all     []*HostBuffer
	warning string
}

// NewStaging allocates n buffers of size bytes. pinCap bounds the pool's
// pinned bytes (0: no bound of its own; the CUDA backend still applies its
// total cap, DefaultPinnedCap unless set). Call it from a loader or job
// goroutine, never the UI goroutine: pinning large buffers takes time.
func NewStaging(be Backend, n int, size int64, pin bool, pinCap int64) (*Staging, error) {
	if n < 1 || size < 0 {
		return nil, fmt.Errorf("staging: %d buffers of %d bytes", n, size)
	}
	s := &Staging{be: be, size: size, free: make(chan *HostBuffer, n)}
	if pin && pinCap > 0 && int64(n)*size > pinCap {
		s.warning = fmt.Sprintf("pin_memory: %d staging buffers of %d bytes would pass the pinned-memory cap of %d bytes; using pageable memory", n, size, pinCap)
		pin = false
	}
	if pin {
		if err := s.alloc(n, true); err != nil {
			// Pinned memory ran short: give it back rather than pool it.
			for _, h := range s.all {
				s.be.HostFree(h)
			}
			s.all = nil
			s.warning = fmt.Sprintf("pin_memory: pinning %d staging buffers of %d bytes failed (%v); using pageable memory", n, size, err)
			pin = false
		}
	}
	if !pin {
		if err := s.alloc(n, false); err != nil {
			s.Close()
			return nil, err
		}
	}
	for _, h := range s.all {
		s.free <- h
	}
	return s, nil
}

// alloc appends n buffers to the pool. Pinned buffers come from the
// backend's pinned pool where it has them; when pinning a new one fails
// while the pool still keeps buffers too small to reuse, those are
// unpinned and the pin is tried once more.
func (s *Staging) alloc(n int, pin bool) error {
	// Only a pinning staging needs the backend's pool: asking for it
	// otherwise would make one per backend that never pins.
	var pool *pinnedPool
	if pin {
		pool = poolOf(s.be)
	}
	for i := 0; i < n; i++ {
		if pin {
			if h := pool.take(s.size); h != nil {
				s.all = append(s.all, h)
				continue
			}
		}
		h, err := s.be.HostAlloc(s.size, pin)
		if err != nil && pin {
			if free := pool.drain(); len(free) > 0 {
				for _, f := range free {
					s.be.HostFree(f)
				}
				h, err = s.be.HostAlloc(s.size, pin)
			}
		}
		if err != nil {
			return fmt.Errorf("staging buffer %d of %d bytes: %w", i, s.size, err)
		}
		s.all = append(s.all, h)
	}
	return nil
}

// Warning is the reason pinning was given up, or "".
func (s *Staging) Warning() string { return s.warning }

// Pinned reports whether the pool's buffers are page-locked.
func (s *Staging) Pinned() bool { return len(s.all) > 0 && s.all[0].Pinned }

// Bytes returns the pool's total size.
func (s *Staging) Bytes() int64 { return int64(len(s.all)) * s.size }

// Get waits for a free buffer.
func (s *Staging) Get(ctx context.Context) (*HostBuffer, error) {
	select {
	case h := <-s.free:
		return h, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Put returns a buffer to the pool once its upload has completed. It
// panics on a buffer the pool does not hold or one put back twice: either
// would let two batches share memory.
func (s *Staging) Put(h *HostBuffer) {
	owned := false
	for _, x := range s.all {
		owned = owned || x == h
	}
	if !owned {
		panic("gpu: Staging.Put of a buffer that is not the pool's")
	}
	select {
	case s.free <- h:
	default:
		panic("gpu: Staging.Put of a buffer that was not taken (put back twice?)")
	}
}

// Close frees the pageable buffers and gives pinned ones to the
// backend's pinned pool for the next staging; all must have been put
// back (their uploads done). Closing twice does nothing.
func (s *Staging) Close() {
	for _, h := range s.all {
		if h.Pinned {
			poolOf(s.be).put(h)
		} else {
			s.be.HostFree(h)
		}
	}
	s.all = nil
}

// Batch is one batch read by Load into a staging buffer.
type Batch struct {
	Index int
	Buf   *HostBuffer
	// N is the number of bytes of Buf that hold data.
	N int
}

// Load reads batches 0..count-1 in a loader goroutine, each into a free
// staging buffer, so that reading batch i+1 overlaps computing batch i; the
// pool's size bounds how far it runs ahead. read fills dst and returns the
// number of bytes it holds. The consumer ranges over the channel until it
// closes, and Puts each batch's buffer back when its upload is done; to
// stop early, cancel ctx and keep draining (Putting back what still
// arrives). The returned function waits for the loader and reports the
// first read error (with its batch index) or ctx's error.
func Load(ctx context.Context, s *Staging, count int, read func(i int, dst []byte) (int, error)) (<-chan Batch, func() error) {
	out := make(chan Batch)
	var loadErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		for i := 0; i < count; i++ {
			h, err := s.Get(ctx)
			if err != nil {
				loadErr = err
				return
			}
			n, err := read(i, h.Bytes)
			if err == nil && (n < 0 || n > len(h.Bytes)) {
				err = fmt.Errorf("read returned %d bytes for a %d-byte buffer", n, len(h.Bytes))
			}
			if err != nil {
				s.Put(h)
				loadErr = fmt.Errorf("load batch %d of %d: %w", i, count, err)
				return
			}
			select {
			case out <- Batch{Index: i, Buf: h, N: n}:
			case <-ctx.Done():
				s.Put(h)
				loadErr = ctx.Err()
				return
			}
		}
	}()
	return out, func() error { <-done; return loadErr }
}
