package main

import (
	"context"
	"flag"
	"strconv"
	"sync"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
)

// fakepipe is a pipeline for testing plan, submit, merge and status before
// the real pipelines register: `fakepipe UNITS OUT` runs a 3D filter over
// UNITS slices of 1 MiB with a halo of kernel/2 on a 64 MiB device.
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

func fakeSetup(split bool) func(fs *flag.FlagSet, out *outputFlags) (planFunc, runFunc) {
	return func(fs *flag.FlagSet, out *outputFlags) (planFunc, runFunc) {
		dev := addDeviceFlags(fs, "batch-size", "slices")
		kernel := fs.Int("kernel", 3, "kernel size")
		label := fs.String("label", "", "a free-text option")
		var task *taskFlag
		if split {
			task = addTaskFlag(fs)
		}
		planFn := func(ctx context.Context, e *env, args []string) (*plan.Plan, error) {
			if len(args) != 2 {
				return nil, usagef("want UNITS OUT")
			}
			units, err := strconv.Atoi(args[0])
			if err != nil {
				return nil, usagef("UNITS %q: want a number", args[0])
			}
			b, err := dev.budget(gpu.DeviceInfo{Name: "fake device", FreeBytes: 64 << 20})
			if err != nil {
				return nil, err
			}
			block, err := dev.batchSize(pipeline.Batch{Flag: "batch-size", Unit: "slices"})
			if err != nil {
				return nil, err
			}
			return plan.Make("fakepipe", []plan.Phase{{
				Name: "slices", Unit: "slices", Units: units, Halo: *kernel / 2, Block: block,
				Arrays: []plan.Array{
					{Name: "input", Where: plan.Device, PerUnit: 1 << 20, Halo: true},
					{Name: "output", Where: plan.Device, PerUnit: 1 << 20},
				},
			}}, b)
		}
		runFn := func(ctx context.Context, e *env, args []string) error {
			r := fakeRun{args: args, kernel: *kernel, label: *label}
			if task != nil {
				r.task = task.get().String()
			}
			fakeMu.Lock()
			fakeRuns = append(fakeRuns, r)
			fakeMu.Unlock()
			sinks, done, err := jobSinks(e, out)
			if err != nil {
				return err
			}
			err = job.Run(ctx, "fakepipe", func(ctx context.Context, p *job.Progress) error {
				p.Stage("slices", 4, "slices")
				p.Add(4)
				return nil
			}, sinks...)
			if derr := done(); err == nil {
				err = derr
			}
			return err
		}
		return planFn, runFn
	}
}

func init() {
	registerPipeline(&pipelineCmd{name: "fakepipe", summary: "a test pipeline", usage: "UNITS OUT", setup: fakeSetup(true)})
	registerPipeline(&pipelineCmd{name: "fakewhole", summary: "a test pipeline that does not split", usage: "UNITS OUT", setup: fakeSetup(false)})
	registerMerge("fakepipe", func(fs *flag.FlagSet, out *outputFlags) mergeFunc {
		fakeSetup(true)(fs, out) // the same flags as the tasks
		return func(ctx context.Context, e *env, args []string, tasks int) error {
			fakeMu.Lock()
			fakeRuns = append(fakeRuns, fakeRun{args: args, merged: tasks})
			fakeMu.Unlock()
			return nil
		}
	})
}

func takeFakeRuns() []fakeRun {
	fakeMu.Lock()
	defer fakeMu.Unlock()
	r := fakeRuns
	fakeRuns = nil
	return r
}
