package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// A pipeline that splits into cluster tasks returns splitPipeline's
// planner and runner from its setup (which declares --task), and registers its merge with
// mergeVia: then `voxlab PIPELINE … --task i/N` runs one task, `voxlab
// merge PIPELINE … --tasks N` joins them, and `voxlab submit slurm
// PIPELINE` accepts it. The merge declares exactly the pipeline's flags
// (it is the pipeline's own setup), so the merge job can be given the
// tasks' arguments unchanged.

type mergeKey struct{}

// withMerge marks ctx as the merge of tasks tasks: the pipeline's runner
// then merges instead of running.
func withMerge(ctx context.Context, tasks int) context.Context {
	return context.WithValue(ctx, mergeKey{}, tasks)
}

func mergeTasks(ctx context.Context) int {
	n, _ := ctx.Value(mergeKey{}).(int)
	return n
}

// taskFunc runs one task of a split pipeline, taskPlanFunc plans it;
// mergeTaskFunc joins the tasks' parts.
type (
	taskFunc      func(ctx context.Context, e *env, args []string, t cluster.Task) error
	taskPlanFunc  func(ctx context.Context, e *env, args []string, t cluster.Task) (*plan.Plan, error)
	mergeTaskFunc func(ctx context.Context, e *env, args []string, tasks int) error
)

// splitFuncs are what a split pipeline does: plan and run the whole run
// or one task, and merge the tasks' parts.
type splitFuncs struct {
	plan     planFunc
	planTask taskPlanFunc
	run      runFunc
	runTask  taskFunc
	merge    mergeTaskFunc
}

// splitPipeline declares --task on fs and returns the pipeline's planner
// and runner: the whole run's without --task, one task's with it (so
// `voxlab plan PIPELINE … --task i/N` plans that task's share), and, for
// the runner, the merge when `voxlab merge` calls it (mergeVia).
func splitPipeline(fs *flag.FlagSet, s splitFuncs) (planFunc, runFunc) {
	t := addTaskFlag(fs)
	planFn := func(ctx context.Context, e *env, args []string) (*plan.Plan, error) {
		if t.Count != 0 {
			return s.planTask(ctx, e, args, t.Task)
		}
		return s.plan(ctx, e, args)
	}
	runFn := func(ctx context.Context, e *env, args []string) error {
		if n := mergeTasks(ctx); n > 0 {
			if t.Count != 0 {
				return usagef("merge joins every task: give --tasks N, not --task")
			}
			return s.merge(ctx, e, args, n)
		}
		// An explicit --task 0/1 is a task too: its part is what the merge
		// of a one-task submission reads.
		if t.Count != 0 {
			return s.runTask(ctx, e, args, t.Task)
		}
		return s.run(ctx, e, args)
	}
	return planFn, runFn
}

// taskPlan names the plan of task t of pipeline.
func taskPlan(pipeline string, t cluster.Task, pl *plan.Plan) *plan.Plan {
	pl.Pipeline = fmt.Sprintf("%s task %s", pipeline, t)
	return pl
}

// emptyTaskPlan is the plan of a task with nothing to do (more tasks
// than work): no phases, and a warning saying why.
func emptyTaskPlan(pipeline string, t cluster.Task, b plan.Budget, why string) *plan.Plan {
	return taskPlan(pipeline, t, &plan.Plan{Budget: b,
		Warnings: []string{fmt.Sprintf("task %s has nothing to do: %s; it writes an empty part", t, why)}})
}

// plural is "1 tile" or "2 tiles".
func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// mergeVia makes a pipeline's merge step from its setup, whose runner
// came from splitPipeline.
func mergeVia(setup func(fs *flag.FlagSet, out *outputFlags) (planFunc, runFunc)) func(fs *flag.FlagSet, out *outputFlags) mergeFunc {
	return func(fs *flag.FlagSet, out *outputFlags) mergeFunc {
		_, run := setup(fs, out)
		return func(ctx context.Context, e *env, args []string, tasks int) error {
			return run(withMerge(ctx, tasks), e, args)
		}
	}
}

// absSpec makes a volume spec's path absolute (keeping a :/dataset), so
// that a task and a merge run from different folders agree on the input.
func absSpec(spec string) string {
	path, ds := volume.SplitSpec(spec)
	abs, err := filepath.Abs(path)
	if err != nil {
		return spec
	}
	if ds != "" {
		return abs + ":" + ds
	}
	return abs
}

