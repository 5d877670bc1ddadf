package gpu

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
)

// The binding of a job to the CPU backend (Bind, Begin, Work, ForDynamic),
// tested with a stand-in for a pipeline's CPU kernel: the pipelines'
// own kernels are tested under cancellation in their packages.

// rowsKernel is a kernel as the pipelines write them: len(out) rows
// handed out by ForDynamic over the backend's workers, each counted with
// Add and computing spin steps of a linear congruential generator (about
// a nanosecond each) into its row's value.
func rowsKernel(be *CPUBackend, out []uint64, spin int) error {
	wk := be.Begin(int64(len(out)))
	ForDynamic(be.Workers(), len(out), wk, func(_, i int) {
		wk.Add(1)
		x := uint64(i)
		for range spin {
			x = x*6364136223846793005 + 1442695040888963407
		}
		out[i] = x
	})
	return wk.Err()
}

// TestBindCancelsWithinUnits: a call of many seconds stops within a few
// units of the cancel, returning the context's error, after reporting
// progress from inside the call.
func TestBindCancelsWithinUnits(t *testing.T) {
	be := NewCPUWorkers(2)
	out := make([]uint64, 20000) // rows of about a millisecond: ~10 s uncancelled
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var reports [][2]int64
	first := make(chan struct{})
	unbind := be.Bind(ctx, func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, [2]int64{done, total})
		if len(reports) == 1 {
			close(first)
		}
	})
	defer unbind()
	ended := make(chan error, 1)
	go func() { ended <- rowsKernel(be, out, 1<<20) }()
	var err error
	var atCancel int64 // rows the last report before the cancel counted
	select {
	case <-first:
		mu.Lock()
		atCancel = reports[len(reports)-1][0]
		mu.Unlock()
		cancel()
		err = <-ended
	case err = <-ended:
		t.Fatalf("the call ended (%v) before any progress report", err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled call returned %v, want context.Canceled", err)
	}
	// Rows, not seconds: the workers stop taking rows once the cancel
	// is seen, so the rows computed after it are the rows in hand and
	// the few taken before the flag was set, whatever the machine's load.
	computed := int64(0)
	for _, x := range out {
		if x != 0 {
			computed++
		}
	}
	t.Logf("%d rows computed, %d reported before the cancel", computed, atCancel)
	if after := computed - atCancel; after > int64(len(out))/4 {
		t.Errorf("%d rows computed after the cancel (of %d), want the few in hand", after, len(out))
	}
	mu.Lock()
	defer mu.Unlock()
	n := int64(len(out))
	for _, r := range reports {
		if r[1] != n || r[0] < 1 || r[0] > r[1] {
			t.Errorf("report %d of %d rows, want 1..%d of %d", r[0], r[1], n, n)
		}
	}
	if out[len(out)-1] != 0 {
		t.Error("the last row was computed although the call was cancelled long before it")
	}
}

// TestBoundWorkComputesTheSame: binding a job changes nothing in what a
// kernel computes.
func TestBoundWorkComputesTheSame(t *testing.T) {
	be := NewCPUWorkers(2)
	want := make([]uint64, 3000)
	if err := rowsKernel(be, want, 1<<14); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	reports := 0
	unbind := be.Bind(context.Background(), func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		reports++
	})
	defer unbind()
	got := make([]uint64, len(want))
	if err := rowsKernel(be, got, 1<<14); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Error("the bound kernel computed other values than the unbound one")
	}
	t.Logf("%d reports", reports)
}

// TestUnbindAndCancelledWork: a call made under a context that is
// already cancelled does no unit and says so; once unbound, the same
// context stops nothing, and an earlier binding is restored.
func TestUnbindAndCancelledWork(t *testing.T) {
	be := NewCPUWorkers(2)
	outer := be.Bind(context.Background(), nil)
	defer outer()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	unbind := Bind(ctx, be, nil)
	out := make([]uint64, 100)
	if err := rowsKernel(be, out, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("a call under a cancelled job: %v, want context.Canceled", err)
	}
	if slices.ContainsFunc(out, func(v uint64) bool { return v != 0 }) {
		t.Error("a call under a cancelled job computed rows")
	}
	unbind()
	if be.Begin(1) == nil {
		t.Error("unbinding dropped the earlier binding")
	}
	if err := rowsKernel(be, out, 1); err != nil {
		t.Errorf("a call after unbinding: %v", err)
	}
	if slices.Contains(out[1:], 0) {
		t.Error("a call after unbinding left rows uncomputed")
	}
	outer()
	if be.Begin(1) != nil {
		t.Error("Begin returns work with no job bound")
	}
	// A backend that cannot be bound binds nothing, and nil work is
	// inert.
	Bind(ctx, nil, nil)()
	var w *Work
	w.Add(1)
	if w.Stop() || w.Err() != nil {
		t.Error("nil work stops")
	}
}
