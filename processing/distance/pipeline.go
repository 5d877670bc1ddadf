package distance

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// Config says what a run computes and how.
type Config struct {
	Metrics []Metric
	// Mask selects the voxels compared; nil keeps them all.
	Mask      *Mask
	Normalize Normalization
	// VoxelSize in Å; the res metric needs it.
	VoxelSize float64
	// LowMemory streams the ground truth from its file chunk by chunk
	// instead of holding it all.
	LowMemory bool
	// Chunk is the number of ground-truth maps per chunk (low memory) or
	// per tile (in memory); it must be positive unless AutoChunk lets the
	// planner choose the largest that fits the budget.
	Chunk     int
	AutoChunk bool
	Budget    plan.Budget
	// Pin page-locks the host staging buffers (CUDA only); PinCap bounds
	// them (0: the backend's cap).
	Pin    bool
	PinCap int64
	// Workers is the number of host goroutines that prepare maps (0: all
	// cores).
	Workers int
	// Tracker, when set, counts the host arrays the run allocates (read
	// buffers, matrices, scratch) under the names of the plan's arrays;
	// with gpu.CPUBackend.CountHost it sees the whole run's RAM.
	Tracker *plan.Tracker
	// Rows, when Rows[1] > 0, restricts the run to ground-truth maps
	// [Rows[0], Rows[1]): a task of a run split over a cluster. Matrices
	// then have Rows[1]−Rows[0] rows.
	Rows [2]int
}

// Chunk is the partial result a run hands to job.Progress.Partial after
// each chunk or tile: rows [Row0, Row0+Rows) of one metric's matrix
// (Name), Cols (submitted maps) values each, row-major, of a matrix of
// TotalRows rows (the ground-truth maps). Values is final: the pipeline
// never changes it afterwards.
type Chunk = pipeline.MatrixChunk

// Result is a finished run.
type Result struct {
	Metrics []Metric
	// Matrices[k] is Metrics[k]'s NGT x NSub matrix, row-major: row i is
	// ground-truth map Row0+i, column j submitted map j.
	Matrices   [][]float64
	NGT, NSub  int
	Row0       int
	LowMemory  bool
	Box        int
	Voxels     int
	Plan       *plan.Plan
	Chunk      int
	PeakDevice int64
	// Timings: loading (reading and preparing) the resident sets, and the
	// distance stage (including, in low-memory mode, streaming the
	// ground truth).
	Load, Compute time.Duration
}

func (c Config) workers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// hostWorkers is the number of goroutines preparing maps: the CPU
// backend's workers, else all cores, unless Workers says.
func (c Config) hostWorkers(be gpu.Backend) int {
	if w, ok := be.(interface{ Workers() int }); ok && c.Workers == 0 {
		return w.Workers()
	}
	return c.workers()
}

// PlanRun returns the plan Run would make for gt and sub on be, reading
// nothing but the sets' sizes: what `voxlab plan distance` prints.
func PlanRun(cfg Config, gt, sub Maps, be gpu.Backend) (*plan.Plan, error) {
	if gt.Box() != sub.Box() {
		return nil, fmt.Errorf("the ground-truth maps are %d³ but the submitted maps are %d³: both sets must have the same box", gt.Box(), sub.Box())
	}
	return MakePlan(cfg, ShapeOf(gt, sub), be.Name(), cfg.hostWorkers(be))
}

