package dezing

import (
	"context"
	"fmt"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/task"
	"github.com/voxlab/voxlab/processing/volume"
)

// A run splits into independent cluster tasks by ranges of projections
// (TaskRange): task t dezings its own projections, reading the halo frames
// on either side from the input, and hands them on as they are (RunTask).
// The merge (Merge) dezings and reduces the darks and flats — once, and in
// the merge rather than in a task, so that no task waits for another —
// then reads the tasks' projections in order and applies the flat-field
// correction and −log, which need the reduced frames, as it writes them.
// The median of a projection depends only on the frames within the
// kernel's reach, which a task reads whatever its range, and the
// flat-field is per voxel, so the merged output is exactly the
// single-process one (TestTasksMergeToWhole).

// StageMerge is the merge's phase and progress stage: the tasks'
// projections copied to the output, corrected when asked.
const StageMerge = "merge projections"

// TaskRange returns the projections [lo, hi) task t of a split run
// handles: its share of the run's projections (Config.Range, or all). It
// is empty when there are more tasks than projections.
func TaskRange(s Shapes, c Config, t task.Task) (lo, hi int) {
	z0, z1 := c.span(s)
	a, b := t.Range(z1 - z0)
	return z0 + a, z0 + b
}

// TaskConfig is the config task t runs with: its range, without the
// flat-field correction and −log (the merge applies them).
func TaskConfig(s Shapes, c Config, t task.Task) Config {
	tc := c
	tc.Range[0], tc.Range[1] = TaskRange(s, c, t)
	tc.FlatField, tc.MinusLog = false, false
	// A task writes a part, not the output, whose size the merge checks.
	tc.Output = ""
	return tc
}

// TaskPlan is the plan of task t of a split run, which has projections
// (TaskRange is not empty): RunTask's, over the task's projections
// alone, without the flat-field correction.
func TaskPlan(be gpu.Backend, s Shapes, c Config, t task.Task) (*plan.Plan, error) {
	return Plan(be, Shapes{Projections: s.Projections, Readers: s.Readers}, TaskConfig(s, c, t))
}

// RunTask runs task t of a split run: it dezings the task's projections of
// in into out (Output.Slab gets them in order, counted from the task's
// first projection; Frames gets nil frames) and leaves the darks and
// flats to the merge. A task with no projections checks the inputs and
// writes nothing; its Result has no plan.
func RunTask(ctx context.Context, p *job.Progress, be gpu.Backend, cfg Config, in Input, t task.Task, out Output) (*Result, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	s := in.Shapes()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := s.Check(cfg); err != nil {
		return nil, err
	}
	lo, hi := TaskRange(s, cfg, t)
	if lo == hi {
		p.Stage(StageProjections, 0, "slices")
		return &Result{}, nil
	}
	return Run(ctx, p, be, TaskConfig(s, cfg, t), Input{Projections: in.Projections}, out)
}

// MergePlan describes the memory of a merge: the darks and flats phases
// of the run (Plan), then the merge phase, which holds a block of the
// tasks' projections read on the host and, with the flat-field, that
// block, the reduced frames, the float32 result (unless the input is
// float32, corrected in place) and the scratch on the device, and the
// downloaded result on the host.
func MergePlan(be gpu.Backend, s Shapes, c Config) (*plan.Plan, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := s.Check(c); err != nil {
		return nil, err
	}
	s = s.kernelTypes()
	ops, err := OpsFor(be)
	if err != nil {
		return nil, err
	}
	return choose("dezing merge", s, c, func(reading []plan.Array) []plan.Phase {
		all := phases(ops, s, c, reading)
		return append(all[:len(all)-1], mergePhase(ops, s, c))
	})
}

// mergePhase is the merge's last phase, in place of the projections.
func mergePhase(ops Ops, s Shapes, c Config) plan.Phase {
	frames := int64(0)
	frameLen := int64(s.Projections.PlaneLen())
	for _, set := range []bool{s.HasDarks(), s.HasFlats()} {
		if set {
			frames += frameLen * 4
		}
	}
	p := s.Projections
	z0, z1 := c.span(s)
	fb := p.PlaneBytes()
	arrays := []plan.Array{
		{Name: "parts block", Where: plan.Host, PerUnit: fb},
		{Name: "reduced frames", Where: plan.Host, Fixed: frames},
	}
	if c.FlatField {
		arrays = append(arrays,
			plan.Array{Name: "dezinged block", Where: plan.Device, PerUnit: fb},
			plan.Array{Name: "dark frame", Where: plan.Device, Fixed: frameLen * 4},
			plan.Array{Name: "flat frame", Where: plan.Device, Fixed: frameLen * 4},
			plan.Array{Name: "flat-field scratch", Where: plan.Device, Fixed: ops.FlatFieldScratch(flatParams(p, c, 1))},
			plan.Array{Name: "download", Where: plan.Host, PerUnit: frameLen * 4})
		if p.DType != volume.Float32 {
			arrays = append(arrays, plan.Array{Name: "flat-field output", Where: plan.Device, PerUnit: frameLen * 4})
		}
	}
	return plan.Phase{Name: StageMerge, Units: z1 - z0, Unit: "slices", Block: c.Block, Arrays: arrays}
}

