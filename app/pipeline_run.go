package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/task"
)

// The one path every pipeline runs through, however it was asked for
// (its command's flags, a YAML step, the processing panel): the
// arguments and parameters are checked, the spec opens its inputs, the
// backend and memory budget the device settings ask for are opened, and
// the job plans, runs (or runs one task into its part, or merges the
// parts) inside job.Run with the command's sinks, then reports.

// invocation is one run of a pipeline.
type invocation struct {
	spec *pipeline.Spec
	req  pipeline.Request
	dev  *deviceFlags
	out  *outputFlags
	e    *env
}

// opened is an invocation's job on its device.
type opened struct {
	job  pipeline.Job
	dev  pipeline.Device
	note string
	// warn says why the run went to the CPU when the backend's kernels
	// failed their self-check (pipeline.Device.Checked); "" otherwise.
	warn string
}

func (o *opened) close() {
	if o.dev.Backend != nil {
		o.dev.Backend.Close()
	}
	o.job.Close()
}

// open checks the arguments and that no output (task t's part too, when
// t is not nil) would write over an input, opens the inputs through the
// spec, then the backend and its budget.
func (iv *invocation) open(t *task.Task) (*opened, error) {
	s, args := iv.spec, iv.req.Args
	outputs := len(s.Args) - len(s.Inputs())
	if len(args) > len(s.Args) || len(args) < len(s.Args)-outputs || (!iv.req.PlanOnly && len(args) < len(s.Args)) {
		return nil, usagef("want %s, got %d arguments", s.ArgsHelp, len(args))
	}
	r := iv.req
	r.Args = append(append([]string(nil), args...), make([]string, len(s.Args)-len(args))...)
	n, err := iv.dev.batchSize(s.Batch)
	if err != nil {
		return nil, err
	}
	r.Batch, r.Pin, r.Partials = n, iv.dev.pin, iv.e.partials
	if err := iv.check(r, t); err != nil {
		return nil, err
	}
	j, err := s.Open(r)
	if err != nil {
		return nil, err
	}
	o := &opened{job: j}
	be, note, err := iv.dev.open()
	if err != nil {
		j.Close()
		return nil, err
	}
	o.dev.Backend, o.dev.Note, o.note = be, note, note
	o.dev.BudgetFor = iv.dev.budget
	if o.dev.Budget, err = iv.dev.budget(be.Info()); err != nil {
		o.close()
		return nil, err
	}
	// A GPU result is never trusted blindly: the pipeline's kernels on
	// this backend first agree with the CPU's, or the run uses the CPU.
	if o.dev, o.warn, err = o.dev.Checked(s.Name); err != nil {
		o.close()
		return nil, err
	}
	if o.warn != "" {
		o.note = o.dev.Note
	}
	return o, nil
}

// check refuses, before anything is opened or written, a run that
// would write over one of its inputs: iocheck.Check of what the spec
// says the request reads and writes (Spec.Paths), and of task t's part
// when t is not nil (it goes beside the first output, or in the
// submission's shared folder). Every pipeline passes here.
func (iv *invocation) check(r pipeline.Request, t *task.Task) error {
	ps := iv.spec.Paths(r)
	if anchor := iv.partsAnchor(); t != nil && anchor != "" {
		part := cluster.PartPath(cluster.PartsDir(anchor), iv.spec.Name, *t)
		ps.Outputs = append(ps.Outputs, iocheck.Output{Name: "task part", Path: part})
	}
	return iocheck.Check(ps)
}

// splitter returns the job as a Splitter, or an error saying the
// pipeline does not split.
func (iv *invocation) splitter(o *opened) (pipeline.Splitter, error) {
	sp, ok := o.job.(pipeline.Splitter)
	if !ok || !iv.spec.Split {
		return nil, fmt.Errorf("%s does not split into tasks", iv.spec.Name)
	}
	return sp, nil
}

// plan plans the whole run, or task t of it when t is not nil, reading
// only metadata.
func (iv *invocation) plan(ctx context.Context, t *task.Task) (*plan.Plan, error) {
	iv.req.PlanOnly = true
	o, err := iv.open(t)
	if err != nil {
		return nil, err
	}
	defer o.close()
	if t == nil {
		return o.job.Plan(o.dev)
	}
	sp, err := iv.splitter(o)
	if err != nil {
		return nil, err
	}
	pl, err := sp.TaskPlan(o.dev, *t)
	if err != nil {
		return nil, err
	}
	pl.Pipeline = fmt.Sprintf("%s task %s", iv.spec.Name, t)
	return pl, nil
}

