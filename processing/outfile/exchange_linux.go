package outfile

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameExchange swaps a and b atomically (renameat2 with
// RENAME_EXCHANGE, Linux 3.15+): both must exist. A file system that
// cannot (some network and FUSE file systems) answers EINVAL or
// EOPNOTSUPP, a kernel without renameat2 ENOSYS: errExchange then.
func renameExchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		return errExchange
	}
	return err
}
