//go:build unix

package plan

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCheckDisk: an output larger than the space free on its file
// system is refused with both figures before anything is written; one
// that fits is recorded in the plan, and shown.
func TestCheckDisk(t *testing.T) {
	dir := t.TempDir()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	out := filepath.Join(dir, "out.h5")

	p := &Plan{Pipeline: "dezing", Phases: []PhasePlan{{Name: "p", Unit: "slices", Units: 1, Block: 1, Blocks: 1}}}
	err := p.CheckDisk(out, 1<<60)
	var full *DiskFullError
	if !errors.As(err, &full) || full.Need != 1<<60 || full.Path != out {
		t.Fatalf("an output of 2^60 bytes: %v", err)
	}
	// The free space moves as others write: within a GiB of ours.
	if d := full.Free - free; d > 1<<30 || d < -(1<<30) {
		t.Errorf("free %d bytes, statfs says %d", full.Free, free)
	}
	if msg := err.Error(); !strings.Contains(msg, "no space left for the output "+out+": it may take up to 1024 PiB on disk") || !strings.Contains(msg, "free") {
		t.Errorf("message %q", msg)
	}

	if err := p.CheckDisk(out, 5<<20); err != nil {
		t.Fatal(err)
	}
	if p.Output != 5<<20 || p.Free <= 5<<20 {
		t.Errorf("plan records output %d, free %d", p.Output, p.Free)
	}
	var b strings.Builder
	p.Format(&b)
	if !strings.Contains(b.String(), "output:        at most 5 MiB on disk, ") {
		t.Errorf("plan text:\n%s", b.String())
	}
	js, _ := p.MarshalJSON()
	var m map[string]any
	json.Unmarshal(js, &m)
	if m["output_bytes"] != float64(5<<20) || m["free_bytes"] == nil {
		t.Errorf("plan JSON %s", js)
	}
}