// check validates the configuration against the inputs' shape.
func (c Config) check(sh Shape) error {
	switch {
	case sh.NGT <= 0:
		return errors.New("the ground-truth set is empty: nothing to compare")
	case sh.NSub <= 0:
		return errors.New("the submitted set is empty: nothing to compare")
	case len(c.Metrics) == 0:
		return errors.New("no metrics to compute")
	case !c.AutoChunk && c.Chunk <= 0:
		return fmt.Errorf("chunk size %d: want a positive number of maps (or auto)", c.Chunk)
	case c.Mask != nil && c.Mask.Box != sh.Box:
		return fmt.Errorf("the mask is a %d³ box but the maps are %d³", c.Mask.Box, sh.Box)
	case c.Rows[1] > 0 && (c.Rows[0] < 0 || c.Rows[0] >= c.Rows[1] || c.Rows[1] > sh.NGT):
		return fmt.Errorf("ground-truth rows [%d,%d) outside the %d maps", c.Rows[0], c.Rows[1], sh.NGT)
	}
	if err := checkBox(sh.Box); err != nil {
		return err
	}
	seen := map[Metric]bool{}
	for _, m := range c.Metrics {
		if m < 0 || m >= numMetrics || seen[m] {
			return fmt.Errorf("metric %v unknown or repeated", m)
		}
		seen[m] = true
		if m == Res && !(c.VoxelSize > 0) {
			return errors.New("the res metric needs the voxel size in Å: give --voxel-size, or maps or a mask with one in their header")
		}
	}
	return nil
}

// ShapeOf returns the shape of a run over gt and sub, for MakePlan.
func ShapeOf(gt, sub Maps) Shape {
	sh := Shape{NGT: gt.Len(), NSub: sub.Len(), Box: gt.Box()}
	var srcs []volume.Source
	for _, m := range []Maps{gt, sub} {
		if c, ok := m.(interface{ ConvertBytes() int64 }); ok {
			sh.ConvertBytes = max(sh.ConvertBytes, c.ConvertBytes())
		}
		if r, ok := m.(interface{ Reader() volume.Source }); ok {
			srcs = append(srcs, r.Reader())
		}
	}
	sh.Readers = volume.ReadersOf(srcs...)
	return sh
}

// run is the state of one Run.
type run struct {
	ctx  context.Context
	p    *job.Progress
	be   gpu.Backend
	ops  Ops
	cfg  Config
	tr   *plan.Tracker
	lay  Layout
	prep *preparer
	// direct says maps are prepared straight into the device buffers,
	// which are host memory (the CPU backend); else through staging.
	direct bool
	// batch is the number of maps read and prepared at once; tile the
	// number of ground-truth rows computed at once (equal in low-memory
	// mode: the chunk).
	batch int
	tile  int
	box   int
	nsub  int
	// ngt is the whole ground-truth set's size (a task computes some
	// of its rows).
	ngt   int
	stage *gpu.Staging
	// raw are the two read buffers of batch maps each (one being read,
	// one being prepared); conv the reader's conversion scratch.
	raw    [2][]float32
	rawB   []byte
	conv   []byte
	bufs   []*gpu.Buffer
	subs   *gpu.Buffer
	segs   *gpu.Buffer
	gram   *gpu.Buffer
	out    *gpu.Buffer
	res    *Result
	shells *Shells
	// call is the rows of the product in progress, for its progress
	// reports (kernelProgress); set before the call, read by it.
	call float64
}

// kernelProgress turns the CPU backend's report of a product in progress
// (done of total multiply-add columns) into rows in progress.
func (r *run) kernelProgress(done, total int64) {
	if r.call > 0 && total > 0 {
		r.p.Partway(r.call * float64(done) / float64(total))
	}
}

