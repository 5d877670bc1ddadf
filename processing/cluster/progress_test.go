package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/job"
)

func TestProgressFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "progress", "task-1.jsonl")
	if _, _, err := ReadProgress(path); !errors.Is(err, ErrNoProgress) {
		t.Fatalf("missing file: %v", err)
	}
	pf, err := CreateProgressFile(path)
	if err != nil {
		t.Fatal(err)
	}
	err = job.Run(context.Background(), "dezing", func(ctx context.Context, p *job.Progress) error {
		p.Stage("projections", 450, "slices")
		p.Transfer(1000, 10)
		p.Memory(1<<30, 1<<20)
		for range 449 {
			p.Add(1)
			p.Partial("a block") // partial results stay out of the file
		}
		p.Warn("clipped 3 values")
		return errors.New("read slab 449 of scan.nxs: truncated")
	}, pf.Sink())
	if err == nil {
		t.Fatal("the job should fail")
	}
	if err := pf.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	last, warnings, err := ReadProgress(path)
	if err != nil {
		t.Fatal(err)
	}
	// The first progress, the warning, the latest progress (flushed
	// before the end) and the failure, plus at most one progress line
	// per second the run took: not one per Add or per partial result.
	if maxLines := 4 + int(last.Elapsed); len(lines) < 4 || len(lines) > maxLines {
		t.Errorf("%d lines for a run of %.1f s, want 4 to %d:\n%s", len(lines), last.Elapsed, maxLines, data)
	}
	if last.Kind != "failed" || last.Error != "read slab 449 of scan.nxs: truncated" || last.Done != 449 ||
		last.Total != 450 || last.Stage != "projections" || last.PeakDevice != 1<<30 || last.ToDevice != 1000 || last.Host == "" {
		t.Errorf("last record %+v", last)
	}
	if len(warnings) != 1 || warnings[0] != "clipped 3 values" {
		t.Errorf("warnings %q", warnings)
	}

	// A resubmitted run appends; a torn line (a write in progress) is
	// skipped; the old run's warnings no longer count.
	pf, err = CreateProgressFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := job.NewProgress("dezing", pf.Sink())
	p.Stage("projections", 450, "slices")
	p.Add(10)
	pf.Close()
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"time":"2025-01-01T00:00:00Z","kind":"fini`)
	f.Close()
	last, warnings, err = ReadProgress(path)
	if err != nil || last.Kind != "progress" || last.Done != 0 || len(warnings) != 0 {
		// The first progress event (Done 0) passes the throttle; Add(10)
		// is held back and never flushed because the run did not end.
		t.Errorf("after a resubmission: %+v, %q, %v", last, warnings, err)
	}
}

func TestCheckTasksFinished(t *testing.T) {
	shared := t.TempDir()
	writeProgress(t, shared, 0, `{"kind":"finished"}`)
	writeProgress(t, shared, 1, `{"kind":"failed","error":"disk full"}`, `{"kind":"progress"}`, `{"kind":"finished"}`) // resubmitted
	if err := CheckTasksFinished(shared, 2); err != nil {
		t.Fatal(err)
	}
	writeProgress(t, shared, 2, `{"kind":"failed","error":"disk full"}`)
	err := CheckTasksFinished(shared, 4)
	if err == nil || !strings.Contains(err.Error(), "task 2 failed: disk full") || !strings.Contains(err.Error(), "task 3 has no progress file") {
		t.Errorf("err = %v", err)
	}
}
