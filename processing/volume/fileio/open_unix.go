//go:build unix

package fileio

import (
	"os"
	"syscall"
)

// openNonBlocking opens path read-only with O_NONBLOCK: opening a FIFO
// then returns at once instead of waiting for a writer (reads of a
// regular file ignore the flag), and O_NOCTTY keeps a terminal device
// from becoming the process's controlling terminal.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
