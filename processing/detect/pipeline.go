package detect

import (
	"context"
	"fmt"
	"slices"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// Result is the outcome of a detection run.
type Result struct {
	// Candidates sorted by z, y, x.
	Candidates []Candidate
	Plan       *plan.Plan
	// Batch is the batch size used.
	Batch int
	// Structures found, clusters split (and not split: too large).
	Structures, Split, Unsplit int
	// PeakDevice is the highest device memory the run held (bytes).
	PeakDevice int64
	// Pinned reports whether the staging buffers were page-locked.
	Pinned   bool
	Warnings []string
}

// run is the state of one detection run.
type run struct {
	p     Params
	be    gpu.Backend
	ops   Ops
	prog  *job.Progress
	pp    PlaneParams
	bp    BallParams
	kern  Kernel
	batch int
	ring  int
	// host says the backend computes in host memory (the CPU backend):
	// planes are read straight into the input buffer and the structures
	// read the centre buffers themselves.
	host bool
	bufs struct {
		in, work, masks, tiles, weights *gpu.Buffer
		// centres: one buffer per slot on the CPU, one for all on a GPU.
		centres []*gpu.Buffer
	}
	// centreHost holds each slot's centre planes on the host: the CPU's
	// centre buffers, or a GPU's downloads.
	centreHost [centreSlots][]byte
	mem        *plan.Tracker
	det        *detector
	split      *splitter
	res        *Result
	// hostBytes: staging, downloaded centres and structure labels.
	hostBytes int64
	done      int // planes through the 2D stage
	window    int // next window (relative to Start) for the ball filter
	// divert, when set, picks the structures a cluster task hands to the
	// merge unclassified (those touching a border plane: RunTask); they
	// are kept in diverted.
	divert   func([]point) bool
	diverted [][]point
	// candCap is the capacity of res.Candidates counted in mem.
	candCap int
}

// Run detects cells in src on be: planes are read by a loader goroutine in
// batches (straight into the input buffer on the CPU; on a GPU into
// staging buffers, pinned when cfg.PinMemory, and uploaded), filtered
// plane by plane, ball-filtered in a ring of masks, and their centres
// grouped into structures on the host by a goroutine of their own, while
// the next batch is filtered. budget bounds the memory plan. Progress
// counts planes; each batch's newly finished candidates are sent as a
// []Candidate partial result. A cancelled run returns ctx.Err().
func Run(ctx context.Context, prog *job.Progress, be gpu.Backend, cfg Config, src *volume.Volume, budget plan.Budget) (*Result, error) {
	r, err := runDetect(ctx, prog, be, cfg, src, budget, nil)
	if err != nil {
		return nil, err
	}
	return r.res, nil
}

// runDetect is Run, with the structures divert picks kept apart.
func runDetect(ctx context.Context, prog *job.Progress, be gpu.Backend, cfg Config, src *volume.Volume, budget plan.Budget, divert func([]point) bool) (*run, error) {
	p, err := cfg.Params(src.Info)
	if err != nil {
		return nil, fmt.Errorf("detect %s: %w", src.Name, err)
	}
	ops, err := opsFor(be)
	if err != nil {
		return nil, fmt.Errorf("detect %s: %w", src.Name, err)
	}
	rd := volume.ReadersOf(src.Source())
	pl, err := makePlan(&p, cfg, budget, be.Name(), rd)
	if err != nil {
		return nil, fmt.Errorf("detect %s: %w", src.Name, err)
	}
	defer rd.Apply(pl.Choice, cfg.Memory)()
	r := &run{p: p, be: be, ops: ops, prog: prog, pp: p.PlaneParams(), kern: BallKernel(p.Ball.XY, p.Ball.Z),
		batch: pl.Block(), host: be.Name() == "cpu", mem: cfg.Memory,
		res: &Result{Plan: pl, Batch: pl.Block(), Warnings: slices.Clone(pl.Warnings)}, divert: divert}
	r.ring = p.Ball.Z - 1 + r.batch
	r.bp = ballParams(p.Ball, r.kern, p.Shape[1], p.Shape[2], r.ring)
	ty, tx := r.pp.BrainTiles()
	r.bp.UseTiles, r.bp.TileSize, r.bp.TilesY, r.bp.TilesX = true, p.BrainTile, ty, tx
	if cfg.PinMemory && r.host {
		r.res.Warnings = append(r.res.Warnings, "pin_memory: the CPU backend uploads nothing, so pinning has no effect; staging stays pageable")
	}
	for _, w := range r.res.Warnings {
		prog.Warn(w)
	}
	// Other readers' buffers are their own: counted as they say they are.
	r.mem.Add("input read buffers", rd.Other)
	defer r.mem.Add("input read buffers", -rd.Other)
	if err := r.alloc(); err != nil {
		r.free()
		return nil, fmt.Errorf("detect %s: %w", src.Name, err)
	}
	defer r.free()
	// A batch's ball filter is one long kernel call on the CPU: it stops
	// between rows once ctx is cancelled. Progress counts the planes as
	// the 2D stage filters them, a few a second, so the kernels report
	// nothing of their own.
	defer gpu.Bind(ctx, be, nil)()
	if err := r.stream(ctx, src, cfg); err != nil {
		return nil, err
	}
	SortCandidates(r.res.Candidates)
	r.res.PeakDevice = be.Stats().Peak
	return r, nil
}

// alloc allocates the buffers of the plan, once.
func (r *run) alloc() error {
	h, w := r.p.Shape[1], r.p.Shape[2]
	hw := int64(h) * int64(w)
	pb := hw * int64(r.p.DType.Size())
	nt := int64(r.bp.TilesY * r.bp.TilesX)
	b := int64(r.batch)
	r.bufs.centres = make([]*gpu.Buffer, 1)
	if r.host {
		r.bufs.centres = make([]*gpu.Buffer, centreSlots)
	}
	type buf struct {
		dst   **gpu.Buffer
		label string
		n     int64
	}
	all := []buf{
		{&r.bufs.in, "input batches", 2 * b * pb},
		{&r.bufs.work, "2D filter work", WorkLayout(&r.pp).Size},
		{&r.bufs.masks, "threshold mask ring", int64(r.ring) * hw},
		{&r.bufs.tiles, "in-brain tile ring", int64(r.ring) * nt},
		{&r.bufs.weights, "ball kernel", int64(4 * len(r.kern.W))},
	}
	for i := range r.bufs.centres {
		all = append(all, buf{&r.bufs.centres[i], "centre planes", b * hw})
	}
	var err error
	for _, a := range all {
		if *a.dst, err = r.be.Alloc(a.label, a.n); err != nil {
			return err
		}
	}
	for k := range r.centreHost {
		if r.host {
			r.centreHost[k] = r.bufs.centres[k].HostBytes()
		} else {
			r.centreHost[k] = r.mem.Bytes("centre planes (downloaded)", b*hw)
		}
	}
	r.det = newDetector(h, w, r.mem, "structure labels")
	r.split = newSplitter(&r.p, r.mem)
	r.hostBytes = labelPlanesBytes(h, w)
	if !r.host {
		r.hostBytes += centreSlots * b * hw
	}
	if err := prepareWork(r.be, r.bufs.work, &r.pp); err != nil {
		return err
	}
	return r.be.Upload(r.bufs.weights, 0, int32Bytes(r.kern.W))
}

// free releases the buffers and stops counting the host arrays.
func (r *run) free() {
	for _, b := range append([]*gpu.Buffer{r.bufs.in, r.bufs.work, r.bufs.masks, r.bufs.tiles, r.bufs.weights}, r.bufs.centres...) {
		r.be.Free(b)
	}
	if !r.host {
		for k, c := range r.centreHost {
			r.mem.Free("centre planes (downloaded)", c)
			r.centreHost[k] = nil
		}
	}
	if r.det != nil {
		r.det.release()
	}
	r.mem.Add("candidates", -int64(r.candCap)*candidateBytes)
	r.candCap = 0
}

// centreBatch is a batch of centre planes handed to the structures
// goroutine: count planes from plane z0 in slot's centreHost.
type centreBatch struct{ slot, z0, count int }

// stream reads, filters and ball-filters the batches, and hands their
// centre planes to the structures goroutine. The device holds two input
// batches: while batch i is filtered, batch i+1 is read (uploaded on a
// GPU) into the other half; and two slots of centre planes: while the
// structures of one are built, the next ball filter fills the other.
func (r *run) stream(ctx context.Context, src *volume.Volume, cfg Config) error {
	f, err := r.newFeed(ctx, src, cfg)
	if err != nil {
		return fmt.Errorf("detect %s: %w", src.Name, err)
	}
	defer f.stop()
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan centreBatch, centreSlots)
	free := make(chan int, centreSlots)
	for k := 0; k < centreSlots; k++ {
		free <- k
	}
	built := make(chan struct{})
	go func() {
		defer close(built)
		r.structures(sctx, batches, free)
	}()
	r.prog.Stage("detect", int64(r.p.Planes()), "planes")
	for err == nil {
		var b fedBatch
		var ok bool
		if b, ok, err = f.next(); err != nil || !ok {
			break
		}
		if err = ctx.Err(); err == nil {
			err = r.batchDone(ctx, f, b, batches, free)
		}
	}
	close(batches)
	if err != nil {
		cancel()
	}
	<-built
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("detect %s: %w", src.Name, err)
	}
	return nil
}

