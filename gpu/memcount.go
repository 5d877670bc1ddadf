package gpu

import "sync"

// memCount counts a backend's device bytes against an optional cap; both
// backends embed it, so Stats, ResetPeak and SetLimit are the same for
// each. It has a lock of its own: a backend's other state may be locked
// around calls to it, never the other way round.
type memCount struct {
	countMu sync.Mutex
	cur     int64
	peak    int64
	allocs  int
	limit   int64
}

// reserve counts n more bytes, or returns an OOMError naming backend and
// label when they would pass the cap.
func (m *memCount) reserve(backend, label string, n int64) error {
	m.countMu.Lock()
	defer m.countMu.Unlock()
	if m.limit > 0 && m.cur+n > m.limit {
		return &OOMError{Backend: backend, Label: label, Want: n, Used: m.cur, Limit: m.limit}
	}
	m.cur += n
	return nil
}

// allocated records that a reserved allocation was made.
func (m *memCount) allocated() {
	m.countMu.Lock()
	m.peak = max(m.peak, m.cur)
	m.allocs++
	m.countMu.Unlock()
}

// uncount takes n bytes off the count (a freed buffer, or a reservation whose
// allocation failed) and returns the bytes still counted.
func (m *memCount) uncount(n int64) (cur int64) {
	m.countMu.Lock()
	defer m.countMu.Unlock()
	m.cur -= n
	return m.cur
}

// Stats returns the tracked figures.
func (m *memCount) Stats() MemStats {
	m.countMu.Lock()
	defer m.countMu.Unlock()
	return MemStats{Current: m.cur, Peak: m.peak, Allocs: m.allocs, Limit: m.limit}
}

// ResetPeak sets the peak to the current usage.
func (m *memCount) ResetPeak() {
	m.countMu.Lock()
	m.peak = m.cur
	m.countMu.Unlock()
}

// SetLimit caps tracked allocations at n bytes (0: no cap; the CUDA
// device's own memory still limits it).
func (m *memCount) SetLimit(n int64) {
	m.countMu.Lock()
	m.limit = n
	m.countMu.Unlock()
}

// resetCount drops every counted byte (a closed backend holds none).
func (m *memCount) resetCount() {
	m.countMu.Lock()
	m.cur = 0
	m.countMu.Unlock()
}
