package gpu

// DefaultPinnedCap is the default cap on page-locked host memory: a quarter
// of physical RAM, because pinned pages cannot be swapped out and so are
// taken from everything else running (where RAM cannot be read, 2 GiB).
func DefaultPinnedCap() int64 {
	total, _ := HostMemory()
	if total <= 0 {
		return 2 << 30
	}
	return total / 4
}