// Run computes the distance matrices between the ground-truth maps gt
// (rows) and the submitted maps sub (columns) on be. Both sets are masked
// and normalised alike (one code path, the preparer's) whatever the pipeline;
// in memory and low memory give the same matrices within rounding.
// Progress: the stages "submitted maps", "ground-truth maps" (in memory)
// and "distances" (rows), bytes moved, the device peak, and a Chunk per
// metric as each chunk is filled. On cancellation it returns ctx's error.
func Run(ctx context.Context, p *job.Progress, be gpu.Backend, cfg Config, gt, sub Maps) (*Result, error) {
	if gt == nil || sub == nil {
		return nil, errors.New("distance: a set of maps is missing")
	}
	if gt.Box() != sub.Box() {
		return nil, fmt.Errorf("the ground-truth maps are %d³ but the submitted maps are %d³: both sets must have the same box", gt.Box(), sub.Box())
	}
	ops, err := opsFor(be)
	if err != nil {
		return nil, err
	}
	sh := ShapeOf(gt, sub)
	workers := cfg.hostWorkers(be)
	pl, err := MakePlan(cfg, sh, be.Name(), workers)
	if err != nil {
		return nil, err
	}
	_, lay, _ := Phases(cfg, sh, be.Name(), workers)
	defer sh.Readers.Apply(pl.Choice, cfg.Tracker)()
	for _, w := range pl.Warnings {
		p.Warn(w)
	}
	mask := cfg.Mask
	if mask == nil {
		if mask, err = FullMask(sh.Box); err != nil {
			return nil, err
		}
	}
	r0, r1 := cfg.plannedRows(sh.NGT)
	r := &run{ctx: ctx, p: p, be: be, ops: ops, cfg: cfg, tr: cfg.Tracker, lay: lay, direct: hostBuffers(be.Name()),
		tile: pl.Block(), batch: pl.Phases[0].Block, box: sh.Box, nsub: sh.NSub, ngt: sh.NGT}
	if lay.Spec {
		r.shells = NewShells(sh.Box)
	}
	// The mask, its row runs and the shells are allocated elsewhere; they
	// are held for the whole run.
	tables := tableBytes(mask.Len(), sh.Box, r.shells)
	r.tr.Add("mask and shell tables", tables)
	defer r.tr.Add("mask and shell tables", -tables)
	r.prep = newPreparer(lay, mask, r.shells, cfg.Normalize, workers, r.tr)
	defer r.prep.release(r.tr)
	// A tile's products are one long call on the CPU: it stops between
	// panels of rows once ctx is cancelled, and reports how far it got.
	defer gpu.Bind(ctx, be, r.kernelProgress)()
	r.res = &Result{Metrics: cfg.Metrics, NGT: r1 - r0, NSub: sh.NSub, Row0: r0, LowMemory: cfg.LowMemory, Box: sh.Box, Voxels: mask.Len(), Plan: pl, Chunk: r.tile}
	defer r.free()
	if err := r.setup(sh.ConvertBytes); err != nil {
		return nil, err
	}
	t0 := time.Now()
	p.Stage("submitted maps", int64(sh.NSub), "maps")
	if err := r.loadAll(sub, "submitted", 0, sh.NSub, r.subs); err != nil {
		return nil, err
	}
	if cfg.LowMemory {
		r.res.Load = time.Since(t0)
		t1 := time.Now()
		if err := r.computeBuffers(); err != nil {
			return nil, err
		}
		p.Stage("distances", int64(r1-r0), "rows")
		if err := r.stream(gt, r0, r1); err != nil {
			return nil, err
		}
		r.res.Compute = time.Since(t1)
	} else if err := r.inMemory(gt, r0, r1, &t0); err != nil {
		return nil, err
	}
	r.res.PeakDevice = be.Stats().Peak
	p.Memory(r.res.PeakDevice, PeakRSS())
	return r.res, nil
}

// inMemory loads ground-truth rows [r0, r1) whole, then computes them
// tile by tile.
func (r *run) inMemory(gt Maps, r0, r1 int, t0 *time.Time) error {
	all, err := r.alloc("ground-truth maps", int64(r1-r0)*r.lay.RowBytes())
	if err != nil {
		return err
	}
	r.p.Stage("ground-truth maps", int64(r1-r0), "maps")
	if err := r.loadAll(gt, "ground-truth", r0, r1, all); err != nil {
		return err
	}
	// The load phase ends: its host buffers go before the tiles'
	// device buffers come (the plan's phases).
	r.freeLoading()
	r.res.Load = time.Since(*t0)
	t1 := time.Now()
	if err := r.computeBuffers(); err != nil {
		return err
	}
	r.p.Stage("distances", int64(r1-r0), "rows")
	for i := 0; i < r1-r0; i += r.tile {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		if err := r.compute(all, i, i, min(r.tile, r1-r0-i)); err != nil {
			return err
		}
	}
	r.res.Compute = time.Since(t1)
	return nil
}

