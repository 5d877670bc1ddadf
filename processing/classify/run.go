package classify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
)

// Classified is one candidate's outcome.
type Classified struct {
	// Index of the candidate in the input.
	Index int
	// Class is points.Cell (cellfinder's type 2), points.NonCell (type 1)
	// or points.Unknown (its cube leaves the volume: not classified).
	Class points.Class
	// P is the probability of the cell class (NaN when unknown).
	P float32
}

// Result is the outcome of a classification.
type Result struct {
	// Candidates in input order.
	Candidates []Classified
	// Points are the inputs' candidates (for the outputs).
	Points                   []points.Point
	Cells, NonCells, Unknown int
	// Model describes the weight file; Depth the network's.
	Model string
	Depth int
	Plan  *plan.Plan
	Batch int
	// Norm is each channel's normalisation (On false without).
	Norm       [2]Norm
	PeakDevice int64
	Pinned     bool
	Warnings   []string
}

// classOf turns a probability into a class as cellfinder does: argmax of
// the two outputs, the first (non-cell) on a tie.
func classOf(probs []float32) points.Class {
	if probs[1] > probs[0] {
		return points.Cell
	}
	return points.NonCell
}

// Run classifies the session's candidates on be within budget: a loader
// goroutine reads each plane once into a ring, cuts the cubes of a batch
// out of it (rescaled and normalised as cellfinder's cube generator does)
// while the previous batch runs through the network. Progress counts
// cubes. A cancelled run returns ctx.Err() within a batch's row block.
func (s *Session) Run(ctx context.Context, prog *job.Progress, be gpu.Backend, budget plan.Budget) (*Result, error) {
	return s.run(ctx, prog, be, budget, s.Order)
}

// run classifies the candidates of order (a run of s.Order).
func (s *Session) run(ctx context.Context, prog *job.Progress, be gpu.Backend, budget plan.Budget, order []int) (*Result, error) {
	fail := func(err error) (*Result, error) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("classify %s: %w", s.In.Signal.Name, err)
	}
	workers := 1
	if c, ok := be.(*gpu.CPUBackend); ok {
		workers = c.Workers()
	}
	pl, err := s.makePlan(budget, be.Name(), workers, len(order))
	if err != nil {
		return nil, err
	}
	res := &Result{Points: s.In.Points, Model: s.Model.Describe(), Depth: s.Net.Arch.Depth, Plan: pl, Batch: pl.Block(),
		Warnings: slices.Clone(pl.Warnings)}
	mem := s.Cfg.Memory
	res.Candidates = make([]Classified, len(s.In.Points))
	mem.Add("results", int64(len(s.In.Points))*(classifiedBytes+24))
	defer mem.Add("results", -int64(len(s.In.Points))*(classifiedBytes+24))
	for i := range res.Candidates {
		res.Candidates[i] = Classified{Index: i, Class: points.Unknown, P: unknownP}
	}
	mem.Add("network weights", s.Net.WeightBytes())
	defer mem.Add("network weights", -s.Net.WeightBytes())
	if n := len(s.In.Points) - len(s.Order); n > 0 && len(order) == len(s.Order) {
		w := fmt.Sprintf("%d of %d candidates lie too near the volume's edge for a whole cube (cellfinder drops them): kept as unknown, not classified", n, len(s.In.Points))
		prog.Warn(w)
		res.Warnings = append(res.Warnings, w)
	}
	if s.Cfg.NormalizeChannels {
		if res.Norm, err = s.normalisation(ctx, prog); err != nil {
			return fail(err)
		}
	}
	ops, err := opsFor(be, OpsOptions{Precision: s.Cfg.Precision})
	if err != nil {
		return fail(err)
	}
	if err := ops.Prepare(s.Net, res.Batch); err != nil {
		return fail(err)
	}
	defer ops.Release()
	defer gpu.Bind(ctx, be, nil)()
	prog.Stage("classify", int64(len(order)), "cubes")
	if err := s.stream(ctx, prog, be, ops, res, order); err != nil {
		return fail(err)
	}
	for _, c := range res.Candidates {
		switch c.Class {
		case points.Cell:
			res.Cells++
		case points.NonCell:
			res.NonCells++
		default:
			res.Unknown++
		}
	}
	res.PeakDevice = be.Stats().Peak
	return res, nil
}

// SamplingStep returns the step between the planes cellfinder's
// dataset_mean_std samples of a volume of nz planes when asked for at
// least n (cellfinder/core/tools/image_processing.py): 1 when the
// volume has no more than n planes, else int(nz / n), so that it
// samples nz/step planes, n or more.
func SamplingStep(nz, n int) int {
	if nz <= n {
		return 1
	}
	return nz / n
}

