package dezing

import (
	"context"
	"errors"
	"fmt"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// Input is what a run reads: the projections, and the darks and flats
// (nil when the scan has none). Sources are read only.
type Input struct {
	Projections, Darks, Flats volume.Source
}

// Shapes returns the inputs' descriptions.
func (in Input) Shapes() Shapes {
	var s Shapes
	if in.Projections != nil {
		s.Projections = in.Projections.Info()
	}
	if in.Darks != nil {
		s.Darks = in.Darks.Info()
	}
	if in.Flats != nil {
		s.Flats = in.Flats.Info()
	}
	// Darks and flats are usually picked out of the projections' own
	// dataset: one reader, planned once.
	s.Readers = volume.ReadersOf(in.Projections, in.Darks, in.Flats)
	return s
}

// Output receives a run's results. Data passed to it are reused after the
// call returns.
type Output interface {
	// Frames receives the reduced dark and flat frames (rows x cols
	// float32; nil when the scan has none) once, before any projection.
	// After the flat-field correction they are part of the projections
	// and an output may ignore them.
	Frames(dark, flat []float32) error
	// Slab receives processed projections [z0, z0+frames) in ascending
	// order, z0 counted from the first projection of the run, as
	// OutInfo's type in native byte order.
	Slab(z0 int, data []byte) error
}

// Block is the partial result a run hands to the job's sinks after each
// block of projections when Config.Partials is set: a copy of the
// processed frames [Z0, Z0+Shape[0]) (counted like Output.Slab's), which
// the pipeline never touches again.
type Block = pipeline.VolumeBlock

// Result is what a run reports.
type Result struct {
	Plan *plan.Plan
	// Dark and Flat are the reduced frames (nil when absent).
	Dark, Flat []float32
	// Clipped of Values flat-field results were clipped.
	Clipped, Values int64
	// PeakDevice is the peak of the backend's tracked buffers.
	PeakDevice int64
	// ToDevice and FromDevice count the bytes moved.
	ToDevice, FromDevice int64
	Warnings             []string
	// Replaced counts the voxels the median replaced, per kind (a
	// merge's projections: the sum of its parts').
	Replaced Replaced
	// Voxels counts the voxels of each kind the run dezinged.
	Voxels Replaced
	// noise holds each kind's noise sample, by stage.
	noise map[string]*noiseSample
}

// Run dezings the darks, the flats and the projections of in, in that
// order, each in the blocks the plan gives, and hands the results to out.
// It checks ctx between blocks, and on the CPU between rows inside one
// (gpu.Bind), so that a cancel lands within a second however big the
// block; a cancelled or failed run returns the error and writes nothing
// more to out (the caller discards what it had). While a block is
// computed on the CPU its rows done are reported as Progress.Partway.
func Run(ctx context.Context, p *job.Progress, be gpu.Backend, cfg Config, in Input, out Output) (*Result, error) {
	in, err := in.kernel()
	if err != nil {
		return nil, err
	}
	s := in.Shapes()
	pl, err := Plan(be, s, cfg)
	if err != nil {
		return nil, err
	}
	r, err := newRun(ctx, p, be, cfg, pl)
	if err != nil {
		return nil, err
	}
	defer s.readers(cfg).Apply(pl.Choice, cfg.Track)()
	return r.execute(in, out, func(r *run) error { return r.projections(in.Projections, out) })
}

// newRun starts a run of plan pl on be's dezinging ops: its warnings are
// the result's first.
func newRun(ctx context.Context, p *job.Progress, be gpu.Backend, cfg Config, pl *plan.Plan) (*run, error) {
	ops, err := OpsFor(be)
	if err != nil {
		return nil, err
	}
	r := &run{ctx: ctx, p: p, be: be, ops: ops, cfg: cfg, pl: pl, res: &Result{Plan: pl, noise: map[string]*noiseSample{}}}
	for _, w := range pl.Warnings {
		r.warn(w)
	}
	return r, nil
}

// execute dezings and reduces the darks and flats of in, hands the frames
// to out, then the projections (projections: a run's or a merge's), and
// warns when most flat-field values were clipped. The peak device memory
// is measured from here.
func (r *run) execute(in Input, out Output, projections func(*run) error) (*Result, error) {
	// On the CPU a block is one kernel call that may take minutes: the
	// kernels stop within a row once the run is cancelled, and report
	// the rows done, which become the block's units in progress.
	defer gpu.Bind(r.ctx, r.be, r.kernelProgress)()
	r.be.ResetPeak()
	base := r.be.Stats().Current
	var err error
	if in.Darks != nil {
		if r.res.Dark, err = r.darkOrFlat(in.Darks, StageDarks, StageDarksReduce); err != nil {
			return nil, err
		}
	}
	if in.Flats != nil {
		if r.res.Flat, err = r.darkOrFlat(in.Flats, StageFlats, StageFlatsReduce); err != nil {
			return nil, err
		}
	}
	if err := out.Frames(r.res.Dark, r.res.Flat); err != nil {
		return nil, fmt.Errorf("write the dark and flat frames: %w", err)
	}
	if err := projections(r); err != nil {
		return nil, err
	}
	if in.Darks != nil {
		r.res.Voxels.Darks = in.Darks.Info().Len()
	}
	if in.Flats != nil {
		r.res.Voxels.Flats = in.Flats.Info().Len()
	}
	r.warnReplaced()
	if res := r.res; res.Values > 0 && 2*res.Clipped >= res.Values {
		r.warn(fmt.Sprintf("flat-field: %d of %d values (%.0f%%) were clipped to [%g, %g]: check the darks and flats",
			res.Clipped, res.Values, 100*float64(res.Clipped)/float64(res.Values), r.cfg.ClipLow, r.cfg.ClipHigh))
	}
	r.res.PeakDevice = r.be.Stats().Peak - base
	return r.res, nil
}

type run struct {
	ctx context.Context
	p   *job.Progress
	be  gpu.Backend
	ops Ops
	cfg Config
	pl  *plan.Plan
	res *Result
	// call is the units of the progress stage (frames, slices, rows) the
	// kernel call in progress computes, 0 when its progress is not
	// reported. It is set before the call and read by the call's
	// workers, which end before the call returns.
	call float64
}

// kernelProgress turns a kernel call's report (done of total rows or
// chunks) into the stage's units in progress.
func (r *run) kernelProgress(done, total int64) {
	if r.call > 0 && total > 0 {
		r.p.Partway(r.call * float64(done) / float64(total))
	}
}

func (r *run) warn(msg string) {
	r.res.Warnings = append(r.res.Warnings, msg)
	r.p.Warn(msg)
}

func (r *run) phase(name string) plan.PhasePlan {
	for _, ph := range r.pl.Phases {
		if ph.Name == name {
			return ph
		}
	}
	panic("dezing: no phase " + name)
}

// buffers allocates device buffers and frees them all at once.
type buffers struct {
	be   gpu.Backend
	bufs []*gpu.Buffer
}

func (b *buffers) alloc(label string, n int64) (*gpu.Buffer, error) {
	buf, err := b.be.Alloc(label, n)
	if err != nil {
		return nil, fmt.Errorf("dezing: %w", err)
	}
	b.bufs = append(b.bufs, buf)
	return buf, nil
}

func (b *buffers) free() {
	for _, buf := range b.bufs {
		b.be.Free(buf)
	}
	b.bufs = nil
}

// darkOrFlat dezings one set as its own stack into a host copy, then
// reduces it to one frame.
func (r *run) darkOrFlat(src volume.Source, stage, reduce string) ([]float32, error) {
	info := src.Info()
	fb := info.PlaneBytes()
	label := stage + " dezinged"
	dezinged := r.cfg.Track.Bytes(label, int64(info.Shape[0])*fb)
	defer r.cfg.Track.Free(label, dezinged)
	replaced := &r.res.Replaced.Darks
	if stage == StageFlats {
		replaced = &r.res.Replaced.Flats
	}
	st := stack{
		stage: stage, unit: "frames", src: src, z0: 0, z1: info.Shape[0], block: r.phase(stage).Block,
		outFrame: fb,
		host:     func(i0, n int) []byte { return dezinged[int64(i0)*fb : int64(i0+n)*fb] },
		replaced: replaced,
	}
	if err := r.stack(st); err != nil {
		return nil, err
	}
	return r.reduce(dezinged, info, reduce)
}

// reduce reduces a dezinged set, band of rows by band of rows.
func (r *run) reduce(dezinged []byte, info volume.Info, stage string) ([]float32, error) {
	n, rows, cols, es := info.Shape[0], info.Shape[1], info.Shape[2], int64(info.DType.Size())
	ph := r.phase(stage)
	var bufs buffers
	bufs.be = r.be
	defer bufs.free()
	band := ph.Block
	in, err := bufs.alloc(stage+" rows", int64(band)*int64(n)*int64(cols)*es)
	if err != nil {
		return nil, err
	}
	out, err := bufs.alloc("reduced rows", int64(band)*int64(cols)*4)
	if err != nil {
		return nil, err
	}
	scr, err := bufs.alloc("reduce scratch", r.ops.ReduceScratch(reduceParams(info, r.cfg.Reduce, band)))
	if err != nil {
		return nil, err
	}
	// The frame stays with the run (Result.Dark, Result.Flat): it is
	// counted as one of the plan's resident "reduced frames".
	frame := make([]float32, rows*cols)
	r.cfg.Track.Add("reduced frames", int64(len(frame))*4)
	fb := info.PlaneBytes()
	r.p.Stage(stage, int64(rows), "rows")
	for y0 := 0; y0 < rows; y0 += band {
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		y1 := min(y0+band, rows)
		piece := int64(y1-y0) * int64(cols) * es
		for f := 0; f < n; f++ {
			off := int64(f)*fb + int64(y0)*int64(cols)*es
			if err := r.be.Upload(in, int64(f)*piece, dezinged[off:off+piece]); err != nil {
				return nil, fmt.Errorf("%s: %w", stage, err)
			}
		}
		rp := reduceParams(info, r.cfg.Reduce, y1-y0)
		r.call = float64(y1 - y0)
		err := r.ops.Reduce(out, in, scr, rp)
		r.call = 0
		if err != nil {
			return nil, fmt.Errorf("%s: %w", stage, err)
		}
		if err := r.be.Download(volume.Bytes(frame[y0*cols:y1*cols]), out, 0); err != nil {
			return nil, fmt.Errorf("%s: %w", stage, err)
		}
		r.transfer(int64(n)*piece, int64(y1-y0)*int64(cols)*4)
		r.p.Add(int64(y1 - y0))
	}
	return frame, nil
}

func (r *run) transfer(up, down int64) {
	r.res.ToDevice += up
	r.res.FromDevice += down
	r.p.Transfer(up, down)
	r.p.Memory(r.be.Stats().Peak, r.pl.PeakHost)
}

// projections dezings the projections block by block, with the
// flat-field correction when asked, and writes them to out.
func (r *run) projections(src volume.Source, out Output) error {
	info := src.Info()
	z0, z1 := r.cfg.span(Shapes{Projections: info})
	r.res.Voxels.Projections = int64(z1-z0) * int64(info.PlaneLen())
	ph := r.phase(StageProjections)
	outInfo := OutInfo(Shapes{Projections: info}, r.cfg)
	ofb := outInfo.PlaneBytes()
	downloads := make([][]byte, downloadBuffers)
	for i := range downloads {
		downloads[i] = r.cfg.Track.Bytes("downloads", int64(ph.Block)*ofb)
		defer r.cfg.Track.Free("downloads", downloads[i])
	}
	st := stack{
		stage: StageProjections, unit: "slices", src: src, z0: z0, z1: z1, block: ph.Block, outFrame: ofb,
		downloads: downloads, replaced: &r.res.Replaced.Projections,
		sink: func(i0 int, data []byte) error {
			if err := out.Slab(i0, data); err != nil {
				return fmt.Errorf("write projections %d-%d: %w", i0, i0+len(data)/int(ofb), err)
			}
			if r.cfg.Partials {
				// The copy is the sinks' to keep (the viewer's live
				// layer decides how long): it is planned as one block.
				r.p.Partial(&Block{Z0: i0, Depth: z1 - z0, Shape: [3]int{len(data) / int(ofb), info.Shape[1], info.Shape[2]}, DType: outInfo.DType, Data: append([]byte(nil), data...)})
			}
			return nil
		},
	}
	if r.cfg.FlatField {
		var bufs buffers
		bufs.be = r.be
		defer bufs.free()
		ff, err := r.flatField(&bufs, info, ph.Block)
		if err != nil {
			return err
		}
		st.post = ff
		// The correction hides what the median changed: the median's
		// output is downloaded for the count before it is corrected.
		st.counted = r.cfg.Track.Bytes("replaced count", int64(ph.Block)*info.PlaneBytes())
		defer r.cfg.Track.Free("replaced count", st.counted)
	}
	return r.stack(st)
}

// flatField puts the reduced frames on the device and returns the step
// that corrects a block (of up to block frames) of dezinged projections
// there: in place for float32 input, else into its own output.
func (r *run) flatField(bufs *buffers, info volume.Info, block int) (func(*gpu.Buffer, int) (*gpu.Buffer, error), error) {
	frameBytes := int64(info.PlaneLen()) * 4
	dark, err := bufs.alloc("dark frame", frameBytes)
	if err != nil {
		return nil, err
	}
	flat, err := bufs.alloc("flat frame", frameBytes)
	if err != nil {
		return nil, err
	}
	if err := r.be.Upload(dark, 0, volume.Bytes(r.res.Dark)); err != nil {
		return nil, err
	}
	if err := r.be.Upload(flat, 0, volume.Bytes(r.res.Flat)); err != nil {
		return nil, err
	}
	r.transfer(2*frameBytes, 0)
	scr, err := bufs.alloc("flat-field scratch", r.ops.FlatFieldScratch(flatParams(info, r.cfg, 1)))
	if err != nil {
		return nil, err
	}
	var dst *gpu.Buffer
	if info.DType != volume.Float32 {
		if dst, err = bufs.alloc("flat-field output", int64(block)*frameBytes); err != nil {
			return nil, err
		}
	}
	return func(med *gpu.Buffer, frames int) (*gpu.Buffer, error) {
		to := dst
		if to == nil {
			to = med // float32: corrected in place
		}
		n, err := r.ops.FlatField(to, med, dark, flat, scr, flatParams(info, r.cfg, frames))
		if err != nil {
			return nil, fmt.Errorf("flat-field: %w", err)
		}
		r.res.Clipped += n
		r.res.Values += int64(frames) * int64(info.PlaneLen())
		return to, nil
	}, nil
}

// stack is one median pass over frames [z0, z1) of src.
type stack struct {
	stage  string
	unit   string // "frames" of darks or flats, "slices" of projections
	src    volume.Source
	z0, z1 int
	block  int
	// outFrame is the bytes of one output frame (after post).
	outFrame int64
	// post runs on the device after the median of a block of frames and
	// returns the buffer to download (nil: the median's output).
	post func(med *gpu.Buffer, frames int) (*gpu.Buffer, error)
	// host returns where to download frames [i0, i0+n) (counted from z0)
	// when the stack has no sink.
	host func(i0, n int) []byte
	// sink, if set, receives each downloaded block, on a writer goroutine
	// that writes one block while the next is computed; downloads are its
	// buffers (two: one being written, one being downloaded into).
	sink      func(i0 int, data []byte) error
	downloads [][]byte
	// replaced receives the count of replaced voxels; counted, when post
	// is set, is where the median's output is downloaded to count them.
	replaced *int64
	counted  []byte
}

// stack runs the median over a stack in blocks: a loader goroutine reads
// block i+1 (with its halo frames, clamped at the ends of the data) into
// a staging buffer while block i is uploaded, filtered and downloaded.
func (r *run) stack(st stack) (err error) {
	info := st.src.Info()
	nz, fb := info.Shape[0], info.PlaneBytes()
	k := r.cfg.Kernel
	h := k / 2
	n := st.z1 - st.z0
	held := min(st.block+2*h, n+min(h, st.z0)+min(h, nz-st.z1))
	var bufs buffers
	bufs.be = r.be
	defer bufs.free()
	in, err := bufs.alloc(st.stage+" input", int64(held)*fb)
	if err != nil {
		return err
	}
	med, err := bufs.alloc(st.stage+" output", int64(st.block)*fb)
	if err != nil {
		return err
	}
	mp := medianParams(info, k, r.cfg.Dif)
	scr, err := bufs.alloc("median scratch", r.ops.MedianScratch(mp))
	if err != nil {
		return err
	}
	pinCap := r.cfg.Budget.PinnedCap
	if pinCap <= 0 {
		pinCap = gpu.DefaultPinnedCap()
	}
	staging, err := gpu.NewStaging(r.be, stagingBuffers, int64(held)*fb, r.cfg.Pin, pinCap)
	if err != nil {
		return fmt.Errorf("%s: %w", st.stage, err)
	}
	defer staging.Close()
	if w := staging.Warning(); w != "" {
		r.warn(w)
	}
	span := func(i int) (b0, b1, h0, h1 int) {
		b0 = st.z0 + i*st.block
		b1 = min(b0+st.block, st.z1)
		return b0, b1, max(b0-h, 0), min(b1+h, nz)
	}
	blocks := (n + st.block - 1) / st.block
	ctx, cancel := context.WithCancel(r.ctx)
	batches, loadErr := gpu.Load(ctx, staging, blocks, func(i int, dst []byte) (int, error) {
		_, _, h0, h1 := span(i)
		m := int(int64(h1-h0) * fb)
		if err := st.src.ReadSlab(h0, h1, dst[:m]); err != nil {
			return 0, fmt.Errorf("%s: read frames %d-%d: %w", st.stage, h0, h1, err)
		}
		return m, nil
	})
	defer func() {
		// Stop the loader and give its buffers back before the staging
		// pool is closed.
		cancel()
		for b := range batches {
			staging.Put(b.Buf)
		}
		if lerr := loadErr(); err == nil && lerr != nil && !errors.Is(lerr, context.Canceled) {
			err = lerr
		}
	}()
	var wr *writer
	if st.sink != nil {
		wr = newWriter(ctx, st.sink, st.downloads)
		defer func() {
			if werr := wr.close(); err == nil {
				err = werr
			}
		}()
	}
	r.p.Stage(st.stage, int64(n), st.unit)
	for b := range batches {
		if err := r.block(st, b, span, in, med, scr, fb, staging, wr); err != nil {
			return err
		}
		if err := r.ctx.Err(); err != nil {
			return err
		}
	}
	if err := r.ctx.Err(); err != nil {
		return err
	}
	return loadErr()
}

// block filters one block that the loader has read into b.
func (r *run) block(st stack, b gpu.Batch, span func(int) (int, int, int, int), in, med, scr *gpu.Buffer, fb int64, staging *gpu.Staging, wr *writer) error {
	b0, b1, h0, h1 := span(b.Index)
	wait, err := r.be.UploadAsync(in, 0, &gpu.HostBuffer{Bytes: b.Buf.Bytes[:b.N], Pinned: b.Buf.Pinned})
	if err != nil {
		staging.Put(b.Buf)
		return fmt.Errorf("%s: %w", st.stage, err)
	}
	info := st.src.Info()
	mp := medianParams(info, r.cfg.Kernel, r.cfg.Dif)
	mp.Planes, mp.Z0, mp.N = h1-h0, b0-h0, b1-b0
	r.call = float64(b1 - b0)
	err = r.ops.Median(med, in, scr, mp)
	r.call = 0
	held := b.Buf.Bytes[:b.N]
	res := med
	if err == nil && st.post != nil {
		counted := st.counted[:int64(b1-b0)*fb]
		if err = r.be.Download(counted, med, 0); err == nil {
			r.transfer(0, int64(len(counted)))
			r.tally(st, held, h0, b0, b1, counted)
			res, err = st.post(med, b1-b0)
		}
	}
	var host []byte
	if err == nil {
		host, err = r.hostBlock(st, wr, b0-st.z0, b1-b0)
	}
	if err == nil {
		err = r.be.Download(host, res, 0)
	}
	if err == nil && st.post == nil {
		r.tally(st, held, h0, b0, b1, host)
	}
	if werr := wait(); err == nil {
		err = werr
	}
	staging.Put(b.Buf)
	if err != nil {
		if wr != nil && host != nil {
			wr.discard(host)
		}
		return fmt.Errorf("%s: frames %d-%d: %w", st.stage, b0, b1, err)
	}
	r.transfer(int64(b.N), int64(len(host)))
	if wr != nil {
		wr.write(b0-st.z0, host)
	}
	r.p.Add(int64(b1 - b0))
	return nil
}

// warnReplaced warns about each kind of which more than
// ReplacedWarnFraction was replaced.
func (r *run) warnReplaced() {
	res := r.res
	for _, k := range []struct {
		kind, stage     string
		replaced, total int64
	}{{"projection", StageProjections, res.Replaced.Projections, res.Voxels.Projections},
		{"dark", StageDarks, res.Replaced.Darks, res.Voxels.Darks},
		{"flat", StageFlats, res.Replaced.Flats, res.Voxels.Flats}} {
		if w := replacedWarning(k.kind, k.replaced, k.total, r.cfg.Dif, res.noise[k.stage]); w != "" {
			r.warn(w)
		}
	}
}

// tally counts the replaced voxels of output frames [b0, b1) (out, the
// median's output) against held (the block's input from frame h0) and
// adds the block's voxels to its kind's noise sample.
func (r *run) tally(st stack, held []byte, h0, b0, b1 int, out []byte) {
	info := st.src.Info()
	fb := info.PlaneBytes()
	*st.replaced += countReplaced(held[int64(b0-h0)*fb:int64(b1-h0)*fb], out, info.DType.Size())
	s := r.res.noise[st.stage]
	if s == nil {
		// Fewer samples for a bigger kernel: each costs a sort of its
		// neighbourhood.
		k := int64(r.cfg.Kernel)
		n := max(1000, sampleTarget*27/(k*k*k))
		s = &noiseSample{stride: max(1, info.Len()/n), integer: info.DType != volume.Float32}
		r.res.noise[st.stage] = s
	}
	s.add(held, info, h0, b0, b1, info.Shape[0], r.cfg.Kernel)
}

// hostBlock returns where to download frames [i0, i0+n) of a stack: a
// free buffer of the writer's (waiting until the block before the last
// is written), or the stack's own host memory.
func (r *run) hostBlock(st stack, wr *writer, i0, n int) ([]byte, error) {
	if wr == nil {
		return st.host(i0, n), nil
	}
	buf, err := wr.buffer()
	if err != nil {
		return nil, err
	}
	return buf[:int64(n)*st.outFrame], nil
}