// setup allocates what the whole run keeps: the submitted maps and segment
// bounds on the device, the read buffers (and, unless maps are prepared
// in place, the staging pool) for batches of r.batch maps, and the result
// matrices.
func (r *run) setup(convert int64) error {
	lay, n := r.lay, int64(r.nsub)
	var err error
	if r.subs, err = r.alloc("submitted maps", n*lay.RowBytes()); err != nil {
		return err
	}
	if r.segs, err = r.alloc("segment bounds", int64(len(lay.Bounds))*8); err != nil {
		return err
	}
	if err := r.be.Upload(r.segs, 0, int64Bytes(lay.Bounds)); err != nil {
		return err
	}
	if !r.direct {
		r.stage, err = gpu.NewStaging(r.be, 2, int64(r.batch)*lay.RowBytes(), r.cfg.Pin, r.cfg.PinCap)
		if err != nil {
			return err
		}
		if w := r.stage.Warning(); w != "" {
			r.p.Warn(w)
		}
	}
	v := int64(r.box) * int64(r.box) * int64(r.box)
	r.rawB = r.tr.Bytes("read buffers", 2*int64(r.batch)*v*4)
	hugePages(r.rawB)
	all := volume.Float32s(r.rawB)
	r.raw = [2][]float32{all[:len(all)/2], all[len(all)/2:]}
	r.conv = r.tr.Bytes("read buffers", int64(r.batch)*convert)
	r.res.Matrices = make([][]float64, len(r.cfg.Metrics))
	for k := range r.res.Matrices {
		r.res.Matrices[k] = volume.Float64s(r.tr.Bytes("distance matrices", int64(r.res.NGT)*n*8))
	}
	return nil
}

// freeLoading lets go of the read buffers and the staging pool.
func (r *run) freeLoading() {
	r.tr.Free("read buffers", r.rawB)
	r.tr.Free("read buffers", r.conv)
	r.raw, r.rawB, r.conv = [2][]float32{}, nil, nil
	if r.stage != nil {
		r.stage.Close()
		r.stage = nil
	}
}

// computeBuffers allocates the products and metric values of a tile.
func (r *run) computeBuffers() error {
	n := int64(r.nsub)
	var err error
	if r.gram, err = r.alloc("products", int64(r.lay.Segs())*int64(r.tile)*n*8); err != nil {
		return err
	}
	r.out, err = r.alloc("metric values", int64(len(r.cfg.Metrics))*int64(r.tile)*n*8)
	return err
}

func (r *run) alloc(label string, n int64) (*gpu.Buffer, error) {
	b, err := r.be.Alloc(label, n)
	if err != nil {
		return nil, fmt.Errorf("distance: %w", err)
	}
	r.bufs = append(r.bufs, b)
	if r.direct {
		hugePages(b.HostBytes())
	}
	return b, nil
}

func (r *run) free() {
	for _, b := range r.bufs {
		r.be.Free(b)
	}
	r.freeLoading()
}

// rows returns buffer b's rows [i, i+n) to prepare into: b's own memory,
// so only where r.direct.
func (r *run) rows(b *gpu.Buffer, i, n int) []float64 {
	l := r.lay.RowLen
	return volume.Float64s(b.HostBytes())[i*l : (i+n)*l]
}

// read reads maps [i0, i1) of set into raw, through the run's
// conversion scratch when the set takes one.
func (r *run) read(set Maps, i0, i1 int, raw []float32) error {
	if s, ok := set.(interface {
		ReadMapsScratch(i0, i1 int, dst []float32, scratch []byte) error
	}); ok {
		return s.ReadMapsScratch(i0, i1, raw, r.conv)
	}
	return set.ReadMaps(i0, i1, raw)
}

// batches returns the number of batches of [r0, r1).
func (r *run) batches(r0, r1 int) int { return (r1 - r0 + r.batch - 1) / r.batch }

