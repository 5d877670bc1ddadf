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
	prog  *job.Progress
	pp    gpu.DetectPlaneParams
	bp    gpu.DetectBallParams
	kern  Kernel
	batch int
	ring  int
	bufs  struct{ in, work, masks, tiles, centres, weights *gpu.Buffer }
	host  []byte // downloaded centre planes
	det   *detector
	split *splitter
	res   *Result
	// hostBytes: staging, downloaded centres and structure labels.
	hostBytes int64
	done      int // planes through the 2D stage
	window    int // next window (relative to Start) for the ball filter
	// divert, when set, picks the structures a cluster task hands to the
	// merge unclassified (those touching a border plane: RunTask); they
	// are kept in diverted.
	divert   func([]point) bool
	diverted [][]point
}

// Run detects cells in src on be: planes are read by a loader goroutine in
// batches into staging buffers (pinned when cfg.PinMemory), uploaded,
// filtered plane by plane, ball-filtered in a ring of masks, and their
// centres grouped into structures on the host. budget bounds the memory
// plan. Progress counts planes; each batch's newly finished candidates are
// sent as a []Candidate partial result. A cancelled run returns ctx.Err().
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
	pl, err := MakePlan(&p, cfg, budget, be.Name())
	if err != nil {
		return nil, fmt.Errorf("detect %s: %w", src.Name, err)
	}
	r := &run{p: p, be: be, prog: prog, pp: p.PlaneParams(), kern: BallKernel(p.Ball.XY, p.Ball.Z),
		batch: pl.Block(), res: &Result{Plan: pl, Batch: pl.Block(), Warnings: slices.Clone(pl.Warnings)}, divert: divert}
	r.ring = p.Ball.Z - 1 + r.batch
	r.bp = ballParams(p.Ball, r.kern, p.Shape[1], p.Shape[2], r.ring)
	ty, tx := r.pp.BrainTiles()
	r.bp.UseTiles, r.bp.TileSize, r.bp.TilesY, r.bp.TilesX = true, p.BrainTile, ty, tx
	r.det = newDetector(p.Shape[1], p.Shape[2])
	r.split = newSplitter(&p)
	if cfg.PinMemory && be.Name() == "cpu" {
		r.res.Warnings = append(r.res.Warnings, "pin_memory: the CPU backend uploads nothing, so pinning has no effect; staging stays pageable")
	}
	for _, w := range r.res.Warnings {
		prog.Warn(w)
	}
	if err := r.alloc(); err != nil {
		r.free()
		return nil, fmt.Errorf("detect %s: %w", src.Name, err)
	}
	defer r.free()
	if err := r.stream(ctx, src, cfg); err != nil {
		return nil, err
	}
	if last := r.finish(r.det.flush()); len(last) > 0 {
		prog.Partial(last)
	}
	SortCandidates(r.res.Candidates)
	r.res.PeakDevice = be.Stats().Peak
	return r, nil
}

// alloc allocates the device buffers of the plan, once.
func (r *run) alloc() error {
	h, w := r.p.Shape[1], r.p.Shape[2]
	hw := int64(h) * int64(w)
	pb := hw * int64(r.p.DType.Size())
	nt := int64(r.bp.TilesY * r.bp.TilesX)
	b := int64(r.batch)
	var err error
	for _, a := range []struct {
		dst   **gpu.Buffer
		label string
		n     int64
	}{
		{&r.bufs.in, "input batches", 2 * b * pb},
		{&r.bufs.work, "2D filter work", gpu.DetectWorkLayout(&r.pp).Size},
		{&r.bufs.masks, "threshold mask ring", int64(r.ring) * hw},
		{&r.bufs.tiles, "in-brain tile ring", int64(r.ring) * nt},
		{&r.bufs.centres, "centre planes", b * hw},
		{&r.bufs.weights, "ball kernel", int64(4 * len(r.kern.W))},
	} {
		if *a.dst, err = r.be.Alloc(a.label, a.n); err != nil {
			return err
		}
	}
	r.host = make([]byte, b*hw)
	if err := gpu.DetectPrepareWork(r.be, r.bufs.work, &r.pp); err != nil {
		return err
	}
	return r.be.Upload(r.bufs.weights, 0, int32Bytes(r.kern.W))
}

func (r *run) free() {
	for _, b := range []*gpu.Buffer{r.bufs.in, r.bufs.work, r.bufs.masks, r.bufs.tiles, r.bufs.centres, r.bufs.weights} {
		r.be.Free(b)
	}
}

