package gpu

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// ParallelFor splits [0, n) into at most workers contiguous ranges and runs
// fn on each in its own goroutine, returning when all are done. Ranges are
// contiguous so each goroutine streams through its own part of memory.
func ParallelFor(workers, n int, fn func(lo, hi int)) {
	ParallelForWorker(workers, n, func(_, lo, hi int) { fn(lo, hi) })
}

// ParallelForWorker is ParallelFor telling fn the index w (0 ≤ w <
// workers) of its range, so that it can use per-worker scratch.
func ParallelForWorker(workers, n int, fn func(w, lo, hi int)) {
	if n <= 0 {
		return
	}
	workers = max(1, min(workers, n))
	if workers == 1 {
		fn(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*n/workers, (w+1)*n/workers
		if lo == hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(w, lo, hi)
		}()
	}
	wg.Wait()
}

// ParallelForDynamic runs fn(w, i) for every i in [0, n) on up to workers
// goroutines that take the next index as they finish the last one (w is
// the goroutine's index, for per-worker scratch). Unlike ParallelFor's
// fixed ranges, a goroutine slowed by other work in the process (a loader
// reading, a writer writing, the garbage collector) does not leave the
// other cores idle while its range finishes: use it for units of similar
// size that are large enough for one atomic add each to be nothing.
func ParallelForDynamic(workers, n int, fn func(w, i int)) {
	if n <= 0 {
		return
	}
	workers = max(1, min(workers, n))
	var next atomic.Int64
	work := func(w int) {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			fn(w, i)
		}
	}
	if workers == 1 {
		work(0)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(w)
		}()
	}
	wg.Wait()
}

// reportEvery is the shortest time between two progress reports of one
// kernel call: often enough for a progress bar and ETA to move smoothly,
// rarely enough that a job's sinks cost nothing next to the kernel.
const reportEvery = 100 * time.Millisecond

// reportSteps is how many times per call a kernel's workers look at the
// clock to see whether a report is due: often enough that a call of ten
// minutes still reports about every 150 ms, rarely enough that on a fast
// kernel (kernel-3 rows of a few microseconds) the clock costs nothing.
const reportSteps = 4096

// control is what Bind attaches to a backend: the job's cancellation as
// a flag the kernels' loops read between units of work (an atomic load
// costs nothing next to a row; ctx.Err takes a lock), and where they
// report how far a call has come.
type control struct {
	ctx      context.Context
	stopped  atomic.Bool
	progress func(done, total int64)
	// release stops the context.AfterFunc that sets stopped.
	release func() bool
}

func newControl(ctx context.Context, progress func(done, total int64)) *control {
	c := &control{ctx: ctx, progress: progress}
	if ctx != nil {
		c.release = context.AfterFunc(ctx, func() { c.stopped.Store(true) })
		// AfterFunc runs on a goroutine of its own: a context cancelled
		// already must stop the very next call.
		if ctx.Err() != nil {
			c.stopped.Store(true)
		}
	}
	return c
}

// work is one kernel call's share of a control: its loops ask stop
// between units and count the units done (rows, planes, chunks), and
// every so often the count goes to the control's progress. A nil *Work
// (no control bound) never stops and reports nothing.
type Work struct {
	ctl   *control
	total int64
	done  atomic.Int64
	// next is the count at which a worker next reads the clock; last is
	// the time (UnixNano) of the last report.
	next, last atomic.Int64
}

// begin returns the work of a call of total units under ctl, or nil
// when ctl is nil.
func (ctl *control) begin(total int64) *Work {
	if ctl == nil {
		return nil
	}
	w := &Work{ctl: ctl, total: max(total, 1)}
	w.next.Store(max(1, w.total/reportSteps))
	w.last.Store(time.Now().UnixNano())
	return w
}

// Stop reports whether the call should stop: its job was cancelled.
func (w *Work) Stop() bool { return w != nil && w.ctl.stopped.Load() }

// Add counts n more units done and reports the count when a report is
// due. Safe from the call's workers at once.
func (w *Work) Add(n int64) {
	if w == nil || w.ctl.progress == nil {
		return
	}
	d := w.done.Add(n)
	next := w.next.Load()
	if d < next || !w.next.CompareAndSwap(next, d+max(1, w.total/reportSteps)) {
		return
	}
	now := time.Now().UnixNano()
	if last := w.last.Load(); now-last >= int64(reportEvery) && w.last.CompareAndSwap(last, now) {
		w.ctl.progress(min(d, w.total), w.total)
	}
}

// Err is the error a call returns once it stopped early (nil if it was
// not): the job's context's.
func (w *Work) Err() error {
	if !w.Stop() {
		return nil
	}
	if err := w.ctl.ctx.Err(); err != nil {
		return err
	}
	return context.Canceled
}

// ForDynamic is ParallelForDynamic that stops handing out units once w
// stops: a cancel lands after the units in hand, not after all n.
func ForDynamic(workers, n int, w *Work, fn func(wk, i int)) {
	if w == nil {
		ParallelForDynamic(workers, n, fn)
		return
	}
	ParallelForDynamic(workers, n, func(wk, i int) {
		if !w.Stop() {
			fn(wk, i)
		}
	})
}
