package dezing

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/volume"
)

// TestOneBigBlockMovesAndCancels: a run planned as one block of many
// seconds (kernel 13 over all 40 projections at once, on noise that
// leaves every voxel to its median) reports progress from inside the
// block, and a cancel ends the job a few rows later, as cancelled, short
// of 100 %, with nothing written.
func TestOneBigBlockMovesAndCancels(t *testing.T) {
	in := testScan(7, volume.Uint16, 40, 0, 0, 384, 384)
	cfg := DefaultConfig()
	cfg.Kernel, cfg.Dif, cfg.Block = 13, 1, 40
	be := gpu.NewCPU()
	if pl, err := Plan(be, in.Shapes(), cfg); err != nil || pl.Block() != 40 {
		t.Fatalf("plan %v (%v), want one block of 40", pl, err)
	}
	var mu sync.Mutex
	var moves []time.Time
	var ended, cancelled time.Time
	moved := make(chan struct{}, 1)
	sink := func(e job.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case e.Kind.Terminal():
			ended = time.Now()
		case e.Kind == job.Progressed && e.Stage == StageProjections && e.Partway > 0:
			moves = append(moves, time.Now())
			select {
			case moved <- struct{}{}:
			default:
			}
		}
	}
	out := newMemOutput(OutInfo(in.Shapes(), cfg))
	j := job.Start(context.Background(), "dezing", func(ctx context.Context, p *job.Progress) error {
		_, err := Run(ctx, p, be, cfg, in, out)
		return err
	}, sink)
	// Three reports from inside the block, then cancel.
	for range 3 {
		select {
		case <-moved:
		case <-j.Done():
			t.Fatalf("the job ended (%v) before its block reported three times", j.Wait())
		}
	}
	e := j.Progress()
	mu.Lock()
	cancelled = time.Now()
	mu.Unlock()
	if e.Done != 0 || e.Partway <= 0 || e.Fraction() >= 1 {
		t.Errorf("inside the block: done %d, partway %v: want 0 done and some in progress", e.Done, e.Partway)
	}
	t.Logf("the block would take %.1f s at its rate so far", float64(e.Total)/e.Rate)
	at := e.Units() // units of the block done when the cancel comes
	j.Cancel()
	<-j.Done()
	mu.Lock()
	latency := ended.Sub(cancelled)
	var gap time.Duration
	for i := 1; i < len(moves); i++ {
		gap = max(gap, moves[i].Sub(moves[i-1]))
	}
	// Figures only: speeds and latencies belong to benchmarks (the
	// machine may be busy); the checks below count work, not seconds.
	t.Logf("cancel to end event: %v; %d progress reports inside the block, at most %v apart", latency, len(moves), gap)
	mu.Unlock()
	e = j.Progress()
	if e.Kind != job.Cancelled || e.Fraction() >= 1 {
		t.Errorf("final event %v at %.0f%%, want cancelled short of 100%%", e.Kind, 100*e.Fraction())
	}
	// The kernels look at the cancel between rows: what is done after
	// it is the rows in hand, a sliver of the block, however slowly the
	// machine runs.
	if after := e.Units() - at; after > float64(e.Total)/4 {
		t.Errorf("%.0f of the block's %d units were done after the cancel, want the few in hand", after, e.Total)
	}
	if out.next != 0 {
		t.Errorf("a cancelled single-block run wrote %d projections", out.next)
	}
	if be.Stats().Current != 0 {
		t.Errorf("%d bytes left allocated after cancelling", be.Stats().Current)
	}
}

// BenchmarkCancelOneBigBlock measures what TestOneBigBlockMovesAndCancels
// only counts: the time from a cancel, given inside a block of many
// seconds, to the job's end event (ms/cancel; docs/ARCHITECTURE.md's
// "How data flows" wants a cancel to land within a second). Run it on a quiet machine:
//
//	go test -run '^$' -bench CancelOneBigBlock ./processing/dezing/
func BenchmarkCancelOneBigBlock(b *testing.B) {
	in := testScan(7, volume.Uint16, 40, 0, 0, 384, 384)
	cfg := DefaultConfig()
	cfg.Kernel, cfg.Dif, cfg.Block = 13, 1, 40
	be := gpu.NewCPU()
	var total time.Duration
	for b.Loop() {
		moved := make(chan struct{}, 1)
		sink := func(e job.Event) {
			if e.Kind == job.Progressed && e.Stage == StageProjections && e.Partway > 0 {
				select {
				case moved <- struct{}{}:
				default:
				}
			}
		}
		out := newMemOutput(OutInfo(in.Shapes(), cfg))
		j := job.Start(context.Background(), "dezing", func(ctx context.Context, p *job.Progress) error {
			_, err := Run(ctx, p, be, cfg, in, out)
			return err
		}, sink)
		<-moved
		t0 := time.Now()
		j.Cancel()
		<-j.Done()
		total += time.Since(t0)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/cancel")
}