// removeParts deletes a merged run's parts; failing to is only a warning,
// the output being complete.
func removeParts(e *env, out *outputFlags, dir, pipeline string, tasks int) {
	if err := cluster.RemoveParts(dir, pipeline, tasks); err != nil && !out.quiet {
		fmt.Fprintf(e.stderr, "merge %s: warning: could not remove the parts: %v\n", pipeline, err)
	}
}

// taskDone reports what task t did: one JSON line of fields, the task,
// its part and seconds with --json, else what ("dezing task 1/4:
// projections 10 to 20") with the time and the part.
func taskDone(e *env, out *outputFlags, t cluster.Task, part string, took time.Duration, fields map[string]any, what string) error {
	if out.json {
		fields["task"], fields["part"], fields["seconds"] = t.String(), part, took.Seconds()
		return json.NewEncoder(e.stdout).Encode(fields)
	}
	notef(e, out, "%s in %.1f s → %s", what, took.Seconds(), part)
	return nil
}

// writePart writes task t's part of pipeline under header h into the
// parts folder of out: write fills the payload; a failed task leaves no
// part. It returns the part's path.
func writePart(out, pipeline string, t cluster.Task, h cluster.PartHeader, write func(w *cluster.PartWriter) error) (string, error) {
	path := cluster.PartPath(cluster.PartsDir(out), pipeline, t)
	w, err := cluster.CreatePart(path, h)
	if err != nil {
		return path, err
	}
	defer w.Abort()
	if err := write(w); err != nil {
		return path, err
	}
	return path, w.Commit()
}

// eachPart opens, in task order, the parts of a merge of tasks tasks of
// pipeline in dir, each checked against the header its task writes, and
// hands each to use, which closes it or keeps it.
func eachPart(dir, pipeline string, tasks int, header func(cluster.Task) (cluster.PartHeader, error), use func(cluster.Task, *cluster.Part) error) error {
	if err := checkPartsDir(dir); err != nil {
		return err
	}
	for i := range tasks {
		t := cluster.Task{Index: i, Count: tasks}
		h, err := header(t)
		if err != nil {
			return err
		}
		p, err := cluster.OpenPart(cluster.PartPath(dir, pipeline, t), h)
		if err != nil {
			return err
		}
		if err := use(t, p); err != nil {
			return err
		}
	}
	return nil
}

// partStack reads the payloads of parts holding consecutive planes of one
// volume (a task's planes each) as one volume.Source.
type partStack struct {
	info   volume.Info
	parts  []*cluster.Part
	starts []int // first plane of each part; starts[len(parts)] = total
}

func newPartStack(parts []*cluster.Part, planes []int, plane volume.Info) (*partStack, error) {
	s := &partStack{parts: parts, info: plane, starts: []int{0}}
	pb := plane.PlaneBytes()
	for i, p := range parts {
		if want := int64(planes[i]) * pb; p.Size() != want {
			return nil, fmt.Errorf("part %s holds %d bytes, want %d (%d planes): it is damaged; run its task again", p.Path(), p.Size(), want, planes[i])
		}
		s.starts = append(s.starts, s.starts[i]+planes[i])
	}
	s.info.Shape[0] = s.starts[len(parts)]
	return s, nil
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

func (s *partStack) Close() error {
	for _, p := range s.parts {
		p.Close()
	}
	return nil
}

// closeParts closes parts opened so far (on an error while opening).
func closeParts(parts []*cluster.Part) {
	for _, p := range parts {
		p.Close()
	}
}

// checkPartsDir fails early, naming the folder, when the parts of a merge
// are nowhere to be found.
func checkPartsDir(dir string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		hint := "run the tasks first (voxlab PIPELINE … --task i/N), from the same folder, with the same OUT"
		if os.Getenv(cluster.EnvShared) == "" {
			hint += "; a merge of a SLURM submission finds them in its shared folder ($" + cluster.EnvShared + ")"
		}
		return fmt.Errorf("no parts folder %s: %s", dir, hint)
	}
	return nil
}

// openParts opens, in task order, the parts of a merge of tasks tasks
// of pipeline in dir, each checked against the header its task writes.
// On an error it closes those it opened.
func openParts(dir, pipeline string, tasks int, header func(cluster.Task) (cluster.PartHeader, error)) ([]*cluster.Part, error) {
	var parts []*cluster.Part
	err := eachPart(dir, pipeline, tasks, header, func(t cluster.Task, p *cluster.Part) error {
		parts = append(parts, p)
		return nil
	})
	if err != nil {
		closeParts(parts)
		return nil, err
	}
	return parts, nil
}
