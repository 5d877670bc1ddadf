package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
)

// planFunc plans a pipeline from its command line without running it,
// reading only the metadata it needs.
type planFunc func(ctx context.Context, e *env, args []string) (*plan.Plan, error)

// runFunc runs a pipeline from its command line.
type runFunc func(ctx context.Context, e *env, args []string) error

// pipelineCmd is a processing command that `voxlab plan NAME …` can plan
// with exactly the same arguments and flags.
type pipelineCmd struct {
	name, summary, usage string
	examples             []string
	// setup declares the pipeline's flags on fs (including the shared
	// device and output flags) and returns its planner and runner.
	setup func(fs *flag.FlagSet, out *outputFlags) (planFunc, runFunc)
	// paths declares what a run reads and writes, from its positional
	// arguments and its flags' values (flag returns "" for a flag it
	// lacks), for checkPaths; nil: nothing to check.
	paths func(flag func(name string) string, args []string) iocheck.Paths
}

// bind declares p's flags on fs and returns its planner and runner, each
// refusing first a run that would write over its inputs (checkPaths).
// Everything that plans or runs a pipeline (its command, voxlab plan,
// voxlab run, the GUI) binds it so.
func (p *pipelineCmd) bind(fs *flag.FlagSet, out *outputFlags) (planFunc, runFunc) {
	planFn, runFn := p.setup(fs, out)
	checked := func(ctx context.Context, e *env, args []string) (*plan.Plan, error) {
		if err := p.checkPaths(fs, args); err != nil {
			return nil, err
		}
		return planFn(ctx, e, args)
	}
	if planFn == nil {
		checked = nil
	}
	return checked, func(ctx context.Context, e *env, args []string) error {
		if err := p.checkPaths(fs, args); err != nil {
			return err
		}
		return runFn(ctx, e, args)
	}
}

// checkPaths refuses, before anything is opened or written, a run of p
// (with the flags set on fs and the positional args) that would write
// over one of its inputs: iocheck.Check of what p.paths declares, and
// of a task's part (--task i/N), which goes beside the first output.
func (p *pipelineCmd) checkPaths(fs *flag.FlagSet, args []string) error {
	if p.paths == nil {
		return nil
	}
	ps := p.paths(func(name string) string {
		if f := fs.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}, args)
	if f := fs.Lookup("task"); f != nil && len(ps.Outputs) > 0 && ps.Outputs[0].Path != "" {
		if t, ok := f.Value.(*taskFlag); ok && t.Count != 0 {
			part := cluster.PartPath(cluster.PartsDir(ps.Outputs[0].Path), p.name, t.Task)
			ps.Outputs = append(ps.Outputs, iocheck.Output{Name: "task part", Path: part})
		}
	}
	return iocheck.Check(ps)
}

// arg is the i-th positional argument, "" when there are fewer (the
// pipeline's own checks say what is missing).
func arg(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return ""
}

var pipelines = map[string]*pipelineCmd{}

// registerPipeline registers `voxlab NAME` and makes NAME plannable.
func registerPipeline(p *pipelineCmd) {
	pipelines[p.name] = p
	register(&command{
		name:     p.name,
		summary:  p.summary,
		usage:    p.usage,
		examples: p.examples,
		volumes:  true,
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			out := addOutputFlags(fs)
			_, run := p.bind(fs, out)
			return run
		},
	})
}

// outputFlags are the output switches every command that runs or plans a
// pipeline shares.
type outputFlags struct {
	quiet bool
	json  bool
}

func addOutputFlags(fs *flag.FlagSet) *outputFlags {
	o := &outputFlags{}
	fs.BoolVar(&o.quiet, "quiet", false, "print nothing but errors")
	fs.BoolVar(&o.json, "json", false, "print a JSON summary (for plan: the plan) on stdout")
	return o
}

// notef prints a line on stderr unless --quiet or --json.
func notef(e *env, out *outputFlags, format string, a ...any) {
	if !out.quiet && !out.json {
		fmt.Fprintf(e.stderr, format+"\n", a...)
	}
}

// runJob runs fn as the job name of a headless pipeline command: with the
// command's sinks (jobSinks), after printing note (which backend auto
// picked) unless --quiet or --json.
func runJob(ctx context.Context, e *env, out *outputFlags, name, note string, fn func(context.Context, *job.Progress) error) error {
	sinks, done, err := jobSinks(e, out)
	if err != nil {
		return err
	}
	notef(e, out, "%s", note)
	err = job.Run(ctx, name, fn, sinks...)
	if derr := done(); err == nil {
		err = derr
	}
	return err
}

// printJSON writes v as indented JSON: a command's --json summary.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
