package dezing

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/task"
	"github.com/voxlab/voxlab/processing/volume"
)

// `voxlab dezing IN OUT --task i/N` dezings task i's share of the
// projections (TaskRange) into a part: the dezinged projections, in the
// input's type, plane after plane, then the task's noise sample (the
// differences from the local median at the sampled voxels, float64),
// and two little-endian uint64s: the sample's length and how many
// voxels the median replaced. The merge adds the counts up and joins the
// samples, which are the whole run's (the sampled voxels are chosen by
// their index in the whole stack). `voxlab merge dezing IN OUT --tasks N`
// reduces the darks and flats, applies the flat-field when asked, and
// writes OUT exactly as voxlab dezing would (see RunTask for why the
// darks and flats are left to the merge).

// partRun is what a dezing part belongs to: what the task's projections
// depend on. The darks, flats and flat-field settings are the merge's.
type partRun struct {
	Input       string  `json:"input"`
	Projections string  `json:"projections"`
	Kernel      int     `json:"kernel"`
	Dif         float64 `json:"dif"`
	Range       [2]int  `json:"range"`
}

func (j *scanJob) PartRun(t task.Task) (any, error) {
	lo, hi := TaskRange(j.shapes, j.cfg, t)
	p := j.shapes.Projections
	return partRun{
		Input: pipeline.AbsSpec(j.s.name), Projections: fmt.Sprintf("%dx%dx%d %s", p.Shape[0], p.Shape[1], p.Shape[2], p.DType),
		Kernel: j.cfg.Kernel, Dif: j.cfg.Dif, Range: [2]int{lo, hi},
	}, nil
}

// TaskPlan plans task t: its projections alone.
func (j *scanJob) TaskPlan(d pipeline.Device, t task.Task) (*plan.Plan, error) {
	c := j.cfg
	c.Budget = d.Budget
	if lo, hi := TaskRange(j.shapes, c, t); lo == hi {
		z0, z1 := TaskRange(j.shapes, c, task.Whole)
		return pipeline.EmptyTaskPlan(t, c.Budget, fmt.Sprintf("%d tasks share %s", t.Count, pipeline.Plural(z1-z0, "projection"))), nil
	}
	return TaskPlan(d.Backend, j.shapes, c, t)
}

// partOutput writes a task's projections, in order, into its part.
type partOutput struct {
	w    io.Writer
	next int
	pb   int64
}

func (o *partOutput) Frames(dark, flat []float32) error { return nil }

func (o *partOutput) Slab(z0 int, data []byte) error {
	if z0 != o.next {
		return fmt.Errorf("projections %d… handed out before %d…", z0, o.next)
	}
	o.next += int(int64(len(data)) / o.pb)
	_, err := o.w.Write(data)
	return err
}

// RunTask runs task t into w, its part.
func (j *scanJob) RunTask(ctx context.Context, p *job.Progress, d pipeline.Device, t task.Task, w io.Writer) (*pipeline.TaskReport, error) {
	c := j.cfg
	c.Budget = d.Budget
	lo, hi := TaskRange(j.shapes, c, t)
	out := &partOutput{w: w, pb: j.shapes.Projections.PlaneBytes()}
	res, err := RunTask(ctx, p, d.Backend, c, j.s.in, t, out)
	if err != nil {
		return nil, err
	}
	if out.next != hi-lo {
		return nil, fmt.Errorf("task %s wrote %d of its %d projections", t, out.next, hi-lo)
	}
	var diffs []float64
	if ns := res.noise[StageProjections]; ns != nil {
		diffs = ns.diffs
	}
	trailer := make([]byte, 0, 8*len(diffs)+partTrailer)
	for _, d := range diffs {
		trailer = binary.LittleEndian.AppendUint64(trailer, math.Float64bits(d))
	}
	trailer = binary.LittleEndian.AppendUint64(trailer, uint64(len(diffs)))
	trailer = binary.LittleEndian.AppendUint64(trailer, uint64(res.Replaced.Projections))
	if _, err := w.Write(trailer); err != nil {
		return nil, err
	}
	return &pipeline.TaskReport{Fields: map[string]any{"projections": [2]int{lo, hi}, "replaced": res.Replaced.Projections},
		What: fmt.Sprintf("dezing task %s: projections %d to %d, %d voxels replaced", t, lo, hi, res.Replaced.Projections)}, nil
}

