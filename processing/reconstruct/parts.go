package reconstruct

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/task"
)

// `voxlab reconstruct SCAN OUT --task i/N` reconstructs task i's share of
// the output's planes (task.Range over the rows, or the sweep's centres)
// into a part: float32 slices, plane after plane. Each task computes the
// darks' and flats' means, and with --center auto the centre, as a whole
// run does (the same rows, so the same centre). `voxlab merge
// reconstruct SCAN OUT --tasks N` writes the parts' planes, in order,
// into OUT: the output a whole run writes, byte for byte.

// partRun is what a part belongs to: the inputs as given, their shape,
// and every setting the slices depend on, with the task's range.
type partRun struct {
	Input       string         `json:"input"`
	Darks       string         `json:"darks"`
	Flats       string         `json:"flats"`
	Angles      string         `json:"angles"`
	Projections string         `json:"projections"`
	Rows        [2]int         `json:"rows"`
	Center      string         `json:"center"`
	Sweep       []float64      `json:"center_sweep,omitempty"`
	Algorithm   string         `json:"algorithm"`
	Filter      string         `json:"filter"`
	Stripes     string         `json:"stripes"`
	StripeSize  int            `json:"stripe_size"`
	Pad         string         `json:"pad"`
	MaskRadius  float64        `json:"mask_radius"`
	Paganin     *PaganinParams `json:"paganin,omitempty"`
	Range       [2]int         `json:"range"`
}

// taskRange is the output planes task t writes.
func (j *reconJob) taskRange(t task.Task) (lo, hi int) { return t.Range(j.outInfo().Shape[0]) }

func (j *reconJob) PartRun(t task.Task) (any, error) {
	lo, hi := j.taskRange(t)
	v := j.s.proj
	return partRun{
		Input: pipeline.AbsSpec(j.s.name), Darks: j.s.darksFrom, Flats: j.s.flatsFrom, Angles: j.anglesFrom,
		Projections: fmt.Sprintf("%dx%dx%d %s", v.Shape[0], v.Shape[1], v.Shape[2], v.DType),
		Rows:        [2]int{j.from, j.to}, Center: j.centerArg, Sweep: j.cfg.Sweep, Algorithm: j.cfg.algorithm(),
		Filter: j.cfg.Filter.String(), Stripes: j.cfg.Stripes, StripeSize: j.cfg.StripeSize,
		Pad: j.cfg.Pad, MaskRadius: j.cfg.MaskRadius, Paganin: j.cfg.Paganin, Range: [2]int{lo, hi},
	}, nil
}

// TaskPlan plans task t: its planes, written to its part (no writer of
// OUT).
func (j *reconJob) TaskPlan(d pipeline.Device, t task.Task) (*plan.Plan, error) {
	lo, hi := j.taskRange(t)
	if lo == hi {
		n := j.outInfo().Shape[0]
		return pipeline.EmptyTaskPlan(t, d.Budget, fmt.Sprintf("%d tasks share %s", t.Count, pipeline.Plural(n, "slice"))), nil
	}
	phases := j.phasesOn(d.Backend)
	main := &phases[len(phases)-1]
	main.Units, main.Align = hi-lo, 1
	kept := main.Arrays[:0]
	for _, a := range main.Arrays {
		if a.Name != "writer buffers" {
			kept = append(kept, a)
		}
	}
	main.Arrays = kept
	return plan.Make(fmt.Sprintf("reconstruct task %s", t), phases, d.Budget)
}

// partWriter writes a task's planes, in order, into its part.
type partWriter struct {
	w    io.Writer
	next int
	pb   int
}

func (o *partWriter) WriteLevel(level, z0 int, src []byte) error {
	if z0 != o.next {
		return fmt.Errorf("slices %d… handed out before %d…", z0, o.next)
	}
	o.next += len(src) / o.pb
	_, err := o.w.Write(src)
	return err
}

