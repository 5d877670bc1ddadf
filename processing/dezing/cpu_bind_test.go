package dezing

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
)

// medianCase is a k13 median call on noisy uint16 data (most voxels need
// their median, the slow path): about a second of work per 2M voxels on
// two cores, many more seconds under the race detector.
type medianCase struct {
	be           *gpu.CPUBackend
	ops          cpuOps
	p            MedianParams
	in, out, scr *gpu.Buffer
	src          []uint16
	rowsPerCall  int64
}

func newMedianCase(t testing.TB, workers, planes, rows, cols int) *medianCase {
	t.Helper()
	be := gpu.NewCPUWorkers(workers)
	rng := rand.New(rand.NewPCG(5, 6))
	p := MedianParams{Planes: planes, Rows: rows, Cols: cols, Z0: 6, N: planes - 12, Kernel: 13, Dif: 1}
	src := randomU16(rng, planes*rows*cols, 4000)
	in, _ := be.Alloc("in", p.SrcBytes())
	copy(in.HostBytes(), bytesOf(src))
	out, _ := be.Alloc("out", p.DstBytes())
	scr, _ := be.Alloc("scratch", (cpuOps{be}).MedianScratch(p))
	return &medianCase{be: be, ops: cpuOps{be}, p: p, in: in, out: out, scr: scr, src: src, rowsPerCall: int64(p.N * rows)}
}

func (c *medianCase) run() error { return c.ops.Median(c.out, c.in, c.scr, c.p) }

// TestBindCancelsAMedianWithinRows: a call of many seconds (one block of
// a job) stops within a few rows of the cancel, returning the context's
// error, after reporting progress from inside the call.
func TestBindCancelsAMedianWithinRows(t *testing.T) {
	c := newMedianCase(t, 2, 36, 512, 512) // 24 planes of 512²: ~10 s uncancelled
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var reports [][2]int64
	first := make(chan struct{})
	unbind := c.be.Bind(ctx, func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, [2]int64{done, total})
		if len(reports) == 1 {
			close(first)
		}
	})
	defer unbind()
	ended := make(chan error, 1)
	go func() {
		err := c.run()
		ended <- err
	}()
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
		t.Fatalf("a cancelled median returned %v, want context.Canceled", err)
	}
	// Rows, not seconds: the rows computed after the cancel are those in
	// hand when it was seen, whatever the machine's load. A computed row
	// of medians of noise around 4000 is not all zeros.
	computed := int64(0)
	dst := volume.Uint16s(c.out.HostBytes()) // uint16 in, uint16 out
	for r := int64(0); r < c.rowsPerCall; r++ {
		if slices.ContainsFunc(dst[r*int64(c.p.Cols):(r+1)*int64(c.p.Cols)], func(v uint16) bool { return v != 0 }) {
			computed++
		}
	}
	t.Logf("%d rows computed, %d reported before the cancel", computed, atCancel)
	if after := computed - atCancel; after > c.rowsPerCall/4 {
		t.Errorf("%d rows computed after the cancel (of %d), want the few in hand", after, c.rowsPerCall)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, r := range reports {
		if r[1] != c.rowsPerCall || r[0] < 1 || r[0] > r[1] {
			t.Errorf("report %d of %d rows, want 1..%d of %d", r[0], r[1], c.rowsPerCall, c.rowsPerCall)
		}
	}
}

// TestBoundKernelsComputeTheSame: binding a job changes nothing in what
// the kernels compute, and reports come from inside a long call.
func TestBoundKernelsComputeTheSame(t *testing.T) {
	c := newMedianCase(t, 2, 14, 160, 200)
	if err := c.run(); err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(c.out.HostBytes())
	clear(c.out.HostBytes())
	var mu sync.Mutex
	var last int64
	reports := 0
	unbind := c.be.Bind(context.Background(), func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		reports++
		last = max(last, done)
	})
	if err := c.run(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.out.HostBytes(), want) {
		t.Error("the bound median differs from the unbound one")
	}
	t.Logf("%d reports, the last at %d of %d rows", reports, last, c.rowsPerCall)

	// The other kernels, bound, against themselves unbound.
	rp := ReduceParams{Frames: 14, Pixels: 160 * 200, Median: true}
	rin, _ := c.be.Alloc("reduce in", int64(rp.Frames*rp.Pixels)*2)
	copy(rin.HostBytes(), bytesOf(c.src[:rp.Frames*rp.Pixels]))
	rout, _ := c.be.Alloc("reduce out", int64(rp.Pixels)*4)
	rscr, _ := c.be.Alloc("reduce scratch", c.ops.ReduceScratch(rp))
	if err := c.ops.Reduce(rout, rin, rscr, rp); err != nil {
		t.Fatal(err)
	}
	bound := slices.Clone(rout.HostBytes())
	unbind()
	if err := c.ops.Reduce(rout, rin, rscr, rp); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rout.HostBytes(), bound) {
		t.Error("the bound reduction differs from the unbound one")
	}
}

// TestUnbindAndCancelledKernels: a kernel called under a context that is
// already cancelled does no work and says so; once unbound, the same
// context stops nothing.
func TestUnbindAndCancelledKernels(t *testing.T) {
	be := gpu.NewCPUWorkers(2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	unbind := gpu.Bind(ctx, be, nil)
	p := FlatFieldParams{Frames: 3, Pixels: 4, Low: -1, High: 1}
	in, _ := be.Alloc("in", 3*4*2)
	out, _ := be.Alloc("out", 3*4*4)
	d, _ := be.Alloc("dark", 16)
	f, _ := be.Alloc("flat", 16)
	if _, err := (cpuOps{be}).FlatField(out, in, d, f, nil, p); !errors.Is(err, context.Canceled) {
		t.Errorf("flat-field under a cancelled job: %v, want context.Canceled", err)
	}
	mp := MedianParams{Planes: 3, Rows: 4, Cols: 5, N: 3, Kernel: 3, Dif: 1}
	mi, _ := be.Alloc("median in", mp.SrcBytes())
	mout, _ := be.Alloc("median out", mp.DstBytes())
	mscr, _ := be.Alloc("median scratch", (cpuOps{be}).MedianScratch(mp))
	if err := (cpuOps{be}).Median(mout, mi, mscr, mp); !errors.Is(err, context.Canceled) {
		t.Errorf("median under a cancelled job: %v, want context.Canceled", err)
	}
	unbind()
	if _, err := (cpuOps{be}).FlatField(out, in, d, f, nil, p); err != nil {
		t.Errorf("flat-field after unbinding: %v", err)
	}
	if err := (cpuOps{be}).Median(mout, mi, mscr, mp); err != nil {
		t.Errorf("median after unbinding: %v", err)
	}
}

// BenchmarkMedianBound measures what binding a job costs a median call
// (the rows' stop checks and counting, the reports): kernel 3 on smooth
// data has the shortest rows, so the most checks per second.
func BenchmarkMedianBound(b *testing.B) {
	for _, kernel := range []int{3, 13} {
		for _, bound := range []bool{false, true} {
			name := fmt.Sprintf("k%d/unbound", kernel)
			if bound {
				name = fmt.Sprintf("k%d/bound", kernel)
			}
			b.Run(name, func(b *testing.B) {
				c := newMedianCase(b, 2, 18, 512, 512) // 6 output planes
				c.p.Kernel, c.p.Dif = kernel, 30000
				c.scr, _ = c.be.Alloc("scratch", c.ops.MedianScratch(c.p))
				if bound {
					defer c.be.Bind(context.Background(), func(int64, int64) {})()
				}
				for b.Loop() {
					if err := c.run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
