package gpu

import (
	"sync"
	"sync/atomic"
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
