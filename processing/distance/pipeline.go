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
	// Rows, when Rows[1] > 0, restricts the run to ground-truth maps
	// [Rows[0], Rows[1]): a task of a run split over a cluster. Matrices
	// then have Rows[1]−Rows[0] rows.
	Rows [2]int
}

// Chunk is the partial result a run hands to job.Progress.Partial after
// each chunk or tile: rows [Row0, Row0+Rows) of one metric's matrix, Cols
// (submitted maps) values each, row-major. Values is final: the pipeline
// never changes it afterwards.
type Chunk struct {
	Metric     string
	Row0, Rows int
	Cols       int
	Values     []float64
}

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
	for _, m := range []Maps{gt, sub} {
		if c, ok := m.(interface{ ConvertBytes() int64 }); ok {
			sh.ConvertBytes = max(sh.ConvertBytes, c.ConvertBytes())
		}
	}
	return sh
}

// run is the state of one Run.
type run struct {
	ctx  context.Context
	p    *job.Progress
	be   gpu.Backend
	cfg  Config
	lay  Layout
	prep *preparer
	// batch is the number of maps read and prepared at once; tile the
	// number of ground-truth rows computed at once (equal in low-memory
	// mode: the chunk).
	batch  int
	tile   int
	box    int
	nsub   int
	stage  *gpu.Staging
	raw    []float32
	bufs   []*gpu.Buffer
	subs   *gpu.Buffer
	segs   *gpu.Buffer
	gram   *gpu.Buffer
	out    *gpu.Buffer
	res    *Result
	shells *Shells
}

// Run computes the distance matrices between the ground-truth maps gt
// (rows) and the submitted maps sub (columns) on be. Both sets are masked
// and normalised alike (one code path, MaskAndNormalize's) whatever the pipeline;
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
	sh := ShapeOf(gt, sub)
	workers := cfg.hostWorkers(be)
	pl, err := MakePlan(cfg, sh, be.Name(), workers)
	if err != nil {
		return nil, err
	}
	_, lay, _ := Phases(cfg, sh, be.Name(), workers)
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
	r := &run{ctx: ctx, p: p, be: be, cfg: cfg, lay: lay, tile: pl.Block(), batch: pl.Phases[0].Block, box: sh.Box, nsub: sh.NSub}
	if lay.Spec {
		r.shells = NewShells(sh.Box)
	}
	r.prep = newPreparer(lay, mask, r.shells, cfg.Normalize, workers)
	r.res = &Result{Metrics: cfg.Metrics, NGT: r1 - r0, NSub: sh.NSub, Row0: r0, LowMemory: cfg.LowMemory, Box: sh.Box, Voxels: mask.Len(), Plan: pl, Chunk: r.tile}
	defer r.free()
	if err := r.setup(); err != nil {
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
	} else {
		all, err := r.alloc("ground-truth maps", int64(r1-r0)*lay.RowBytes())
		if err != nil {
			return nil, err
		}
		p.Stage("ground-truth maps", int64(r1-r0), "maps")
		if err := r.loadAll(gt, "ground-truth", r0, r1, all); err != nil {
			return nil, err
		}
		// The load phase ends: its host buffers go before the tiles'
		// device buffers come (the plan's two phases).
		r.stage.Close()
		r.stage, r.raw = nil, nil
		r.res.Load = time.Since(t0)
		t1 := time.Now()
		if err := r.computeBuffers(); err != nil {
			return nil, err
		}
		p.Stage("distances", int64(r1-r0), "rows")
		for i := 0; i < r1-r0; i += r.tile {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := r.compute(all, i, i, min(r.tile, r1-r0-i)); err != nil {
				return nil, err
			}
		}
		r.res.Compute = time.Since(t1)
	}
	r.res.PeakDevice = be.Stats().Peak
	p.Memory(r.res.PeakDevice, PeakRSS())
	return r.res, nil
}

// setup allocates what the whole run keeps: the submitted maps and segment
// bounds on the device, the staging pool and read buffer for loading (in
// batches of r.batch maps), and the result matrices.
func (r *run) setup() error {
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
	r.stage, err = gpu.NewStaging(r.be, 2, int64(r.batch)*lay.RowBytes(), r.cfg.Pin, r.cfg.PinCap)
	if err != nil {
		return err
	}
	if w := r.stage.Warning(); w != "" {
		r.p.Warn(w)
	}
	r.raw = make([]float32, r.batch*r.box*r.box*r.box)
	r.res.Matrices = make([][]float64, len(r.cfg.Metrics))
	for k := range r.res.Matrices {
		r.res.Matrices[k] = make([]float64, r.res.NGT*r.nsub)
	}
	return nil
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
	return b, nil
}

func (r *run) free() {
	for _, b := range r.bufs {
		r.be.Free(b)
	}
	if r.stage != nil {
		r.stage.Close()
	}
}