// batchDone runs the 2D stage on the planes of batch b (already on the
// device) and the ball filter on every window they complete, and hands
// the centre planes found to the structures goroutine.
func (r *run) batchDone(ctx context.Context, f feed, b fedBatch, batches chan<- centreBatch, free <-chan int) error {
	h, w := r.p.Shape[1], r.p.Shape[2]
	hw := int64(h) * int64(w)
	pb := hw * int64(r.p.DType.Size())
	nt := int64(r.bp.TilesY * r.bp.TilesX)
	base := int64(b.index%2) * int64(r.batch) * pb
	for j := 0; j < b.planes; j++ {
		// A batch of many large planes takes a while: stop between them.
		if err := ctx.Err(); err != nil {
			return err
		}
		slot := int64(r.done % r.ring)
		if err := r.ops.Plane(r.bufs.in, base+int64(j)*pb, r.bufs.work, r.bufs.masks, slot*hw, r.bufs.tiles, slot*nt, &r.pp); err != nil {
			return fmt.Errorf("plane %d: %w", r.p.Start+r.done, err)
		}
		r.done++
		r.prog.Add(1)
	}
	f.release(b)
	count := r.done - r.p.Ball.Z + 1 - r.window
	if count > 0 {
		var slot int
		select {
		case slot = <-free:
		case <-ctx.Done():
			return ctx.Err()
		}
		dst := r.bufs.centres[slot%len(r.bufs.centres)]
		bp := r.bp
		bp.First, bp.Count = r.window%r.ring, count
		if err := r.ops.Ball(dst, r.bufs.masks, r.bufs.tiles, r.bufs.weights, &bp); err != nil {
			return fmt.Errorf("ball filter of planes %d-%d: %w", r.p.Start+r.window, r.p.Start+r.window+count+r.p.Ball.Z-1, err)
		}
		if err := r.be.Sync(); err != nil {
			return err
		}
		if !r.host {
			host := r.centreHost[slot][:int64(count)*hw]
			if err := r.be.Download(host, dst, 0); err != nil {
				return err
			}
			r.prog.Transfer(0, int64(len(host)))
		}
		batches <- centreBatch{slot: slot, z0: r.p.Start + r.window + r.p.Ball.MidZ(), count: count}
		r.window += count
	}
	// The next upload may go into this batch's half of the input buffer.
	if err := r.be.Sync(); err != nil {
		return err
	}
	r.prog.Memory(r.be.Stats().Peak, r.hostBytes)
	return nil
}