// Merge joins the tasks' parts into OUT.
func (j *scanJob) Merge(ctx context.Context, p *job.Progress, d pipeline.Device, parts []*cluster.Part) (*pipeline.Report, error) {
	c := j.cfg
	c.Budget = d.Budget
	if _, err := MergePlan(d.Backend, j.shapes, c); err != nil {
		return nil, err
	}
	planes := make([]int, len(parts))
	for i := range parts {
		lo, hi := TaskRange(j.shapes, c, task.Task{Index: i, Count: len(parts)})
		planes[i] = hi - lo
	}
	st, err := newPartStack(parts, planes, j.shapes.Projections)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	// The output is the one voxlab dezing writes, byte for byte: its
	// block_slices records the block the whole run plans here; where not
	// even one block fits, the merge's.
	block := 0
	if whole, err := Plan(d.Backend, j.shapes, c); err == nil {
		block = whole.Block()
	}
	res, err := j.write(ctx, d.Backend.Name(), block, func(out Output) (*Result, error) {
		return Merge(ctx, p, d.Backend, c, j.s.in, st, out)
	})
	if err != nil {
		return nil, err
	}
	return j.report(res, d.Backend.Name(), time.Since(start), len(parts)), nil
}

// partStack reads the payloads of parts holding consecutive planes of
// one volume (a task's projections each) as one volume.Source. Closing
// it leaves the parts open: their owner closes them.
type partStack struct {
	info   volume.Info
	parts  []*cluster.Part
	starts []int // first plane of each part; starts[len(parts)] = total
	// replaced is the sum of the parts' counts of replaced voxels, noise
	// their noise samples, joined.
	replaced int64
	noise    []float64
}

// partTrailer is the size of the two counts that end a part's payload.
const partTrailer = 16

func newPartStack(parts []*cluster.Part, planes []int, plane volume.Info) (*partStack, error) {
	s := &partStack{parts: parts, info: plane, starts: []int{0}}
	pb := plane.PlaneBytes()
	for i, p := range parts {
		if err := s.readTrailer(p, int64(planes[i])*pb, planes[i]); err != nil {
			return nil, err
		}
		s.starts = append(s.starts, s.starts[i]+planes[i])
	}
	s.info.Shape[0] = s.starts[len(parts)]
	return s, nil
}

// readTrailer reads what follows the planes bytes of part p's planes
// planes: its noise sample and its count of replaced voxels.
func (s *partStack) readTrailer(p *cluster.Part, planes int64, n int) error {
	damaged := func(what string) error {
		return fmt.Errorf("part %s holds %d bytes, %s after its %d planes (%d bytes): it is damaged or of an older voxlab; run its task again", p.Path(), p.Size(), what, n, planes)
	}
	var t [partTrailer]byte
	if p.Size() < planes+partTrailer {
		return damaged("too few for the counts")
	}
	if _, err := p.Payload().ReadAt(t[:], p.Size()-partTrailer); err != nil {
		return fmt.Errorf("read %s: %w", p.Path(), err)
	}
	samples := binary.LittleEndian.Uint64(t[:8])
	if samples > uint64(p.Size()) || p.Size() != planes+8*int64(samples)+partTrailer {
		return damaged(fmt.Sprintf("not the noise sample of %d values and the counts", samples))
	}
	raw := make([]byte, 8*samples)
	if _, err := p.Payload().ReadAt(raw, planes); err != nil && samples > 0 {
		return fmt.Errorf("read %s: %w", p.Path(), err)
	}
	for i := range samples {
		s.noise = append(s.noise, math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:])))
	}
	s.replaced += int64(binary.LittleEndian.Uint64(t[8:]))
	return nil
}

func (s *partStack) Info() volume.Info { return s.info }

func (s *partStack) ReadSlab(z0, z1 int, dst []byte) error {
	if err := volume.CheckSlab(s.info, z0, z1, len(dst)); err != nil {
		return err
	}
	pb := s.info.PlaneBytes()
	for i, p := range s.parts {
		lo, hi := max(z0, s.starts[i]), min(z1, s.starts[i+1])
		if lo >= hi {
			continue
		}
		d := dst[int64(lo-z0)*pb : int64(hi-z0)*pb]
		if n, err := p.Payload().ReadAt(d, int64(lo-s.starts[i])*pb); n < len(d) {
			return fmt.Errorf("read %s: %w", p.Path(), err)
		}
	}
	return nil
}

func (s *partStack) Close() error { return nil }

// Replaced returns how many projection voxels the tasks replaced, and
// their noise sample.
func (s *partStack) Replaced() (int64, []float64) { return s.replaced, s.noise }
