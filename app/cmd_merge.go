package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
)

func init() {
	register(&command{
		name:    "merge",
		summary: "join the outputs of a pipeline's cluster tasks (run by the merge job of voxlab submit slurm)",
		usage:   "PIPELINE ARGS... --tasks N",
		examples: []string{
			"voxlab merge dezing scan.nxs out.h5 --tasks 8    # what the merge job of `voxlab submit slurm dezing scan.nxs out.h5 --tasks 8` runs",
		},
		raw:   true,
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error { return runMerge },
	})
}

// mergeNames lists the pipelines that split, for messages.
func mergeNames() string { return pipelineList(func(s *pipeline.Spec) bool { return s.Split }) }

// recordFailure writes a failure to the progress file of a cluster job
// that fails before its pipeline reports anything.
func recordFailure(name string, err error) {
	path := os.Getenv(cluster.EnvProgressFile)
	if path == "" {
		return
	}
	if pf, perr := cluster.CreateProgressFile(path); perr == nil {
		job.NewProgress(name, pf.Sink()).End(err)
		pf.Close()
	}
}

func runMerge(ctx context.Context, e *env, args []string) error {
	var spec *pipeline.Spec
	if len(args) > 0 {
		spec = pipelines[args[0]]
	}
	if spec == nil || !spec.Split {
		name := ""
		if len(args) > 0 {
			name = args[0]
		}
		return usagef("pipeline %q has no merge step: one of %s", name, mergeNames())
	}
	fs := flag.NewFlagSet("voxlab merge "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	tasks := fs.Int("tasks", 0, "the number of tasks the pipeline was split into")
	out := addOutputFlags(fs)
	// The merge declares the pipeline's own flags: the merge job gets
	// the tasks' arguments unchanged.
	f, _, run := specBind(spec, fs, out)
	pos, err := parseInterspersed(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		printCommandHelp(e.stdout, &command{name: "merge " + args[0], summary: "merge the tasks of " + args[0], usage: "ARGS... --tasks N"}, fs)
		return nil
	}
	if err != nil {
		return err
	}
	if *tasks < 1 {
		return usagef("--tasks: want the number of tasks (at least 1)")
	}
	if err := f.check(e, out, pos); err != nil {
		recordFailure("merge "+args[0], err)
		return err
	}
	// In a merge job, refuse to merge unless every task finished: after
	// a resubmission the job may start once the others have merely ended.
	if shared := os.Getenv(cluster.EnvShared); shared != "" {
		if err := cluster.CheckTasksFinished(shared, *tasks); err != nil {
			recordFailure("merge "+args[0], err)
			return err
		}
	}
	return run(withMerge(ctx, *tasks), e, pos)
}
