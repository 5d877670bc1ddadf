package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/voxlab/voxlab/processing/outfile"
)

var errBoom = errors.New("boom")

func wrapCanceled() error { return fmt.Errorf("block 3: %w", context.Canceled) }

// checkTerminal asserts exactly one terminal event, the last one, of kind k.
func checkTerminal(t *testing.T, events []Event, k Kind) Event {
	t.Helper()
	n := 0
	for _, e := range events {
		if e.Kind.Terminal() {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d terminal events, want 1", n)
	}
	last := events[len(events)-1]
	if last.Kind != k {
		t.Fatalf("last event is %v, want %v", last.Kind, k)
	}
	return last
}

func TestJobFinishes(t *testing.T) {
	var rec recorder
	j := Start(context.Background(), "sum", func(ctx context.Context, p *Progress) error {
		p.Stage("blocks", 4, "blocks")
		for range 3 { // the last block is not reported: Finished completes it
			p.Add(1)
		}
		p.Memory(1<<20, 0)
		return nil
	}, rec.sink)
	if err := j.Wait(); err != nil {
		t.Fatal(err)
	}
	last := checkTerminal(t, rec.all(), Finished)
	if last.Done != 4 || last.Total != 4 || last.Err != nil || last.PeakDevice != 1<<20 {
		t.Errorf("final event %+v", last)
	}
	if got := j.Progress(); got != last {
		t.Errorf("Progress after the end = %+v, want the final event %+v", got, last)
	}
}

func TestJobErrorReachesCallerOnce(t *testing.T) {
	var rec recorder
	j := Start(context.Background(), "dezing", func(ctx context.Context, p *Progress) error {
		p.Stage("projections", 10, "slices")
		p.Add(2)
		return fmt.Errorf("read slab 2-4 of scan.nxs: %w", errBoom)
	}, rec.sink)
	err := j.Wait()
	if !errors.Is(err, errBoom) || err.Error() != "read slab 2-4 of scan.nxs: boom" {
		t.Fatalf("Wait = %v, want the pipeline's error unchanged", err)
	}
	if again := j.Wait(); again != err {
		t.Errorf("second Wait = %v, want the same error", again)
	}
	last := checkTerminal(t, rec.all(), Failed)
	if last.Err != err {
		t.Errorf("Failed event carries %v, want %v", last.Err, err)
	}
	if last.Done != 2 {
		t.Errorf("failed job reports %d done, want 2", last.Done)
	}
}

func TestJobPanicFails(t *testing.T) {
	var rec recorder
	err := Run(context.Background(), "detect", func(ctx context.Context, p *Progress) error {
		var m map[string]int
		m["x"] = 1 // panics: assignment to entry in nil map
		return nil
	}, rec.sink)
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Run = %v (%T), want a *PanicError", err, err)
	}
	if pe.Job != "detect" || len(pe.Stack) == 0 {
		t.Errorf("PanicError %+v lacks the job or stack", pe)
	}
	checkTerminal(t, rec.all(), Failed)
}

// writeBlocks is a pipeline writing n blocks through outfile, stopping
// between blocks when cancelled. After each block it calls afterBlock.
func writeBlocks(target string, n int, afterBlock func(i int)) Func {
	return func(ctx context.Context, p *Progress) error {
		f, err := outfile.Create(target)
		if err != nil {
			return err
		}
		defer f.Abort()
		p.Stage("write", int64(n), "blocks")
		for i := range n {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("write block %d of %s: %w", i, target, err)
			}
			if _, err := fmt.Fprintf(f, "block %d\n", i); err != nil {
				return err
			}
			p.Add(1)
			p.Partial(i)
			afterBlock(i)
		}
		return f.Commit()
	}
}

func TestCancelLeavesNoOutput(t *testing.T) {
	for _, cancelAt := range []int{-1, 0, 5} { // -1: not cancelled
		t.Run(fmt.Sprint("cancel at ", cancelAt), func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "out.txt")
			var rec recorder
			var j *Job
			started := make(chan struct{})
			j = Start(context.Background(), "w", writeBlocks(target, 10, func(i int) {
				if i == cancelAt {
					<-started
					j.Cancel()
				}
			}), rec.sink)
			close(started)
			err := j.Wait()
			entries, _ := os.ReadDir(dir)
			if cancelAt < 0 {
				if err != nil {
					t.Fatal(err)
				}
				checkTerminal(t, rec.all(), Finished)
				if len(entries) != 1 || entries[0].Name() != "out.txt" {
					t.Fatalf("after success the folder holds %v, want out.txt", entries)
				}
				return
			}
			if err != context.Canceled {
				t.Fatalf("Wait = %v, want context.Canceled", err)
			}
			checkTerminal(t, rec.all(), Cancelled)
			if len(entries) != 0 {
				t.Errorf("cancelled job left %v", entries)
			}
			// Stopped within one block: nothing after the block that
			// saw the cancel.
			if parts := rec.kinds(Partial); len(parts) != cancelAt+1 {
				t.Errorf("%d blocks written after a cancel at block %d", len(parts), cancelAt)
			}
		})
	}
}

func TestCancelByParentContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	j := Start(ctx, "w", func(ctx context.Context, p *Progress) error {
		<-ctx.Done()
		// An error caused by the stop, not wrapping ctx.Err(): still a
		// cancellation.
		return io.ErrClosedPipe
	})
	cancel()
	if err := j.Wait(); err != context.Canceled {
		t.Fatalf("Wait = %v, want context.Canceled", err)
	}
	if k := j.Progress().Kind; k != Cancelled {
		t.Errorf("final kind %v", k)
	}
}

func TestDeadlineIsFailure(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	err := Run(ctx, "w", func(ctx context.Context, p *Progress) error {
		<-ctx.Done()
		return ctx.Err()
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run = %v, want a deadline failure", err)
	}
}

func TestPartialsAndWarnings(t *testing.T) {
	var rec recorder
	err := Run(context.Background(), "detect", func(ctx context.Context, p *Progress) error {
		p.Stage("planes", 3, "planes")
		for i := range 3 {
			p.Add(1)
			p.Partial([]int{i, i * i})
		}
		p.Warn("pinning failed: using pageable memory")
		return nil
	}, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	parts := rec.kinds(Partial)
	if len(parts) != 3 {
		t.Fatalf("%d partial results, want 3", len(parts))
	}
	for i, e := range parts {
		v := e.Partial.([]int)
		if v[0] != i || v[1] != i*i || e.Done != int64(i+1) {
			t.Errorf("partial %d = %v at done %d", i, v, e.Done)
		}
	}
	w := rec.kinds(Warning)
	if len(w) != 1 || w[0].Message != "pinning failed: using pageable memory" {
		t.Errorf("warnings %+v", w)
	}
	checkTerminal(t, rec.all(), Finished)
}
