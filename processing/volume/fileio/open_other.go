//go:build !unix

package fileio

import "os"

// openNonBlocking opens path read-only (other systems have no FIFOs in
// the file system to block on).
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
