package dezing

import (
	"context"
	"sync"
)

// writer hands processed blocks to a sink on a goroutine of its own, so
// that one block is written while the next is computed and the one after
// is read. It owns a fixed set of buffers: buffer waits for one whose
// block has been written, so at most len(bufs) blocks are held.
type writer struct {
	ctx  context.Context
	sink func(i0 int, data []byte) error
	free chan []byte
	jobs chan writeJob
	done chan struct{}

	mu  sync.Mutex
	err error
}

type writeJob struct {
	i0   int
	data []byte
}

func newWriter(ctx context.Context, sink func(int, []byte) error, bufs [][]byte) *writer {
	w := &writer{ctx: ctx, sink: sink, free: make(chan []byte, len(bufs)),
		jobs: make(chan writeJob, len(bufs)), done: make(chan struct{})}
	for _, b := range bufs {
		w.free <- b[:cap(b)]
	}
	go w.run()
	return w
}

// run writes the queued blocks in order. After the first error (or the
// run's cancellation) it writes
// nothing more but still frees the buffers, so that buffer never waits
// for a block that will not be written.
func (w *writer) run() {
	defer close(w.done)
	for j := range w.jobs {
		if err := w.ctx.Err(); err != nil && w.failed() == nil {
			// A cancelled run writes nothing more.
			w.mu.Lock()
			w.err = err
			w.mu.Unlock()
		}
		if w.failed() == nil {
			if err := w.sink(j.i0, j.data); err != nil {
				w.mu.Lock()
				w.err = err
				w.mu.Unlock()
			}
		}
		w.free <- j.data[:cap(j.data)]
	}
}

func (w *writer) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// buffer returns a free buffer, or the first write error, or the
// context's error when the run is cancelled while it waits.
func (w *writer) buffer() ([]byte, error) {
	if err := w.failed(); err != nil {
		return nil, err
	}
	select {
	case b := <-w.free:
		if err := w.failed(); err != nil {
			w.free <- b
			return nil, err
		}
		return b, nil
	case <-w.ctx.Done():
		return nil, w.ctx.Err()
	}
}

// write queues data (a buffer from buffer) to be written as the block
// starting at i0.
func (w *writer) write(i0 int, data []byte) { w.jobs <- writeJob{i0, data} }

// discard gives back a buffer whose block will not be written.
func (w *writer) discard(data []byte) { w.free <- data[:cap(data)] }

// close waits for the queued blocks to be written and returns the first
// error.
func (w *writer) close() error {
	close(w.jobs)
	<-w.done
	return w.failed()
}