// reader returns the loader's read function for maps [r0, r1) of set:
// batch i is maps r0+i·chunk … read into the raw buffer and prepared into
// the staging buffer.
func (r *run) reader(set Maps, name string, r0, r1 int) func(i int, dst []byte) (int, error) {
	v := r.box * r.box * r.box
	return func(i int, dst []byte) (int, error) {
		i0 := r0 + i*r.batch
		i1 := min(i0+r.batch, r1)
		n := i1 - i0
		raw := r.raw[:n*v]
		if err := set.ReadMaps(i0, i1, raw); err != nil {
			return 0, fmt.Errorf("read %s maps %d-%d: %w", name, i0, i1, err)
		}
		rows := volume.Float64s(dst)[:n*r.lay.RowLen]
		if err := r.prep.prepare(rows, raw, n, i0, name); err != nil {
			return 0, err
		}
		return len(rows) * 8, nil
	}
}

// batches returns the number of batches of [r0, r1).
func (r *run) batches(r0, r1 int) int { return (r1 - r0 + r.batch - 1) / r.batch }

// loadAll reads, prepares and uploads maps [r0, r1) of set into dst, one
// row per map; reading the next chunk overlaps uploading this one.
func (r *run) loadAll(set Maps, name string, r0, r1 int, dst *gpu.Buffer) error {
	ch, wait := gpu.Load(r.ctx, r.stage, r.batches(r0, r1), r.reader(set, name, r0, r1))
	var err error
	for b := range ch {
		if err == nil {
			err = r.upload(dst, int64(b.Index)*int64(r.batch)*r.lay.RowBytes(), b)
			r.p.Add(int64(b.N) / r.lay.RowBytes())
		}
		r.stage.Put(b.Buf)
	}
	return firstErr(wait(), err)
}

// upload copies a batch to dst at off: asynchronously when it fills the
// staging buffer, else (the last, short batch) with a plain Upload of the
// bytes it holds. It returns once the staging buffer may be reused.
func (r *run) upload(dst *gpu.Buffer, off int64, b gpu.Batch) error {
	r.p.Transfer(int64(b.N), 0)
	if b.N < len(b.Buf.Bytes) {
		return r.be.Upload(dst, off, b.Buf.Bytes[:b.N])
	}
	wait, err := r.be.UploadAsync(dst, off, b.Buf)
	if err != nil {
		return err
	}
	return wait()
}

// stream computes ground-truth rows [r0, r1) chunk by chunk: the loader
// reads and prepares chunk i+1 on the host while the device computes
// chunk i. Only one chunk is ever on the device and two in staging.
func (r *run) stream(gt Maps, r0, r1 int) error {
	buf, err := r.alloc("ground-truth chunk", int64(r.tile)*r.lay.RowBytes())
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	ch, wait := gpu.Load(ctx, r.stage, r.batches(r0, r1), r.reader(gt, "ground-truth", r0, r1))
	for b := range ch {
		if err == nil {
			err = r.upload(buf, 0, b)
		}
		r.stage.Put(b.Buf)
		if err == nil {
			err = r.compute(buf, 0, b.Index*r.tile, int(int64(b.N)/r.lay.RowBytes()))
		}
		if err != nil {
			cancel() // stop the loader; keep draining
		}
	}
	return firstErr(err, wait())
}

// compute fills matrix rows [row0, row0+m) from rows [a0, a0+m) of buffer
// a: the products of every segment, then each metric, then one download
// per metric straight into the result.
func (r *run) compute(a *gpu.Buffer, a0, row0, m int) error {
	lay, n := r.lay, r.nsub
	g := gpu.DistGramShape{M: m, N: n, ARow0: a0, RowLen: lay.RowLen, Segs: lay.Segs()}
	if err := r.be.DistGram(r.gram, a, r.subs, r.segs, g); err != nil {
		return fmt.Errorf("distance: products of rows %d-%d: %w", row0, row0+m, err)
	}
	for k, met := range r.cfg.Metrics {
		ms := gpu.DistMetricShape{
			Kind: metricInfo[met].kind, M: m, N: n, ARow0: a0, RowLen: lay.RowLen,
			Dst0: k * r.tile * n, Segs: lay.Segs(), DataSeg: lay.DataSeg,
			ShellSeg0: lay.ShellSeg0, Shells: lay.Shells, StatOff: lay.StatOff,
			Voxels: lay.Voxels, ResScale: float64(r.box) * r.cfg.VoxelSize,
		}
		if err := r.be.DistMetric(r.out, r.gram, a, r.subs, ms); err != nil {
			return fmt.Errorf("distance: %s of rows %d-%d: %w", met, row0, row0+m, err)
		}
	}
	for k, met := range r.cfg.Metrics {
		vals := r.res.Matrices[k][row0*n : (row0+m)*n]
		if err := r.be.Download(volume.Bytes(vals), r.out, int64(k*r.tile*n)*8); err != nil {
			return fmt.Errorf("distance: download %s of rows %d-%d: %w", met, row0, row0+m, err)
		}
		r.p.Transfer(0, int64(len(vals))*8)
		r.p.Partial(Chunk{Metric: met.String(), Row0: r.res.Row0 + row0, Rows: m, Cols: n, Values: vals})
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