// runJob runs fn as the job name with the command's sinks, after saying
// which backend auto picked, under the memory limit of pl (when it
// planned) and failing with planErr when it did not: the job fails with
// the planner's message, which a cluster task's progress file records.
func (iv *invocation) runJob(ctx context.Context, o *opened, name string, pl *plan.Plan, planErr error, fn func(context.Context, *job.Progress) error) error {
	if planErr == nil {
		defer limitMemory(iv.e, pl)()
	}
	sinks, done, err := jobSinks(iv.e, iv.out)
	if err != nil {
		return err
	}
	notef(iv.e, iv.out, "%s", o.note)
	if o.warn != "" && iv.out.json && !iv.out.quiet {
		// --json has no terminal sink to print the job's warning.
		fmt.Fprintf(iv.e.stderr, "%s: warning: %s\n", name, o.warn)
	}
	err = job.Run(ctx, name, func(ctx context.Context, p *job.Progress) error {
		if o.warn != "" {
			p.Warn(o.warn)
		}
		if planErr != nil {
			return planErr
		}
		return fn(ctx, p)
	}, sinks...)
	if derr := done(); err == nil {
		err = derr
	}
	return err
}

// run runs the whole pipeline and reports.
func (iv *invocation) run(ctx context.Context) error {
	o, err := iv.open(nil)
	if err != nil {
		return err
	}
	defer o.close()
	pl, perr := o.job.Plan(o.dev)
	var rep *pipeline.Report
	err = iv.runJob(ctx, o, iv.spec.Name, pl, perr, func(ctx context.Context, p *job.Progress) error {
		var err error
		rep, err = o.job.Run(ctx, p, o.dev)
		return err
	})
	if err != nil {
		return err
	}
	return iv.report(rep)
}

// report prints a run's report: its summary as JSON with --json, else
// its notes unless --quiet.
func (iv *invocation) report(r *pipeline.Report) error {
	if iv.e.notes != nil {
		for _, n := range r.Notes {
			iv.e.notes(n)
		}
	}
	if iv.out.json {
		return printJSON(iv.e.stdout, r.Summary)
	}
	for _, n := range r.Notes {
		notef(iv.e, iv.out, "%s", n)
	}
	return nil
}

// partsAnchor is the output the parts folder of a split run goes
// beside: the first output argument.
func (iv *invocation) partsAnchor() string {
	for i, a := range iv.spec.Args {
		if a.Kind == pipeline.Output && i < len(iv.req.Args) {
			return iv.req.Args[i]
		}
	}
	return ""
}

// runTask runs task t into its part and reports it: one JSON line of
// its fields, the task, its part and seconds with --json, else what it
// did with the time and the part.
func (iv *invocation) runTask(ctx context.Context, t task.Task) error {
	o, err := iv.open(&t)
	if err != nil {
		return err
	}
	defer o.close()
	sp, err := iv.splitter(o)
	if err != nil {
		return err
	}
	run, err := sp.PartRun(t)
	if err != nil {
		return err
	}
	h, err := cluster.NewPartHeader(iv.spec.Name, t, run)
	if err != nil {
		return err
	}
	pl, perr := sp.TaskPlan(o.dev, t)
	start := time.Now()
	var tr *pipeline.TaskReport
	var path string
	err = iv.runJob(ctx, o, iv.spec.Name+" "+t.String(), pl, perr, func(ctx context.Context, p *job.Progress) error {
		var err error
		path, err = writePart(iv.partsAnchor(), iv.spec.Name, t, h, func(w *cluster.PartWriter) error {
			tr, err = sp.RunTask(ctx, p, o.dev, t, w)
			return err
		})
		return err
	})
	if err != nil {
		return err
	}
	took := time.Since(start)
	if iv.out.json {
		fields := map[string]any{}
		for k, v := range tr.Fields {
			fields[k] = v
		}
		fields["task"], fields["part"], fields["seconds"] = t.String(), path, took.Seconds()
		return json.NewEncoder(iv.e.stdout).Encode(fields)
	}
	notef(iv.e, iv.out, "%s in %.1f s → %s", tr.What, took.Seconds(), path)
	return nil
}

// merge joins the parts of tasks tasks into the outputs, removes the
// parts and reports.
func (iv *invocation) merge(ctx context.Context, tasks int) error {
	o, err := iv.open(nil)
	if err != nil {
		return err
	}
	defer o.close()
	sp, err := iv.splitter(o)
	if err != nil {
		return err
	}
	dir := cluster.PartsDir(iv.partsAnchor())
	parts, err := openParts(dir, iv.spec.Name, tasks, func(t task.Task) (cluster.PartHeader, error) {
		run, err := sp.PartRun(t)
		if err != nil {
			return cluster.PartHeader{}, err
		}
		return cluster.NewPartHeader(iv.spec.Name, t, run)
	})
	if err != nil {
		return err
	}
	defer func() { closeParts(parts) }()
	var rep *pipeline.Report
	err = iv.runJob(ctx, o, "merge "+iv.spec.Name, nil, nil, func(ctx context.Context, p *job.Progress) error {
		var err error
		rep, err = sp.Merge(ctx, p, o.dev, parts)
		return err
	})
	if err != nil {
		return err
	}
	closeParts(parts)
	parts = nil
	if err := cluster.RemoveParts(dir, iv.spec.Name, tasks); err != nil && !iv.out.quiet {
		fmt.Fprintf(iv.e.stderr, "merge %s: warning: could not remove the parts: %v\n", iv.spec.Name, err)
	}
	return iv.report(rep)
}
