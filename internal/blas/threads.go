//go:build !noopenblas

package blas

import "sync"

// threadCount guards OpenBLAS's global thread count. A product holds it
// for its call: one asking for n threads waits until no product with a
// different count runs, sets n if it differs, and runs beside the others
// that asked for n (one-thread products run concurrently; a product of
// several threads runs beside other products of the same count, which
// OpenBLAS then shares out among its threads).
type threadCount struct {
	mu      sync.Mutex
	cond    *sync.Cond
	n       int // the count set in OpenBLAS (0: not yet set by us)
	running int // products running at count n
}

var threads = func() *threadCount {
	t := &threadCount{}
	t.cond = sync.NewCond(&t.mu)
	return t
}()

// hold waits until OpenBLAS runs n threads with no product of another
// count in flight, and returns the release.
func (t *threadCount) hold(n int) (release func()) {
	n = max(n, 1)
	t.mu.Lock()
	for t.n != n && t.running > 0 {
		t.cond.Wait()
	}
	if t.n != n {
		setThreads(n)
		t.n = n
	}
	t.running++
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		t.running--
		if t.running == 0 {
			t.cond.Broadcast()
		}
		t.mu.Unlock()
	}
}
