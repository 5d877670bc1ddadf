package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
)

// planFunc plans a pipeline from its command line without running it,
// reading only the metadata it needs.
type planFunc func(ctx context.Context, e *env, args []string) (*plan.Plan, error)

// runFunc runs a pipeline from its command line.
type runFunc func(ctx context.Context, e *env, args []string) error

// pipelines are the pipelines the binary offers, by name: the registered
// specs (pipelines.go), and in tests their own.
var pipelines = map[string]*pipeline.Spec{}

// addPipeline makes `voxlab NAME` of a spec, which `voxlab plan`,
// `voxlab run`'s YAML steps, the panel and, when it splits, `voxlab
// merge` and `voxlab submit slurm` find in pipelines.
func addPipeline(s *pipeline.Spec) {
	pipelines[s.Name] = s
	register(&command{
		name:     s.Name,
		summary:  s.Summary,
		usage:    s.Usage,
		examples: s.Examples,
		volumes:  true,
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			_, run := specSetup(s)(fs, addOutputFlags(fs))
			return run
		},
	})
}

// sortedPipelines returns the pipelines in the panel's order (Order,
// then name); gui only those with a Title (the panel's).
func sortedPipelines(gui bool) []*pipeline.Spec {
	var out []*pipeline.Spec
	for _, s := range pipelines {
		if !gui || s.Title != "" {
			out = append(out, s)
		}
	}
	pipeline.Sort(out)
	return out
}

// pipelineNames lists the pipelines for messages.
func pipelineNames() string {
	return pipelineList(func(*pipeline.Spec) bool { return true })
}

// pipelineList lists the pipelines keep accepts, by name, comma-separated.
func pipelineList(keep func(*pipeline.Spec) bool) string {
	var n []string
	for name, s := range pipelines {
		if keep(s) {
			n = append(n, name)
		}
	}
	sort.Strings(n)
	if len(n) == 0 {
		return "(none)"
	}
	return strings.Join(n, ", ")
}

// lookupPipeline finds the pipeline a plan/submit/merge command names.
func lookupPipeline(args []string) (*pipeline.Spec, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return nil, usagef("which pipeline? one of %s", pipelineNames())
	}
	p, ok := pipelines[args[0]]
	if !ok {
		return nil, usagef("unknown pipeline %q: one of %s", args[0], pipelineNames())
	}
	return p, nil
}

// newFlags declares a pipeline's flags on a fresh set and returns its
// planner and runner bound to them.
func newFlags(s *pipeline.Spec) (*flag.FlagSet, *outputFlags, planFunc, runFunc) {
	fs := flag.NewFlagSet("voxlab "+s.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := addOutputFlags(fs)
	planFn, runFn := specSetup(s)(fs, out)
	return fs, out, planFn, runFn
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

// printJSON writes v as indented JSON: a command's --json summary.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
