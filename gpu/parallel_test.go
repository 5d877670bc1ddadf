package gpu

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestParallelForCoversEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 5, 100, 1001} {
		for _, workers := range []int{-3, 0, 1, 2, 3, 7, 2000} {
			var mu sync.Mutex
			hits := make([]int, n)
			calls := 0
			ParallelFor(workers, n, func(lo, hi int) {
				mu.Lock()
				defer mu.Unlock()
				calls++
				if lo >= hi {
					t.Errorf("n %d workers %d: empty range [%d,%d)", n, workers, lo, hi)
				}
				for i := lo; i < hi; i++ {
					hits[i]++
				}
			})
			for i, h := range hits {
				if h != 1 {
					t.Fatalf("n %d workers %d: index %d done %d times", n, workers, i, h)
				}
			}
			if maxCalls := max(1, min(workers, n)); n > 0 && calls > maxCalls {
				t.Errorf("n %d workers %d: %d calls, want at most %d", n, workers, calls, maxCalls)
			}
			if n == 0 && calls != 0 {
				t.Errorf("n 0: %d calls", calls)
			}
		}
	}
}

// TestParallelForRunsConcurrently: four ranges that each wait for all
// four to have started can only finish if they run at the same time.
func TestParallelForRunsConcurrently(t *testing.T) {
	var started sync.WaitGroup
	started.Add(4)
	done := make(chan struct{})
	go func() {
		ParallelFor(4, 4, func(lo, hi int) {
			started.Done()
			started.Wait()
		})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // a hang: the ranges ran one after another
		t.Fatal("ParallelFor ran its ranges one after another")
	}
}

func TestParallelForBalanced(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	ParallelFor(3, 10, func(lo, hi int) {
		mu.Lock()
		sizes = append(sizes, hi-lo)
		mu.Unlock()
	})
	for _, s := range sizes {
		if s < 3 || s > 4 {
			t.Errorf("range sizes %v for 10 items on 3 workers, want 3 or 4 each", sizes)
		}
	}
}

// TestParallelForWorkerIndices: each range gets its own worker index
// below workers, so per-worker scratch is never shared.
func TestParallelForWorkerIndices(t *testing.T) {
	for _, tc := range []struct{ workers, n int }{{1, 5}, {4, 4}, {4, 100}, {8, 3}} {
		var mu sync.Mutex
		seen := map[int]bool{}
		ParallelForWorker(tc.workers, tc.n, func(w, lo, hi int) {
			mu.Lock()
			defer mu.Unlock()
			if seen[w] || w < 0 || w >= tc.workers {
				t.Errorf("workers %d, n %d: worker index %d repeated or out of range", tc.workers, tc.n, w)
			}
			seen[w] = true
		})
		if want := min(tc.workers, tc.n); len(seen) != want {
			t.Errorf("workers %d, n %d: %d ranges, want %d", tc.workers, tc.n, len(seen), want)
		}
	}
}

// TestParallelForDynamic: every index runs exactly once, on a worker index
// in range, for worker counts below, at and above n.
func TestParallelForDynamic(t *testing.T) {
	for _, c := range []struct{ workers, n int }{{1, 10}, {3, 10}, {16, 5}, {4, 0}} {
		seen := make([]atomic.Int32, c.n)
		var bad atomic.Bool
		ParallelForDynamic(c.workers, c.n, func(w, i int) {
			if w < 0 || w >= max(1, min(c.workers, c.n)) {
				bad.Store(true)
			}
			seen[i].Add(1)
		})
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Errorf("workers %d, n %d: index %d ran %d times", c.workers, c.n, i, seen[i].Load())
			}
		}
		if bad.Load() {
			t.Errorf("workers %d, n %d: a worker index out of range", c.workers, c.n)
		}
	}
}