// stream reads, uploads and processes the batches. The device holds two
// input batches: while batch i is filtered, batch i+1 is uploaded into the
// other half (asynchronously on CUDA).
func (r *run) stream(ctx context.Context, src *volume.Volume, cfg Config) error {
	pb := int64(r.p.Shape[1]) * int64(r.p.Shape[2]) * int64(r.p.DType.Size())
	n := r.p.Planes()
	batches := (n + r.batch - 1) / r.batch
	st, err := gpu.NewStaging(r.be, stagingBuffers, int64(r.batch)*pb, cfg.PinMemory, cfg.PinnedCap)
	if err != nil {
		return fmt.Errorf("detect %s: %w", src.Name, err)
	}
	defer st.Close()
	if w := st.Warning(); w != "" {
		r.prog.Warn(w)
		r.res.Warnings = append(r.res.Warnings, w)
	}
	r.res.Pinned = st.Pinned()
	r.hostBytes = st.Bytes() + int64(len(r.host)) + 8*int64(r.p.Shape[1])*int64(r.p.Shape[2])
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, loadErr := gpu.Load(lctx, st, batches, func(i int, dst []byte) (int, error) {
		z0 := r.p.Start + i*r.batch
		z1 := min(z0+r.batch, r.p.End)
		m := int(int64(z1-z0) * pb)
		return m, src.ReadSlab(z0, z1, dst[:m])
	})
	drain := func() {
		cancel()
		for b := range ch {
			st.Put(b.Buf)
		}
		loadErr()
	}
	r.prog.Stage("detect", int64(n), "planes")
	upload := func(b gpu.Batch) (func() error, error) {
		off := int64(b.Index%2) * int64(r.batch) * pb
		// The whole staging buffer goes up (the tail of a short last batch
		// is never read): it keeps the pinned allocation the copy needs.
		wait, err := r.be.UploadAsync(r.bufs.in, off, b.Buf)
		if err != nil {
			st.Put(b.Buf)
			return nil, err
		}
		r.prog.Transfer(int64(len(b.Buf.Bytes)), 0)
		return func() error { err := wait(); st.Put(b.Buf); return err }, nil
	}
	var pending func() error // the upload in flight
	b, ok := <-ch
	if ok {
		pending, err = upload(b)
	}
	for ok && err == nil {
		cur := b
		err = pending()
		pending = nil
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			break
		}
		if b, ok = <-ch; ok {
			if pending, err = upload(b); err != nil {
				break
			}
		}
		err = r.batchDone(cur)
	}
	if pending != nil {
		if werr := pending(); err == nil {
			err = werr
		}
	}
	if err != nil {
		drain()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("detect %s: %w", src.Name, err)
	}
	if err := loadErr(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("detect: %w", err)
	}
	return nil
}

// batchDone runs the 2D stage on the planes of batch b (already on the
// device) and the ball filter on every window they complete.
func (r *run) batchDone(b gpu.Batch) error {
	h, w := r.p.Shape[1], r.p.Shape[2]
	hw := int64(h) * int64(w)
	pb := hw * int64(r.p.DType.Size())
	nt := int64(r.bp.TilesY * r.bp.TilesX)
	planes := int(int64(b.N) / pb)
	base := int64(b.Index%2) * int64(r.batch) * pb
	for j := 0; j < planes; j++ {
		slot := int64(r.done % r.ring)
		if err := r.be.DetectPlane(r.bufs.in, base+int64(j)*pb, r.bufs.work, r.bufs.masks, slot*hw, r.bufs.tiles, slot*nt, &r.pp); err != nil {
			return fmt.Errorf("plane %d: %w", r.p.Start+r.done, err)
		}
		r.done++
		r.prog.Add(1)
	}
	count := r.done - r.p.Ball.Z + 1 - r.window
	if count > 0 {
		bp := r.bp
		bp.First, bp.Count = r.window%r.ring, count
		if err := r.be.DetectBall(r.bufs.centres, r.bufs.masks, r.bufs.tiles, r.bufs.weights, &bp); err != nil {
			return fmt.Errorf("ball filter of planes %d-%d: %w", r.p.Start+r.window, r.p.Start+r.window+count+r.p.Ball.Z-1, err)
		}
		if err := r.be.Sync(); err != nil {
			return err
		}
		host := r.host[:int64(count)*hw]
		if err := r.be.Download(host, r.bufs.centres, 0); err != nil {
			return err
		}
		r.prog.Transfer(0, int64(len(host)))
		var found []Candidate
		for i := 0; i < count; i++ {
			z := r.p.Start + r.window + i + r.p.Ball.MidZ()
			found = append(found, r.finish(r.det.plane(z, host[int64(i)*hw:int64(i+1)*hw]))...)
		}
		r.window += count
		if len(found) > 0 {
			r.prog.Partial(found)
		}
	}
	// The next upload may go into this batch's half of the input buffer.
	if err := r.be.Sync(); err != nil {
		return err
	}
	r.prog.Memory(r.be.Stats().Peak, r.hostBytes)
	return nil
}

// finish classifies finished structures by size and returns (and keeps)
// their candidates.
func (r *run) finish(structs [][]point) []Candidate {
	var out []Candidate
	for _, s := range structs {
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
	return out
}
