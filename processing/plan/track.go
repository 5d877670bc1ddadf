package plan

import "sync"

// Tracker counts the host memory a run allocates for the arrays its plan
// names, so that tests can hold the peak of host and device memory
// against the plan's prediction (the backend counts the device side).
// A nil *Tracker allocates without counting. It is safe for concurrent
// use.
type Tracker struct {
	mu        sync.Mutex
	cur, peak int64
	byLabel   map[string]int64
	peakBy    map[string]int64
}

// NewTracker returns a tracker with nothing counted.
func NewTracker() *Tracker {
	return &Tracker{byLabel: map[string]int64{}}
}

// Bytes allocates n bytes for label and counts them until Free.
func (t *Tracker) Bytes(label string, n int64) []byte {
	b := make([]byte, n)
	t.Add(label, n)
	return b
}

// Add counts n bytes held for label (negative n releases them): for
// memory allocated elsewhere, such as a library's buffers.
func (t *Tracker) Add(label string, n int64) {
	if t == nil || n == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cur += n
	t.byLabel[label] += n
	if t.cur > t.peak {
		t.peak = t.cur
		t.peakBy = make(map[string]int64, len(t.byLabel))
		for k, v := range t.byLabel {
			if v != 0 {
				t.peakBy[k] = v
			}
		}
	}
}

// Free stops counting b, allocated for label with Bytes. The memory
// itself goes back when the garbage collector finds it unused.
func (t *Tracker) Free(label string, b []byte) {
	t.Add(label, -int64(len(b)))
}

// Current returns the bytes counted now.
func (t *Tracker) Current() int64 {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cur
}

// Peak returns the most bytes counted at once.
func (t *Tracker) Peak() int64 {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.peak
}

// PeakBreakdown returns the bytes of each label at the peak, to say
// which array passed a prediction.
func (t *Tracker) PeakBreakdown() map[string]int64 {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]int64, len(t.peakBy))
	for k, v := range t.peakBy {
		out[k] = v
	}
	return out
}