// fill reads maps [r0, r1) of set batch by batch, one read per batch in
// a reader goroutine that reads batch i+1 into the other read buffer
// while batch i is prepared, and prepares batch i (n maps) into the rows
// dst(i, n) returns; then done(i, n) takes them. It stops at the first
// error (dst's, done's, a read's or ctx's) and returns it, once the
// reader has stopped.
func (r *run) fill(ctx context.Context, set Maps, name string, r0, r1 int, dst func(i, n int) ([]float64, error), done func(i, n int) error) error {
	type batch struct {
		i   int
		raw []float32
		err error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	v := r.box * r.box * r.box
	free := make(chan []float32, 2)
	full := make(chan batch, 2) // two buffers: a send never blocks
	free <- r.raw[0]
	free <- r.raw[1]
	go func() {
		defer close(full)
		for i := range r.batches(r0, r1) {
			var raw []float32
			select {
			case raw = <-free:
			case <-ctx.Done():
				return
			}
			i0 := r0 + i*r.batch
			i1 := min(i0+r.batch, r1)
			raw = raw[:(i1-i0)*v]
			err := r.read(set, i0, i1, raw)
			if err != nil {
				err = fmt.Errorf("read %s maps %d-%d: %w", name, i0, i1, err)
			}
			full <- batch{i, raw, err}
			if err != nil {
				return
			}
		}
	}()
	var err error
	for b := range full {
		if err == nil {
			err = firstErr(b.err, ctx.Err())
		}
		if err == nil {
			err = r.prepareBatch(b.i, b.raw, r0, name, dst, done)
		}
		free <- b.raw
		if err != nil {
			cancel() // stop the reader; keep draining
		}
	}
	return err
}

func (r *run) prepareBatch(i int, raw []float32, r0 int, name string, dst func(i, n int) ([]float64, error), done func(i, n int) error) error {
	n := len(raw) / (r.box * r.box * r.box)
	rows, err := dst(i, n)
	if err != nil {
		return err
	}
	if err := r.prep.prepare(rows[:n*r.lay.RowLen], raw, n, r0+i*r.batch, name); err != nil {
		return err
	}
	return done(i, n)
}

// loadAll reads and prepares maps [r0, r1) of set into dst, one row per
// map: in place where the device buffers are host memory, else through
// the staging pool, uploading each batch.
func (r *run) loadAll(set Maps, name string, r0, r1 int, dst *gpu.Buffer) error {
	if r.direct {
		return r.fill(r.ctx, set, name, r0, r1, func(i, n int) ([]float64, error) {
			return r.rows(dst, i*r.batch, n), nil
		}, func(_, n int) error {
			r.p.Add(int64(n))
			return nil
		})
	}
	var h *gpu.HostBuffer
	return r.fill(r.ctx, set, name, r0, r1, func(_, n int) ([]float64, error) {
		var err error
		h, err = r.stage.Get(r.ctx)
		if err != nil {
			return nil, err
		}
		return volume.Float64s(h.Bytes), nil
	}, func(i, n int) error {
		err := r.upload(dst, int64(i)*int64(r.batch)*r.lay.RowBytes(), h, int64(n)*r.lay.RowBytes())
		r.stage.Put(h)
		r.p.Add(int64(n))
		return err
	})
}

// upload copies the first n bytes of h to dst at off: asynchronously
// when they fill h, else (a last, short batch) with a plain Upload. It
// returns once h may be reused.
func (r *run) upload(dst *gpu.Buffer, off int64, h *gpu.HostBuffer, n int64) error {
	r.p.Transfer(n, 0)
	if n < int64(len(h.Bytes)) {
		return r.be.Upload(dst, off, h.Bytes[:n])
	}
	wait, err := r.be.UploadAsync(dst, off, h)
	if err != nil {
		return err
	}
	return wait()
}

// prepared is a chunk of ground-truth rows ready to compute: in a device
// buffer (direct) or a staging buffer to upload.
type prepared struct {
	i, n int
	buf  *gpu.Buffer
	host *gpu.HostBuffer
}

// stream computes ground-truth rows [r0, r1) chunk by chunk: a goroutine
// reads and prepares chunk i+1 while chunk i's products are computed.
// Where the device buffers are host memory two chunk buffers take turns;
// else one device chunk is fed from the two staging buffers.
func (r *run) stream(gt Maps, r0, r1 int) error {
	n := 1
	if r.direct {
		n = 2
	}
	chunks := make(chan *gpu.Buffer, n)
	for range n {
		b, err := r.alloc("ground-truth chunks", int64(r.tile)*r.lay.RowBytes())
		if err != nil {
			return err
		}
		chunks <- b
	}
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	ready := make(chan prepared)
	var fillErr error
	go func() {
		defer close(ready)
		var c prepared
		fillErr = r.fill(ctx, gt, "ground-truth", r0, r1, func(i, n int) ([]float64, error) {
			c = prepared{i: i, n: n}
			if !r.direct {
				var err error
				if c.host, err = r.stage.Get(ctx); err != nil {
					return nil, err
				}
				return volume.Float64s(c.host.Bytes), nil
			}
			select {
			case c.buf = <-chunks:
				return r.rows(c.buf, 0, n), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}, func(int, int) error {
			select {
			case ready <- c:
				return nil
			case <-ctx.Done():
				r.release(c, chunks)
				return ctx.Err()
			}
		})
	}()
	var err error
	for c := range ready {
		if err == nil {
			err = r.computeChunk(c, chunks)
		} else {
			r.release(c, chunks)
		}
		if err != nil {
			cancel() // stop the loader; keep draining
		}
	}
	return firstErr(err, fillErr)
}

// computeChunk computes prepared chunk c (uploading it first when it is
// in staging) and gives its buffers back.
func (r *run) computeChunk(c prepared, chunks chan *gpu.Buffer) error {
	defer r.release(c, chunks)
	a := c.buf
	if a == nil {
		a = <-chunks // the one device chunk: only this goroutine takes it
		defer func() { chunks <- a }()
		if err := r.upload(a, 0, c.host, int64(c.n)*r.lay.RowBytes()); err != nil {
			return err
		}
	}
	return r.compute(a, 0, c.i*r.tile, c.n)
}

// release gives chunk c's buffer back to its pool.
func (r *run) release(c prepared, chunks chan *gpu.Buffer) {
	if c.buf != nil {
		chunks <- c.buf
	}
	if c.host != nil {
		r.stage.Put(c.host)
	}
}

// compute fills matrix rows [row0, row0+m) from rows [a0, a0+m) of buffer
// a: the products of every segment, then each metric, then one download
// per metric straight into the result.
func (r *run) compute(a *gpu.Buffer, a0, row0, m int) error {
	lay, n := r.lay, r.nsub
	g := GramShape{M: m, N: n, ARow0: a0, RowLen: lay.RowLen, Segs: lay.Segs()}
	r.call = float64(m)
	err := r.ops.Gram(r.gram, a, r.subs, r.segs, g)
	r.call = 0
	if err != nil {
		return fmt.Errorf("distance: products of rows %d-%d: %w", row0, row0+m, err)
	}
	for k, met := range r.cfg.Metrics {
		ms := MetricShape{
			Kind: metricInfo[met].kind, M: m, N: n, ARow0: a0, RowLen: lay.RowLen,
			Dst0: k * r.tile * n, Segs: lay.Segs(), DataSeg: lay.DataSeg,
			ShellSeg0: lay.ShellSeg0, Shells: lay.Shells, StatOff: lay.StatOff,
			Voxels: lay.Voxels, ResScale: float64(r.box) * r.cfg.VoxelSize,
		}
		if err := r.ops.Metric(r.out, r.gram, a, r.subs, ms); err != nil {
			return fmt.Errorf("distance: %s of rows %d-%d: %w", met, row0, row0+m, err)
		}
	}
	for k, met := range r.cfg.Metrics {
		vals := r.res.Matrices[k][row0*n : (row0+m)*n]
		if err := r.be.Download(volume.Bytes(vals), r.out, int64(k*r.tile*n)*8); err != nil {
			return fmt.Errorf("distance: download %s of rows %d-%d: %w", met, row0, row0+m, err)
		}
		r.p.Transfer(0, int64(len(vals))*8)
		r.p.Partial(Chunk{Name: met.String(), Unit: met.Unit(), RowLabel: "ground-truth map", ColLabel: "submitted map",
			Row0: r.res.Row0 + row0, Rows: m, Cols: n, TotalRows: r.ngt, Values: vals})
	}
	r.p.Memory(r.be.Stats().Peak, 0)
	r.p.Add(int64(m))
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// int64Bytes views v as its bytes (native order, as the device reads them).
func int64Bytes(v []int64) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*8)
}
