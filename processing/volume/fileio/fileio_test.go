package fileio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "a.bin")
	os.WriteFile(reg, []byte("hello"), 0o644)
	link := filepath.Join(dir, "link.bin")
	os.Symlink(reg, link)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", zero)
	for _, p := range []string{reg, link} {
		f, size, err := Open(p)
		if err != nil || size != 5 {
			t.Fatalf("%s: size %d, %v", p, size, err)
		}
		f.Close()
	}
	for p, kind := range map[string]string{fifo: "a FIFO", zero: "a character device", dir: "a folder"} {
		_, _, err := Open(p)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), kind) {
			t.Errorf("%s: %v, want %s refused", p, err, kind)
		}
	}
	if _, _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

func TestReadFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".zarray")
	os.WriteFile(p, []byte("0123456789"), 0o644)
	if b, err := ReadFile(p, 10, ".zarray"); err != nil || string(b) != "0123456789" {
		t.Errorf("%q %v", b, err)
	}
	_, err := ReadFile(p, 9, ".zarray")
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), ".zarray of 10 B is larger than voxlab's limit of 9 B") {
		t.Errorf("%v", err)
	}
}
