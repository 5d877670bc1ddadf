package volume

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenMapStackSaysWhy: a 4D NPY opened as one volume is refused in
// the user's words (naming the file and what takes stacks), not with the
// name of a Go function.
func TestOpenMapStackSaysWhy(t *testing.T) {
	p := filepath.Join(t.TempDir(), "maps.npy")
	hdr := "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2, 2, 2), }"
	hdr += strings.Repeat(" ", 128-10-len(hdr)-1) + "\n" // 118 bytes: 0x76
	b := append([]byte("\x93NUMPY\x01\x00\x76\x00"), hdr...)
	b = append(b, make([]byte, 16*4)...)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(p)
	if err == nil {
		t.Fatal("a 4D array opened as a volume")
	}
	msg := err.Error()
	if !strings.Contains(msg, p) || !strings.Contains(msg, "stack of maps") || strings.Contains(msg, "OpenStack") {
		t.Errorf("message %q", msg)
	}
}
