package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/voxlab/voxlab/processing/cluster"
)

func init() {
	register(&command{
		name:    "status",
		summary: "follow a pipeline submitted to SLURM; resubmit failed tasks",
		usage:   "JOBID [--wait] [--resubmit I[,J...]] [--shared DIR] [--json]",
		examples: []string{
			"voxlab status 1234",
			"voxlab status 1234 --wait",
			"voxlab status 1234 --resubmit 2",
		},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			o := &statusFlags{}
			fs.StringVar(&o.shared, "shared", "", "the submission's shared folder (instead of a job id)")
			fs.BoolVar(&o.wait, "wait", false, "wait until the merge job completed or something failed")
			fs.DurationVar(&o.interval, "interval", 10*time.Second, "time between checks with --wait")
			fs.StringVar(&o.resubmit, "resubmit", "", "resubmit these failed tasks (comma-separated indices) alone")
			fs.BoolVar(&o.json, "json", false, "print the status as JSON")
			return o.run
		},
	})
}

type statusFlags struct {
	shared   string
	wait     bool
	interval time.Duration
	resubmit string
	json     bool
}

func (o *statusFlags) run(ctx context.Context, e *env, args []string) error {
	sub, err := o.load(args)
	if err != nil {
		return err
	}
	slurm := cluster.Slurm{}
	if o.resubmit != "" {
		tasks, err := parseTaskList(o.resubmit)
		if err != nil {
			return err
		}
		id, merge, err := slurm.Resubmit(ctx, sub, tasks)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "resubmitted task %s as job %s; the merge job is now %s\n", o.resubmit, id, merge)
		if !o.wait {
			return nil
		}
	}
	var st *cluster.Status
	for {
		if st, err = slurm.Status(ctx, sub); err != nil {
			return err
		}
		if !o.wait || st.State != cluster.Running {
			break
		}
		if !o.json {
			fmt.Fprintf(e.stderr, "%s %s\n", time.Now().Format("15:04:05"), summary(st))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(o.interval):
		}
	}
	if o.json {
		if err := printJSON(e.stdout, st); err != nil {
			return err
		}
	} else {
		printStatus(e.stdout, st)
	}
	if st.State == cluster.Failed {
		return failure(st)
	}
	return nil
}

func (o *statusFlags) load(args []string) (*cluster.Submission, error) {
	switch {
	case o.shared != "" && len(args) == 0:
		return cluster.Load(o.shared)
	case o.shared == "" && len(args) == 1:
		return cluster.Find(args[0])
	}
	return nil, usagef("give one job id, or --shared DIR")
}

func parseTaskList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || i < 0 {
			return nil, usagef("--resubmit %q: want task indices such as 2 or 2,5", s)
		}
		out = append(out, i)
	}
	return out, nil
}

// failure is the error of a failed submission: which tasks, and how to
// resubmit them.
func failure(st *cluster.Status) error {
	failed := st.FailedTasks()
	if len(failed) == 0 {
		return fmt.Errorf("the merge job %s %s: see %s", st.Merge.Job, strings.ToLower(st.Merge.State), st.Merge.Log)
	}
	idx := make([]string, len(failed))
	for i, t := range failed {
		idx[i] = strconv.Itoa(t)
	}
	list := strings.Join(idx, ",")
	return fmt.Errorf("task %s failed; resubmit with: voxlab status %s --resubmit %s", list, st.Sub.ArrayJob, list)
}

// summary is one line: how many tasks are in each state.
func summary(st *cluster.Status) string {
	counts := map[string]int{}
	var order []string
	for _, t := range st.Tasks {
		if counts[t.State] == 0 {
			order = append(order, t.State)
		}
		counts[t.State]++
	}
	parts := make([]string, len(order))
	for i, s := range order {
		parts[i] = fmt.Sprintf("%d %s", counts[s], strings.ToLower(s))
	}
	return fmt.Sprintf("%s: tasks %s; merge %s", st.State, strings.Join(parts, ", "), strings.ToLower(st.Merge.State))
}

func printStatus(w io.Writer, st *cluster.Status) {
	sub := st.Sub
	fmt.Fprintf(w, "%s, %d tasks: %s\nshared folder: %s\n\n", sub.Spec.Pipeline, sub.Spec.Tasks, st.State, sub.Spec.Shared)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "task\tjob\tstate\tprogress")
	for _, t := range append(append([]cluster.TaskStatus{}, st.Tasks...), st.Merge) {
		name := strconv.Itoa(t.Task)
		if t.Task < 0 {
			name = "merge"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, t.Job, t.State, describe(t))
	}
	tw.Flush()
	for _, t := range st.Tasks {
		for _, warn := range t.Warnings {
			fmt.Fprintf(w, "task %d: warning: %s\n", t.Task, warn)
		}
	}
}

// describe says what a task is doing, from squeue's reason and its
// progress file.
func describe(t cluster.TaskStatus) string {
	var parts []string
	if r := t.Progress; r != nil && (r.Stage != "" || r.Total > 0) {
		s := fmt.Sprintf("%s %d", r.Stage, r.Done)
		if r.Total > 0 {
			s += fmt.Sprintf("/%d", r.Total)
		}
		if r.Unit != "" {
			s += " " + r.Unit
		}
		if r.Total > 0 && !t.Ended() {
			s += fmt.Sprintf(" (%.0f%%)", 100*float64(r.Done)/float64(r.Total))
		}
		if t.State == "RUNNING" && r.Rate > 0 {
			s += fmt.Sprintf(", %.3g/s", r.Rate)
			if r.ETA > 0 {
				s += ", ETA " + (time.Duration(r.ETA) * time.Second).String()
			}
		}
		parts = append(parts, strings.TrimSpace(s))
	}
	switch {
	case t.Reason == "DependencyNeverSatisfied":
		return "never runs: a task it waits for failed"
	case t.Reason != "":
		parts = append(parts, "("+t.Reason+")")
	}
	if t.Failed() {
		if t.Progress != nil && t.Progress.Error != "" {
			parts = append(parts, "error: "+t.Progress.Error)
		}
		parts = append(parts, "log: "+t.Log)
	}
	return strings.Join(parts, " ")
}
