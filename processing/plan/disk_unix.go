//go:build unix

package plan

import "golang.org/x/sys/unix"

// freeBytes returns the bytes an unprivileged user may still write on
// dir's file system.
func freeBytes(dir string) (int64, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
