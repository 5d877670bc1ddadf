package distance

import (
	"syscall"
	"unsafe"
)

// hugePages asks the kernel to back b with transparent huge pages (where
// the system allows them for programs that ask: "madvise", Debian's
// default). The first write to a 4 KiB page faults, and preparing maps
// into fresh buffers of hundreds of MiB spent more time in those faults
// than in the normalisation; a 2 MiB page faults once for 512 of them.
// Only the whole 2 MiB pages inside b are advised, so nothing outside b
// changes; failures are harmless and ignored.
func hugePages(b []byte) {
	const huge = 2 << 20
	if len(b) < 2*huge {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (p + huge - 1) &^ (huge - 1)
	hi := (p + uintptr(len(b))) &^ (huge - 1)
	if hi <= lo {
		return
	}
	_ = syscall.Madvise(b[lo-p:hi-p], syscall.MADV_HUGEPAGE)
}
