package main

import (
	"context"
	"errors"
	"flag"
	"io"
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

// runPlan parses the pipeline's own arguments and flags, plans it and
// prints the plan.
func runPlan(ctx context.Context, e *env, args []string) error {
	p, err := lookupPipeline(args)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("voxlab plan "+p.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := addOutputFlags(fs)
	planFn, _ := specSetup(p)(fs, out)
	pos, err := parseInterspersed(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		printCommandHelp(e.stdout, &command{name: "plan " + p.Name, summary: "plan " + p.Summary, usage: p.Usage, examples: p.Examples}, fs)
		return nil
	}
	if err != nil {
		return err
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