// structures builds the structures of the centre planes it is handed,
// in order, giving each slot back once its planes are read, classifies
// the finished structures and reports their candidates; after the last
// batch it hands out the structures still open. It stops early when ctx
// is cancelled.
func (r *run) structures(ctx context.Context, batches <-chan centreBatch, free chan<- int) {
	hw := r.p.Shape[1] * r.p.Shape[2]
	var done [][]point
	for b := range batches {
		if ctx.Err() != nil {
			continue // drain: the run is ending
		}
		done = done[:0]
		host := r.centreHost[b.slot]
		for i := 0; i < b.count; i++ {
			done = append(done, r.det.plane(b.z0+i, host[i*hw:(i+1)*hw])...)
		}
		free <- b.slot
		if found := r.finish(ctx, done); len(found) > 0 {
			r.prog.Partial(Points(found))
		}
	}
	if ctx.Err() != nil {
		return
	}
	if last := r.finish(ctx, r.det.flush()); len(last) > 0 {
		r.prog.Partial(Points(last))
	}
}

// finish classifies finished structures by size and returns (and keeps)
// their candidates.
func (r *run) finish(ctx context.Context, structs [][]point) []Candidate {
	var out []Candidate
	for _, s := range structs {
		if ctx.Err() != nil {
			return nil // cancelled: a split can take a while
		}
		if r.divert != nil && r.divert(s) {
			r.diverted = append(r.diverted, s)
			continue
		}
		r.res.Structures++
		n := len(s)
		switch {
		case float64(n) < r.p.MaxCellVolume:
			z, y, x := centre(s)
			out = append(out, Candidate{z, y, x, Cell})
		case n >= r.p.MaxCluster:
			z, y, x := centre(s)
			out = append(out, Candidate{z, y, x, Artifact})
		default:
			cs, ok, err := r.split.split(s)
			if err != nil || !ok {
				r.res.Unsplit++
				z, y, x := centre(s)
				msg := fmt.Sprintf("a cluster of %d voxels at z=%d y=%d x=%d is too large to split; kept as one cell", n, z, y, x)
				if err != nil {
					msg = fmt.Sprintf("splitting a cluster of %d voxels at z=%d y=%d x=%d failed (%v); kept as one cell", n, z, y, x, err)
				}
				r.prog.Warn(msg)
				r.res.Warnings = append(r.res.Warnings, msg)
				cs = []point{{int32(z), int32(y), int32(x)}}
			} else {
				r.res.Split++
			}
			for _, c := range cs {
				out = append(out, Candidate{int(c.z), int(c.y), int(c.x), Cell})
			}
		}
	}
	r.res.Candidates = append(r.res.Candidates, out...)
	if c := cap(r.res.Candidates); c != r.candCap {
		r.mem.Add("candidates", int64(c-r.candCap)*candidateBytes)
		r.candCap = c
	}
	return out
}