// Merge finishes a split run. parts holds the tasks' projections, in
// order: the dezinged projections of the whole run (as RunTask wrote
// them, task after task), of the input's type and shape. Merge dezings
// and reduces the darks and flats of in, then hands out exactly what Run
// would: the same frames, then the same projections — corrected, when
// cfg asks, with the same flat-field step — and the same warnings.
func Merge(ctx context.Context, p *job.Progress, be gpu.Backend, cfg Config, in Input, parts volume.Source, out Output) (*Result, error) {
	in, err := in.kernel()
	if err != nil {
		return nil, err
	}
	s := in.Shapes()
	pl, err := MergePlan(be, s, cfg)
	if err != nil {
		return nil, err
	}
	z0, z1 := cfg.span(s)
	want := s.Projections
	want.Shape[0] = z1 - z0
	if got := parts.Info(); got.Shape != want.Shape || got.DType != want.DType {
		return nil, fmt.Errorf("the tasks' projections are %v %s, the run's %v %s", got.Shape, got.DType, want.Shape, want.DType)
	}
	r, err := newRun(ctx, p, be, cfg, pl)
	if err != nil {
		return nil, err
	}
	defer s.readers(cfg).Apply(pl.Choice, cfg.Track)()
	return r.execute(in, out, func(r *run) error { return r.mergeProjections(parts, out) })
}

// mergeProjections copies the tasks' projections to out block by block,
// through the device's flat-field step when the config asks for it.
func (r *run) mergeProjections(parts volume.Source, out Output) error {
	info := parts.Info()
	r.res.Voxels.Projections = info.Len()
	if c, ok := parts.(interface{ Replaced() (int64, []float64) }); ok {
		var diffs []float64
		r.res.Replaced.Projections, diffs = c.Replaced()
		r.res.noise[StageProjections] = &noiseSample{integer: info.DType != volume.Float32, diffs: diffs}
	}
	n, fb := info.Shape[0], info.PlaneBytes()
	block := r.phase(StageMerge).Block
	read := make([]byte, int64(block)*fb)
	var ff func(*gpu.Buffer, int) (*gpu.Buffer, error)
	var dev *gpu.Buffer
	var download []byte
	if r.cfg.FlatField {
		var bufs buffers
		bufs.be = r.be
		defer bufs.free()
		var err error
		if dev, err = bufs.alloc("dezinged block", int64(block)*fb); err != nil {
			return err
		}
		if ff, err = r.flatField(&bufs, info, block); err != nil {
			return err
		}
		download = make([]byte, int64(block)*int64(info.PlaneLen())*4)
	}
	r.p.Stage(StageMerge, int64(n), "slices")
	for i0 := 0; i0 < n; i0 += block {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		i1 := min(i0+block, n)
		data := read[:int64(i1-i0)*fb]
		if err := parts.ReadSlab(i0, i1, data); err != nil {
			return fmt.Errorf("read the tasks' projections %d-%d: %w", i0, i1, err)
		}
		if ff != nil {
			if err := r.be.Upload(dev, 0, data); err != nil {
				return fmt.Errorf("%s: %w", StageMerge, err)
			}
			res, err := ff(dev, i1-i0)
			if err != nil {
				return err
			}
			up := int64(len(data))
			data = download[:int64(i1-i0)*int64(info.PlaneLen())*4]
			if err := r.be.Download(data, res, 0); err != nil {
				return fmt.Errorf("%s: %w", StageMerge, err)
			}
			r.transfer(up, int64(len(data)))
		}
		if err := out.Slab(i0, data); err != nil {
			return fmt.Errorf("write projections %d-%d: %w", i0, i1, err)
		}
		r.p.Add(int64(i1 - i0))
	}
	return r.ctx.Err()
}
