package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
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
	// spec is the pipeline's spec (nil for pipelines still declared by hand).
	spec *pipeline.Spec
	// setup declares the pipeline's flags on fs (including the shared
	// device and output flags) and returns its planner and runner.
	setup func(fs *flag.FlagSet, out *outputFlags) (planFunc, runFunc)
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
			_, run := p.setup(fs, out)
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
