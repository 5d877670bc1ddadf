package cluster

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/voxlab/voxlab/processing/job"
)

// Available reports whether SLURM's sbatch is on the PATH: where it is,
// the GUI offers to run a pipeline on the cluster.
func Available() bool {
	_, err := exec.LookPath("sbatch")
	return err == nil
}

// Follow polls a submission every interval until it completes or fails,
// reporting on p as a local job does: the stage "tasks" counts the array
// tasks that completed, then the merge job's own stage and counts (from
// its progress file) once it runs; each task's warnings are passed on
// once. It returns nil when the merge job completed, an error naming the
// failed tasks and the resubmission when the submission failed, and
// ctx.Err() when ctx ends first (the jobs keep running: Cancel stops
// them).
func (s Slurm) Follow(ctx context.Context, sub *Submission, interval time.Duration, p *job.Progress) (*Status, error) {
	n := int64(sub.Spec.Tasks)
	p.Stage("tasks", n, "tasks")
	var done int64
	warned := map[string]bool{}
	var mergeStage string
	var mergeDone int64
	for {
		st, err := s.Status(ctx, sub)
		if ctx.Err() != nil {
			return st, ctx.Err()
		}
		if err != nil {
			return nil, err
		}
		for _, t := range st.Tasks {
			for _, w := range t.Warnings {
				if msg := fmt.Sprintf("task %d: %s", t.Task, w); !warned[msg] {
					warned[msg] = true
					p.Warn(msg)
				}
			}
		}
		if c := int64(completed(st)); c > done {
			p.Add(c - done)
			done = c
		}
		if r := st.Merge.Progress; r != nil && r.Stage != "" && r.Kind != job.Failed.String() &&
			(st.Merge.State == "RUNNING" || st.Merge.State == "COMPLETED") {
			if stage := "merge: " + r.Stage; stage != mergeStage {
				p.Stage(stage, r.Total, r.Unit)
				mergeStage, mergeDone = stage, 0
			}
			if r.Done > mergeDone {
				p.Add(r.Done - mergeDone)
				mergeDone = r.Done
			}
		}
		switch st.State {
		case Completed:
			return st, nil
		case Failed:
			return st, st.Err()
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-time.After(interval):
		}
	}
}

func completed(st *Status) int {
	c := 0
	for _, t := range st.Tasks {
		if t.State == "COMPLETED" {
			c++
		}
	}
	return c
}

// Err is the error of a failed submission: which tasks failed and how to
// resubmit them, or the merge job's failure and its log; nil unless
// State is Failed.
func (st *Status) Err() error {
	if st.State != Failed {
		return nil
	}
	failed := st.FailedTasks()
	if len(failed) == 0 {
		msg := fmt.Sprintf("the merge job %s %s: see %s", st.Merge.Job, strings.ToLower(st.Merge.State), st.Merge.Log)
		if r := st.Merge.Progress; r != nil && r.Error != "" {
			msg = fmt.Sprintf("the merge job %s failed: %s (log: %s)", st.Merge.Job, r.Error, st.Merge.Log)
		}
		return fmt.Errorf("%s", msg)
	}
	idx := make([]string, len(failed))
	var why []string
	for i, t := range failed {
		idx[i] = strconv.Itoa(t)
		if r := st.Tasks[t].Progress; r != nil && r.Error != "" {
			why = append(why, fmt.Sprintf("task %d: %s", t, r.Error))
		}
	}
	list := strings.Join(idx, ",")
	msg := fmt.Sprintf("task %s failed; resubmit with: voxlab status %s --resubmit %s", list, st.Sub.ArrayJob, list)
	if len(why) > 0 {
		msg += " (" + strings.Join(why, "; ") + ")"
	}
	return fmt.Errorf("%s", msg)
}

// Cancel cancels whatever of a submission may still run: the latest
// attempt of every task and the merge job.
func (s Slurm) Cancel(ctx context.Context, sub *Submission) error {
	ids := []string{sub.MergeJob}
	seen := map[string]bool{sub.MergeJob: true}
	for i := range sub.Attempts {
		if id := sub.TaskJob(i); !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return s.cancel(ctx, ids...)
}
