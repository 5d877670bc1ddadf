package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

func init() {
	register(&command{
		name:    "plan",
		summary: "show the block size and memory a pipeline would use, without running it",
		usage:   "PIPELINE ARGS... [--json]",
		examples: []string{
			"voxlab plan dezing scan.nxs out.h5 --device-memory 2GiB",
			"voxlab plan detect brain/ --json",
		},
		raw:   true,
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error { return runPlan },
	})
}

// pipelineNames lists the registered pipelines for messages.
func pipelineNames() string {
	var names []string
	for n := range pipelines {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "(none registered)"
	}
	return strings.Join(names, ", ")
}

// lookupPipeline finds the pipeline a plan/submit/merge command names.
func lookupPipeline(args []string) (*pipelineCmd, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return nil, usagef("which pipeline? one of %s", pipelineNames())
	}
	p, ok := pipelines[args[0]]
	if !ok {
		return nil, usagef("unknown pipeline %q: one of %s", args[0], pipelineNames())
	}
	return p, nil
}

// runPlan parses the pipeline's own arguments and flags, plans it and
// prints the plan.
func runPlan(ctx context.Context, e *env, args []string) error {
	p, err := lookupPipeline(args)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("voxlab plan "+p.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := addOutputFlags(fs)
	planFn, _ := p.bind(fs, out)
	pos, err := parseInterspersed(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		printCommandHelp(e.stdout, &command{name: "plan " + p.name, summary: "plan " + p.summary, usage: p.usage, examples: p.examples}, fs)
		return nil
	}
	if err != nil {
		return err
	}
	if planFn == nil {
		return fmt.Errorf("%s has no memory plan", p.name)
	}
	pl, err := planFn(ctx, e, pos)
	if err != nil {
		return err
	}
	if out.json {
		return printJSON(e.stdout, pl)
	}
	return pl.Format(e.stdout)
}
