package main

import (
	"flag"
	"os"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/job"
)

// jobSinks returns the sinks a headless pipeline command gives job.Run: a
// progress bar on stderr (plain lines when stderr is not a terminal)
// unless --quiet or --json, and, in a cluster task, the progress file the
// sbatch script names in $VOXLAB_PROGRESS_FILE, which `voxlab status`
// reads, and the env's own sinks (the GUI's). Call done when the job has
// ended.
func jobSinks(e *env, out *outputFlags) (sinks []job.Sink, done func() error, err error) {
	if !out.quiet && !out.json {
		tty := false
		if f, ok := e.stderr.(*os.File); ok {
			tty = job.IsTerminal(f)
		}
		sinks = append(sinks, job.TerminalSink(e.stderr, tty))
	}
	sinks = append(sinks, e.sinks...)
	done = func() error { return nil }
	if path := os.Getenv(cluster.EnvProgressFile); path != "" {
		pf, err := cluster.CreateProgressFile(path)
		if err != nil {
			return nil, nil, err
		}
		sinks = append(sinks, pf.Sink())
		done = pf.Close
	}
	return sinks, done, nil
}

// taskFlag is the --task INDEX/COUNT option of a pipeline that splits into
// independent cluster tasks (see voxlab submit slurm): the zero value, and
// the default, is the whole run.
type taskFlag struct{ cluster.Task }

func (t *taskFlag) String() string {
	if t.Count == 0 {
		return cluster.Whole.String()
	}
	return t.Task.String()
}

func (t *taskFlag) Set(s string) error {
	task, err := cluster.ParseTask(s)
	if err != nil {
		return err
	}
	t.Task = task
	return nil
}

// addTaskFlag declares --task on a pipeline's flags; `voxlab submit slurm`
// refuses pipelines without it.
func addTaskFlag(fs *flag.FlagSet) *taskFlag {
	t := &taskFlag{}
	fs.Var(t, "task", "run only task INDEX/COUNT of the split pipeline, writing its part into OUT.parts (or the submission's shared folder); voxlab merge joins the parts (voxlab submit slurm sets it); with voxlab plan, plan only that task")
	return t
}
