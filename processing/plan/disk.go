package plan

import (
	"fmt"
	"path/filepath"
)

// DiskFullError says an output would not fit the space free on its file
// system.
type DiskFullError struct {
	Pipeline, Path string
	// Need is the most the output takes on disk, Free the bytes free.
	Need, Free int64
}

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("%s: no space left for the output %s: it may take up to %s on disk, and its file system has %s free: free some space or write it elsewhere",
		e.Pipeline, e.Path, FormatBytes(e.Need), FormatBytes(e.Free))
}

// CheckDisk records that the run writes at most need bytes to path and
// how much is free on path's file system (its folder's, for a path not
// yet created), and refuses an output larger than that before anything
// is written. Where the free space cannot be known it checks nothing.
func (p *Plan) CheckDisk(path string, need int64) error {
	p.Output = need
	free, ok := freeBytes(filepath.Dir(filepath.Clean(path)))
	if !ok {
		return nil
	}
	p.Free = free
	if need > free {
		return &DiskFullError{Pipeline: p.Pipeline, Path: path, Need: need, Free: free}
	}
	return nil
}
