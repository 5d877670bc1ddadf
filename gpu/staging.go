package gpu

import (
	"context"
	"fmt"
)

// Staging is a bounded pool of equally sized host staging buffers for
// uploads. With pin, the buffers are page-locked where the backend can pin
// (CUDA) and the pool stays under pinCap bytes; a pin that fails or would
// pass the cap falls back to pageable memory, and Warning says why.
type Staging struct {
	be      Backend
	size    int64
	free    chan *HostBuffer
	all     []*HostBuffer
	warning string
}

// NewStaging allocates n buffers of size bytes. Call it from a loader or
// job goroutine, never the UI goroutine: pinning large buffers takes time.
func NewStaging(be Backend, n int, size int64, pin bool, pinCap int64) (*Staging, error) {
	if n < 1 || size < 0 {
		return nil, fmt.Errorf("staging: %d buffers of %d bytes", n, size)
	}
	s := &Staging{be: be, size: size, free: make(chan *HostBuffer, n)}
	if pin && pinCap > 0 && int64(n)*size > pinCap {
		s.warning = fmt.Sprintf("pin_memory: %d staging buffers of %d bytes would pass the pinned-memory cap of %d bytes; using pageable memory", n, size, pinCap)
		pin = false
	}
	for i := 0; i < n; i++ {
		h, err := be.HostAlloc(size, pin)
		if err != nil && pin {
			s.warning = fmt.Sprintf("pin_memory: pinning failed (%v); using pageable memory", err)
			pin = false
			h, err = be.HostAlloc(size, false)
		}
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("staging buffer %d of %d bytes: %w", i, size, err)
		}
		s.all = append(s.all, h)
		s.free <- h
	}
	return s, nil
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

// Put returns a buffer to the pool once its upload has completed.
func (s *Staging) Put(h *HostBuffer) { s.free <- h }

// Close frees the buffers.
func (s *Staging) Close() {
	for _, h := range s.all {
		s.be.HostFree(h)
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
// pool's size bounds how far it runs ahead. The consumer must Put each
// batch's buffer back when its upload is done. The returned error function
// reports the first read error (or ctx's error) after the channel closes.
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
			if err != nil {
				s.Put(h)
				loadErr = err
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