// normalisation computes each channel's mean and sample standard
// deviation over planes 0, step, 2·step, ... (SamplingStep) as
// cellfinder's dataset_mean_std does: every voxel of each plane
// sampled, converted to float64 (get_data_converter(dtype, float64):
// unscaled for every type classification reads), the plane at once
// into Welford's online algorithm (count += plane; delta = x − mean;
// mean += Σdelta / count; M2 += Σ delta·(x − new mean)) and
// std = sqrt(M2 / (count − 1)).
func (s *Session) normalisation(ctx context.Context, prog *job.Progress) ([2]Norm, error) {
	if s.norm[0].On {
		return s.norm, nil
	}
	var out [2]Norm
	vols := []*volume.Volume{s.In.Signal, s.In.Background}[:s.Geo.Channels]
	nz := s.Geo.Shape[0]
	step := SamplingStep(nz, s.Cfg.NormSamplingPlanes)
	planes := (nz + step - 1) / step
	prog.Stage("normalise", int64(planes*len(vols)), "planes")
	for c, v := range vols {
		conv, err := converter64(v.Info.DType)
		if err != nil {
			return out, err
		}
		buf := s.Cfg.Memory.Bytes("normalisation plane", v.Info.PlaneBytes())
		var w welford
		x := make([]float64, v.Info.PlaneLen())
		for z := 0; z < nz; z += step {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			if err := v.ReadSlab(z, z+1, buf); err != nil {
				return out, fmt.Errorf("read plane %d of %s: %w", z, v.Name, err)
			}
			for i := range x {
				x[i] = conv(buf, i)
			}
			w.addPlane(x)
			prog.Add(1)
		}
		s.Cfg.Memory.Free("normalisation plane", buf)
		if w.count <= 1 {
			return out, fmt.Errorf("channel %d (%s): one voxel sampled is not enough to compute a standard deviation", c, v.Name)
		}
		std := math.Sqrt(w.m2 / float64(w.count-1))
		if !(std > 0) {
			return out, fmt.Errorf("channel %d (%s) is constant over the sampled planes: its standard deviation is 0, so it cannot be normalised", c, v.Name)
		}
		out[c] = Norm{Mean: w.mean, Std: std, On: true, Planes: planes}
	}
	s.norm = out
	return out, nil
}

// welford is Welford's online mean and variance fed a plane at a time,
// as cellfinder's dataset_mean_std feeds it (Chan et al.'s update for a
// batch, written as Welford's).
type welford struct {
	count    int
	mean, m2 float64
}

func (w *welford) addPlane(x []float64) {
	w.count += len(x)
	var d float64
	for _, v := range x {
		d += v - w.mean
	}
	old := w.mean
	w.mean += d / float64(w.count)
	var m2 float64
	for _, v := range x {
		m2 += (v - old) * (v - w.mean)
	}
	w.m2 += m2
}

// Normalise computes the channels' normalisation when the configuration
// asks for it (Run does it itself; EachCube needs it done first).
func (s *Session) Normalise(ctx context.Context, prog *job.Progress) error {
	if !s.Cfg.NormalizeChannels {
		return nil
	}
	_, err := s.normalisation(ctx, prog)
	return err
}

// slot is one batch of cubes in flight: written on the host (host), run
// from dev.
type slot struct {
	dev   *gpu.Buffer
	host  []float32
	stage *gpu.HostBuffer
	// wait waits for the upload of stage to dev (nil: none).
	wait func() error
	// idx are the candidates of the batch.
	idx []int
}

// stream runs the loader and the network over the candidates of order.
func (s *Session) stream(ctx context.Context, prog *job.Progress, be gpu.Backend, ops Ops, res *Result, order []int) error {
	batch := res.Batch
	cube := CubeLen(s.Net.Arch)
	direct := be.Name() == "cpu"
	var staging *gpu.Staging
	if !direct {
		var err error
		if staging, err = gpu.NewStaging(be, 2, int64(4*batch*cube), s.Cfg.PinMemory, s.Cfg.PinnedCap); err != nil {
			return err
		}
		defer staging.Close()
		if w := staging.Warning(); w != "" {
			prog.Warn(w)
			res.Warnings = append(res.Warnings, w)
		}
		res.Pinned = staging.Pinned()
	} else if s.Cfg.PinMemory {
		w := "pin_memory: the CPU backend uploads nothing, so pinning has no effect"
		prog.Warn(w)
		res.Warnings = append(res.Warnings, w)
	}
	free := make(chan *slot, 2)
	for range 2 {
		b, err := be.Alloc("cube batches", int64(4*batch*cube))
		if err != nil {
			return err
		}
		defer be.Free(b)
		sl := &slot{dev: b}
		if direct {
			sl.host = f32(b.HostBytes())
		}
		free <- sl
	}
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ld, err := s.newLoader(be, order, batch)
	if err != nil {
		return err
	}
	defer ld.release()
	full := make(chan *slot)
	var loadErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(full)
		loadErr = ld.run(lctx, free, full, staging)
	}()
	probs := s.Cfg.Memory.Bytes("probabilities (2 batches)", int64(2*8*batch))
	defer s.Cfg.Memory.Free("probabilities (2 batches)", probs)
	p := f32(probs)[:2*batch]
	var runErr error
	for sl := range full {
		if runErr == nil {
			runErr = s.forward(ctx, be, ops, sl, p, res, staging)
		}
		if runErr != nil {
			cancel()
		} else {
			prog.Add(int64(len(sl.idx)))
			prog.Memory(be.Stats().Peak, 0)
			if s.Live {
				prog.Partial(s.livePoints(res, sl.idx))
			}
		}
		if sl.wait != nil {
			sl.wait() // a failed batch: its upload must end before reuse
			sl.wait = nil
		}
		if sl.stage != nil {
			staging.Put(sl.stage)
			sl.stage = nil
		}
		free <- sl
	}
	<-done
	if runErr != nil {
		return runErr
	}
	if loadErr != nil && !errors.Is(loadErr, context.Canceled) {
		return loadErr
	}
	return ctx.Err()
}

// forward runs one batch (uploading it first on a GPU) and files its
// probabilities.
func (s *Session) forward(ctx context.Context, be gpu.Backend, ops Ops, sl *slot, p []float32, res *Result, staging *gpu.Staging) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n := len(sl.idx)
	if sl.wait != nil {
		err := sl.wait()
		sl.wait = nil
		if err != nil {
			return err
		}
	}
	if err := ops.Forward(p, sl.dev, n); err != nil {
		return err
	}
	for j, i := range sl.idx {
		c := &res.Candidates[i]
		c.P = p[2*j+1]
		c.Class = classOf(p[2*j : 2*j+2])
	}
	return nil
}
