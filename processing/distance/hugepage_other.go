//go:build !linux

package distance

// hugePages does nothing where transparent huge pages are not asked for
// this way.
func hugePages([]byte) {}
