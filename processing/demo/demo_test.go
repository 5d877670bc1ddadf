package demo

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteDoesNothingWhenComplete(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, CompleteMark), nil, 0o644)
	if err := Write(dir, Small, 1); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("a complete folder was written to: %v", entries)
	}
}

// TestWrite runs the orchestrator with whatever brain and maps writers are
// linked in: the scan is always written, the mark only when all three
// succeeded, and leftovers of an interrupted run are removed first.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, BrainPlanes, "plane_9999.tif")
	os.MkdirAll(filepath.Dir(stale), 0o755)
	os.WriteFile(stale, []byte("left over"), 0o644)
	err := Write(dir, Small, 1)
	_, markErr := os.Stat(filepath.Join(dir, CompleteMark))
	if (err == nil) != (markErr == nil) {
		t.Errorf("Write returned %v but the mark exists: %v", err, markErr == nil)
	}
	if err != nil {
		t.Logf("Write: %v (the other datasets' writers may not be in yet)", err)
	}
	for _, p := range []string{TomoScan, TomoZingers} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s not written: %v", p, err)
		}
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a leftover plane was kept")
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]Size{"": Small, "small": Small, "large": Large} {
		if got, err := ParseSize(s); err != nil || got != want || (s != "" && got.String() != s) {
			t.Errorf("%q: %v %v", s, got, err)
		}
	}
	if _, err := ParseSize("huge"); err == nil {
		t.Error("huge accepted")
	}
}
