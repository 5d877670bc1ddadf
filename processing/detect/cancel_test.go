package detect

import (
	"context"
	"errors"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
)

// TestCancelInsideABatch: a run planned as one batch of every plane stops
// at the next plane once cancelled, not at the end of the batch (and its
// ball filter), and frees what it allocated.
func TestCancelInsideABatch(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BatchSize = 20
	v, _ := scene(cfg, 20)
	ctx, cancel := context.WithCancel(context.Background())
	var done int64
	prog := job.NewProgress("detect", func(e job.Event) {
		if e.Kind == job.Progressed {
			done = e.Done
			if e.Done == 3 {
				cancel()
			}
		}
	})
	be := gpu.NewCPU()
	res, err := runDetect(ctx, prog, be, cfg, v, plan.Budget{}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if res != nil {
		t.Error("a cancelled run returned a result")
	}
	if done != 3 {
		t.Errorf("the cancelled batch filtered %d planes, want to stop after the third", done)
	}
	if be.Stats().Current != 0 {
		t.Errorf("%d bytes still allocated after cancelling", be.Stats().Current)
	}
}
