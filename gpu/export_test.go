package gpu

// Functions the package's tests use that its code does not: kept out
// of the build.

// PooledPinned returns the bytes of page-locked staging be keeps between
// stagings.
func PooledPinned(be Backend) int64 {
	poolsMu.Lock()
	p := pools[be]
	poolsMu.Unlock()
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var n int64
	for _, h := range p.free {
		n += int64(cap(h.Bytes))
	}
	return n
}

// HasCUDA reports whether this binary was built with CUDA support.
func HasCUDA() bool { return cudaOpener != nil }
