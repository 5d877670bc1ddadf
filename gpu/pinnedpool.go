package gpu

import "sync"

// pinnedPool keeps a backend's page-locked staging buffers between
// stagings — the blocks, phases and jobs of a session — because pinning
// is slow (the driver locks every page): pinned anew for each phase, a
// short dezinging run was slower with pin_memory than without it
// (BENCHMARKS.md, issue 4). Buffers stay pinned, and counted against the
// backend's pinned-memory cap, until ReleasePinned or the backend closes.
type pinnedPool struct {
	mu   sync.Mutex
	free []*HostBuffer
}

var (
	poolsMu sync.Mutex
	pools   = map[Backend]*pinnedPool{}
)

func poolOf(be Backend) *pinnedPool {
	poolsMu.Lock()
	defer poolsMu.Unlock()
	p := pools[be]
	if p == nil {
		p = &pinnedPool{}
		pools[be] = p
	}
	return p
}

// take returns the smallest free buffer of at least n bytes, sliced to n,
// or nil.
func (p *pinnedPool) take(n int64) *HostBuffer {
	p.mu.Lock()
	defer p.mu.Unlock()
	best := -1
	for i, h := range p.free {
		if int64(cap(h.Bytes)) >= n && (best < 0 || cap(h.Bytes) < cap(p.free[best].Bytes)) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	h := p.free[best]
	p.free = append(p.free[:best], p.free[best+1:]...)
	h.Bytes = h.Bytes[:n]
	return h
}

// put keeps h for the next staging.
func (p *pinnedPool) put(h *HostBuffer) {
	h.Bytes = h.Bytes[:cap(h.Bytes)]
	p.mu.Lock()
	p.free = append(p.free, h)
	p.mu.Unlock()
}

// drain removes and returns every free buffer.
func (p *pinnedPool) drain() []*HostBuffer {
	p.mu.Lock()
	defer p.mu.Unlock()
	free := p.free
	p.free = nil
	return free
}

// forgetPool drops be's pool, whose buffers its owner frees: a closed
// backend keeps no entry (the map would otherwise grow by one per backend
// opened, each command and plan opening one).
func forgetPool(be Backend) {
	poolsMu.Lock()
	delete(pools, be)
	poolsMu.Unlock()
}

// poolCount is the number of backends with a pool (for tests).
func poolCount() int {
	poolsMu.Lock()
	defer poolsMu.Unlock()
	return len(pools)
}

// ReleasePinned unpins the staging buffers be keeps between stagings
// (none are in use by then: a staging gives its buffers back when it
// closes). The CUDA backend calls it when it closes; the GUI may call it
// when the user turns pin_memory off.
func ReleasePinned(be Backend) {
	poolsMu.Lock()
	p := pools[be]
	delete(pools, be)
	poolsMu.Unlock()
	if p == nil {
		return
	}
	for _, h := range p.drain() {
		be.HostFree(h)
	}
}
