package main

import (
	"context"
	"fmt"
	"time"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/dezing"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
)

// voxlab dezing IN OUT --task i/N dezings task i's share of the
// projections into a part file (cluster.PartsDir(OUT)); voxlab merge
// dezing IN OUT --tasks N reduces the darks and flats, applies the
// flat-field when asked, and writes OUT exactly as voxlab dezing would.
// See dezing.RunTask for why the darks and flats are left to the merge.

func init() { registerMerge("dezing", mergeVia(setupDezing)) }

// dezingRun is what a dezing part belongs to: what the task's projections
// depend on. The darks, flats and flat-field settings are the merge's.
type dezingRun struct {
	Input       string  `json:"input"`
	Projections string  `json:"projections"`
	Kernel      int     `json:"kernel"`
	Dif         float64 `json:"dif"`
	Range       [2]int  `json:"range"`
}

func (f *dezingFlags) partHeader(s *scan, shapes dezing.Shapes, t cluster.Task) (cluster.PartHeader, error) {
	lo, hi := dezing.TaskRange(shapes, f.cfg, t)
	p := shapes.Projections
	return cluster.NewPartHeader("dezing", t, dezingRun{
		Input: absSpec(s.name), Projections: fmt.Sprintf("%dx%dx%d %s", p.Shape[0], p.Shape[1], p.Shape[2], p.DType),
		Kernel: f.cfg.Kernel, Dif: f.cfg.Dif, Range: [2]int{lo, hi},
	})
}

// partOutput writes a task's projections, in order, into its part.
type partOutput struct {
	w    *cluster.PartWriter
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

// planTask plans task t of voxlab dezing: its projections alone.
func (f *dezingFlags) planTask(ctx context.Context, e *env, args []string, t cluster.Task) (*plan.Plan, error) {
	r, err := f.open(args, false)
	if err != nil {
		return nil, err
	}
	defer r.close()
	if lo, hi := dezing.TaskRange(r.shapes, f.cfg, t); lo == hi {
		z0, z1 := dezing.TaskRange(r.shapes, f.cfg, cluster.Whole)
		return emptyTaskPlan("dezing", t, f.cfg.Budget, fmt.Sprintf("%d tasks share %s", t.Count, plural(z1-z0, "projection"))), nil
	}
	pl, err := dezing.TaskPlan(r.be, r.shapes, f.cfg, t)
	if err != nil {
		return nil, err
	}
	return taskPlan("dezing", t, pl), nil
}

// runTask runs task t of voxlab dezing.
func (f *dezingFlags) runTask(ctx context.Context, e *env, args []string, t cluster.Task) error {
	r, err := f.open(args, true)
	if err != nil {
		return err
	}
	defer r.close()
	lo, hi := dezing.TaskRange(r.shapes, f.cfg, t)
	if lo < hi {
		if _, err := dezing.TaskPlan(r.be, r.shapes, f.cfg, t); err != nil {
			return err
		}
	}
	h, err := f.partHeader(r.s, r.shapes, t)
	if err != nil {
		return err
	}
	start := time.Now()
	var path string
	err = runJob(ctx, e, f.out, "dezing "+t.String(), r.note, func(ctx context.Context, p *job.Progress) error {
		var err error
		path, err = writePart(r.out, "dezing", t, h, func(w *cluster.PartWriter) error {
			out := &partOutput{w: w, next: 0, pb: r.shapes.Projections.PlaneBytes()}
			if _, err := dezing.RunTask(ctx, p, r.be, f.cfg, r.s.in, t, out); err != nil {
				return err
			}
			if out.next != hi-lo {
				return fmt.Errorf("task %s wrote %d of its %d projections", t, out.next, hi-lo)
			}
			return nil
		})
		return err
	})
	if err != nil {
		return err
	}
	return taskDone(e, f.out, t, path, time.Since(start), map[string]any{"projections": [2]int{lo, hi}},
		fmt.Sprintf("dezing task %s: projections %d to %d", t, lo, hi))
}

// merge joins the N tasks' parts into OUT.
func (f *dezingFlags) merge(ctx context.Context, e *env, args []string, tasks int) error {
	r, err := f.open(args, true)
	if err != nil {
		return err
	}
	defer r.close()
	if _, err := dezing.MergePlan(r.be, r.shapes, f.cfg); err != nil {
		return err
	}
	dir := cluster.PartsDir(r.out)
	parts, err := f.openParts(r, dir, tasks)
	if err != nil {
		return err
	}
	defer parts.Close()
	start := time.Now()
	var res *dezing.Result
	err = runJob(ctx, e, f.out, "merge dezing", r.note, func(ctx context.Context, p *job.Progress) error {
		// The output is the one voxlab dezing writes, byte for byte
		// (TestDezingTasksMerge): block_slices records the block the
		// whole run plans here; where not even one block fits, the
		// merge's.
		block := 0
		if whole, err := dezing.Plan(r.be, r.shapes, f.cfg); err == nil {
			block = whole.Block()
		}
		var err error
		res, err = f.write(ctx, r, block, func(out dezing.Output) (*dezing.Result, error) {
			return dezing.Merge(ctx, p, r.be, f.cfg, r.s.in, parts, out)
		})
		return err
	})
	if err != nil {
		return err
	}
	parts.Close()
	removeParts(e, f.out, dir, "dezing", tasks)
	return f.report(e, r, res, time.Since(start), tasks)
}

// openParts opens every task's part and checks it belongs to this run.
func (f *dezingFlags) openParts(r *dezingSetup, dir string, tasks int) (*partStack, error) {
	var parts []*cluster.Part
	var planes []int
	err := eachPart(dir, "dezing", tasks, func(t cluster.Task) (cluster.PartHeader, error) {
		return f.partHeader(r.s, r.shapes, t)
	}, func(t cluster.Task, p *cluster.Part) error {
		parts = append(parts, p)
		lo, hi := dezing.TaskRange(r.shapes, f.cfg, t)
		planes = append(planes, hi-lo)
		return nil
	})
	var st *partStack
	if err == nil {
		st, err = newPartStack(parts, planes, r.shapes.Projections)
	}
	if err != nil {
		closeParts(parts)
		return nil, err
	}
	return st, nil
}
