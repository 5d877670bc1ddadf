package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/task"
)

// fakepipe is a pipeline for testing plan, submit, merge and status
// without real data: `fakepipe UNITS OUT` plans a 3D filter over UNITS
// slices of 1 MiB with a halo of kernel/2 on a 64 MiB device ("fake
// device", whatever the backend), and records each run, task and merge.
// fakewhole is the same without the split into tasks.
type fakeRun struct {
	args   []string
	kernel int
	label  string
	task   string
	merged int
}

var (
	fakeMu   sync.Mutex
	fakeRuns []fakeRun
)

func record(r fakeRun) {
	fakeMu.Lock()
	fakeRuns = append(fakeRuns, r)
	fakeMu.Unlock()
}

func fakeSpec(name string, split bool) *pipeline.Spec {
	return &pipeline.Spec{
		Name: name, Summary: "a test pipeline", Usage: "UNITS OUT", ArgsHelp: "UNITS OUT",
		Args: []pipeline.Param{{Name: "units", Kind: pipeline.Input}, {Name: "out", Kind: pipeline.Output}},
		Params: []pipeline.Param{
			{Name: "kernel", Kind: pipeline.Int, Default: 3, Help: "kernel size"},
			{Name: "label", Kind: pipeline.Text, Help: "a free-text option"},
		},
		Batch: pipeline.Batch{Flag: "batch-size", Unit: "slices"},
		Split: split,
		Open: func(r pipeline.Request) (pipeline.Job, error) {
			units, err := strconv.Atoi(r.Args[0])
			if err != nil {
				return nil, pipeline.Usagef("UNITS %q: want a number", r.Args[0])
			}
			return &fakeJob{r: r, units: units}, nil
		},
	}
}

type fakeJob struct {
	r     pipeline.Request
	units int
}

func (j *fakeJob) Close() error { return nil }

func (j *fakeJob) Plan(d pipeline.Device) (*plan.Plan, error) {
	b, err := d.BudgetFor(gpu.DeviceInfo{Name: "fake device", FreeBytes: 64 << 20})
	if err != nil {
		return nil, err
	}
	return plan.Make("fakepipe", []plan.Phase{{
		Name: "slices", Unit: "slices", Units: j.units, Halo: j.r.Values.Int("kernel") / 2, Block: j.r.Batch,
		Arrays: []plan.Array{
			{Name: "input", Where: plan.Device, PerUnit: 1 << 20, Halo: true},
			{Name: "output", Where: plan.Device, PerUnit: 1 << 20},
		},
	}}, b)
}

func (j *fakeJob) run(p *job.Progress, t string) fakeRun {
	p.Stage("slices", 4, "slices")
	p.Add(4)
	return fakeRun{args: j.r.Args, kernel: j.r.Values.Int("kernel"), label: j.r.Values.String("label"), task: t}
}

func (j *fakeJob) Run(ctx context.Context, p *job.Progress, d pipeline.Device) (*pipeline.Report, error) {
	record(j.run(p, ""))
	return &pipeline.Report{Summary: map[string]int{"units": j.units}}, nil
}

func (j *fakeJob) TaskPlan(d pipeline.Device, t task.Task) (*plan.Plan, error) { return j.Plan(d) }

func (j *fakeJob) PartRun(t task.Task) (any, error) {
	return map[string]any{"units": j.units, "kernel": j.r.Values.Int("kernel")}, nil
}

func (j *fakeJob) RunTask(ctx context.Context, p *job.Progress, d pipeline.Device, t task.Task, w io.Writer) (*pipeline.TaskReport, error) {
	record(j.run(p, t.String()))
	_, err := fmt.Fprintf(w, "task %s\n", t)
	return &pipeline.TaskReport{What: "fakepipe task " + t.String()}, err
}

func (j *fakeJob) Merge(ctx context.Context, p *job.Progress, d pipeline.Device, parts []*cluster.Part) (*pipeline.Report, error) {
	record(fakeRun{args: j.r.Args, kernel: j.r.Values.Int("kernel"), merged: len(parts)})
	return &pipeline.Report{Summary: map[string]int{"tasks": len(parts)}}, nil
}

func init() {
	addPipeline(fakeSpec("fakepipe", true))
	addPipeline(fakeSpec("fakewhole", false))
}

func takeFakeRuns() []fakeRun {
	fakeMu.Lock()
	defer fakeMu.Unlock()
	r := fakeRuns
	fakeRuns = nil
	return r
}
