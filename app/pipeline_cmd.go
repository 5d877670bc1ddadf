package main

import (
	"context"
	"flag"

	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
)

// specFlags are a pipeline's flags, declared from its spec: a flag per
// parameter (of the flag package's own type for ints, floats and
// bools, so that --help reads as it always did; text for the others,
// parsed by the parameter), the block-size and device flags, and --task
// when it splits.
type specFlags struct {
	spec *pipeline.Spec
	vars map[string]any
	dev  *deviceFlags
	task *taskFlag
}

// declareSpec declares spec's flags on fs.
func declareSpec(fs *flag.FlagSet, spec *pipeline.Spec) *specFlags {
	f := &specFlags{spec: spec, vars: map[string]any{}}
	for _, p := range spec.Params {
		switch p.Kind {
		case pipeline.Int:
			v := new(int)
			fs.IntVar(v, p.Name, p.Zero().(int), p.Help)
			f.vars[p.Name] = v
		case pipeline.Float:
			v := new(float64)
			fs.Float64Var(v, p.Name, p.Zero().(float64), p.Help)
			f.vars[p.Name] = v
		case pipeline.Bool:
			v := new(bool)
			fs.BoolVar(v, p.Name, p.Zero().(bool), p.Help)
			f.vars[p.Name] = v
		default:
			v := new(string)
			fs.StringVar(v, p.Name, p.DefaultText(), p.Help)
			f.vars[p.Name] = v
		}
	}
	f.dev = addDeviceFlags(fs, spec.Batch.Flag, spec.Batch.Unit)
	if spec.Split {
		f.task = addTaskFlag(fs)
	}
	return f
}

// values returns the parameters the flags give, each parsed and
// checked: a wrong one is a usage error naming its flag.
func (f *specFlags) values() (pipeline.Values, error) {
	vals := pipeline.Values{}
	for _, p := range f.spec.Params {
		var x any
		switch v := f.vars[p.Name].(type) {
		case *int:
			x = *v
		case *float64:
			x = *v
		case *bool:
			x = *v
		case *string:
			parsed, err := p.Parse(*v)
			if err != nil {
				return nil, usagef("--%s: %v", p.Name, err)
			}
			vals[p.Name] = parsed
			continue
		}
		if err := p.Validate(x); err != nil {
			return nil, usagef("--%s: %v", p.Name, err)
		}
		vals[p.Name] = x
	}
	return vals, nil
}

// invocation returns the run the flags and args describe.
func (f *specFlags) invocation(e *env, out *outputFlags, args []string) (*invocation, error) {
	vals, err := f.values()
	if err != nil {
		return nil, err
	}
	return &invocation{spec: f.spec, req: pipeline.Request{Args: args, Values: vals}, dev: f.dev, out: out, e: e}, nil
}

// specSetup is the setup of spec's command: its flags on fs, and its
// planner and runner, which plan or run one task with --task, and merge
// when `voxlab merge` calls the runner (withMerge).
func specSetup(spec *pipeline.Spec) func(fs *flag.FlagSet, out *outputFlags) (planFunc, runFunc) {
	return func(fs *flag.FlagSet, out *outputFlags) (planFunc, runFunc) {
		_, planFn, runFn := specBind(spec, fs, out)
		return planFn, runFn
	}
}

// specBind is specSetup that also returns the flags, for the commands
// that check a run before they hand it on (submit, merge: specFlags.check).
func specBind(spec *pipeline.Spec, fs *flag.FlagSet, out *outputFlags) (*specFlags, planFunc, runFunc) {
	f := declareSpec(fs, spec)
	planFn := func(ctx context.Context, e *env, args []string) (*plan.Plan, error) {
		iv, err := f.invocation(e, out, args)
		if err != nil {
			return nil, err
		}
		if f.task != nil && f.task.Count != 0 {
			t := f.task.Task
			return iv.plan(ctx, &t)
		}
		return iv.plan(ctx, nil)
	}
	runFn := func(ctx context.Context, e *env, args []string) error {
		iv, err := f.invocation(e, out, args)
		if err != nil {
			return err
		}
		if n := mergeTasks(ctx); n > 0 {
			if f.task != nil && f.task.Count != 0 {
				return usagef("merge joins every task: give --tasks N, not --task")
			}
			return iv.merge(ctx, n)
		}
		// An explicit --task 0/1 is a task too: its part is what the
		// merge of a one-task submission reads.
		if f.task != nil && f.task.Count != 0 {
			return iv.runTask(ctx, f.task.Task)
		}
		return iv.run(ctx)
	}
	return f, planFn, runFn
}

// check refuses, before anything is opened, a run of args with the
// flags' values that would write over one of its inputs
// (invocation.check): what a submission checks before its tasks run, and
// a merge before it records its failure.
func (f *specFlags) check(e *env, out *outputFlags, args []string) error {
	iv, err := f.invocation(e, out, args)
	if err != nil {
		return err
	}
	return iv.check(iv.req, nil)
}
