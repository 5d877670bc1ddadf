package gpu

import "sync"

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
