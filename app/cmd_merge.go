package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/job"
)

// mergeFunc joins the outputs of a split pipeline's tasks into the
// single-process result. args are the pipeline's positional arguments.
type mergeFunc func(ctx context.Context, e *env, args []string, tasks int) error

// mergers maps a pipeline to the setup of its merge step: it declares the
// same flags as the pipeline (the merge job gets the same arguments as the
// tasks) and returns the merge.
var mergers = map[string]func(fs *flag.FlagSet, out *outputFlags) mergeFunc{}

// registerMerge makes `voxlab merge NAME` and `voxlab submit slurm NAME`
// available for a pipeline that also declares --task (addTaskFlag).
func registerMerge(name string, setup func(fs *flag.FlagSet, out *outputFlags) mergeFunc) {
	mergers[name] = setup
}

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

func mergeNames() string {
	var names []string
	for n := range mergers {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "(none yet)"
	}
	return strings.Join(names, ", ")
}

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
	if len(args) == 0 || mergers[args[0]] == nil {
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
	merge := mergers[args[0]](fs, out)
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
	if err := pipelines[args[0]].checkPaths(fs, pos); err != nil {
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
	return merge(ctx, e, pos, *tasks)
}
