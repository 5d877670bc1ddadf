// Package mallocinfo reports on glibc's malloc for tests: how many arenas
// it has, and a way to allocate and free C memory on the calling thread.
// It is cgo, which a _test.go file cannot be, so it is a package of its
// own that only tests import: the binary does not carry it.
package mallocinfo