// RunTask runs task t into w, its part.
func (j *reconJob) RunTask(ctx context.Context, p *job.Progress, d pipeline.Device, t task.Task, w io.Writer) (*pipeline.TaskReport, error) {
	lo, hi := j.taskRange(t)
	what := fmt.Sprintf("reconstruct task %s: slices %d to %d", t, lo, hi)
	if lo == hi {
		return &pipeline.TaskReport{Fields: map[string]any{"slices": [2]int{lo, hi}}, What: what}, nil
	}
	pl, err := j.TaskPlan(d, t)
	if err != nil {
		return nil, err
	}
	j.be = d.Backend
	out := &partWriter{w: w, next: lo, pb: int(j.outInfo().PlaneBytes())}
	if _, err := j.compute(ctx, p, pl.Block(), lo, hi, out); err != nil {
		return nil, err
	}
	if out.next != hi {
		return nil, fmt.Errorf("task %s wrote slices %d to %d of %d to %d", t, lo, out.next, lo, hi)
	}
	return &pipeline.TaskReport{Fields: map[string]any{"slices": [2]int{lo, hi}, "center": j.center}, What: what}, nil
}

// Merge writes the tasks' parts, in order, into OUT, in the whole run's
// blocks; with --center auto it finds the centre again for the report.
func (j *reconJob) Merge(ctx context.Context, p *job.Progress, d pipeline.Device, parts []*cluster.Part) (*pipeline.Report, error) {
	start := time.Now()
	pl, err := j.Plan(d)
	if err != nil {
		return nil, err
	}
	block := j.blockOf(pl)
	info := j.outInfo()
	pb := info.PlaneBytes()
	starts := []int{0}
	for i, part := range parts {
		lo, hi := j.taskRange(task.Task{Index: i, Count: len(parts)})
		if want := int64(hi-lo) * pb; part.Size() != want {
			return nil, fmt.Errorf("part %s holds %d bytes, want %d (%d slices): it is damaged; run its task again", part.Path(), part.Size(), want, hi-lo)
		}
		starts = append(starts, hi)
	}
	centre := "given"
	if j.cfg.AutoCenter {
		if err := j.means(ctx, p); err != nil {
			return nil, err
		}
		if err := j.findCenter(ctx, p); err != nil {
			return nil, err
		}
		centre = "auto (Vo's method)"
	} else if j.cfg.Sweep != nil {
		centre = "sweep"
	} else if j.centerArg == "" {
		centre = "columns/2"
	}
	w, err := j.create(centre)
	if err != nil {
		return nil, err
	}
	defer w.abort()
	buf := make([]byte, int64(block)*pb)
	p.Stage("merging into "+j.out, int64(info.Shape[0]), "slices")
	for z0 := 0; z0 < info.Shape[0]; z0 += block {
		z1 := min(z0+block, info.Shape[0])
		if err := readParts(buf[:int64(z1-z0)*pb], parts, starts, z0, z1, pb); err != nil {
			return nil, err
		}
		if err := w.WriteLevel(0, z0, buf[:int64(z1-z0)*pb]); err != nil {
			return nil, err
		}
		p.Add(int64(z1 - z0))
	}
	if err := w.commit(ctx); err != nil {
		return nil, err
	}
	return j.report(block, centre, time.Since(start), len(parts)), nil
}

// readParts reads planes [z0, z1) of the parts, part i holding planes
// starts[i]…starts[i+1], into dst.
func readParts(dst []byte, parts []*cluster.Part, starts []int, z0, z1 int, pb int64) error {
	for i, part := range parts {
		lo, hi := max(z0, starts[i]), min(z1, starts[i+1])
		if lo >= hi {
			continue
		}
		d := dst[int64(lo-z0)*pb : int64(hi-z0)*pb]
		if n, err := part.Payload().ReadAt(d, int64(lo-starts[i])*pb); n < len(d) {
			return fmt.Errorf("read %s: %w", part.Path(), err)
		}
	}
	return nil
}

var _ pipeline.Splitter = (*reconJob)(nil)
