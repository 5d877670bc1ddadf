package cluster

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Job states: SLURM's own (PENDING, RUNNING, COMPLETED, FAILED, TIMEOUT,
// …), or one of these when squeue no longer lists the job.
const (
	// StateLost: the task started, squeue has forgotten it and its
	// progress file has no final line: it died without reporting (killed,
	// node lost); see its log.
	StateLost = "LOST"
	// StateUnknown: neither squeue nor a progress file knows the job.
	StateUnknown = "UNKNOWN"
)

// TaskStatus is where one task (or the merge job, Task == -1) stands.
type TaskStatus struct {
	Task  int    `json:"task"`
	Job   string `json:"job"`
	State string `json:"state"`
	// Reason is squeue's reason for a pending job ("Resources",
	// "Dependency", "DependencyNeverSatisfied").
	Reason string `json:"reason,omitempty"`
	// Progress is the last record of the progress file, if any, and
	// Warnings those of the latest run.
	Progress *Record  `json:"progress,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	Log      string   `json:"log"`
}

// Ended reports whether the job is over, successfully or not.
func (t TaskStatus) Ended() bool { return t.State == "COMPLETED" || t.Failed() }

// Failed reports whether the job ended without success, or can never run
// (a merge job whose dependency failed).
func (t TaskStatus) Failed() bool {
	switch t.State {
	case "COMPLETED", "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "REQUEUE_FED",
		"REQUEUE_HOLD", "RESIZING", "RESV_DEL_HOLD", "SIGNALING", "STAGE_OUT", "SUSPENDED", "STOPPED", "SPECIAL_EXIT":
		return t.State == "PENDING" && t.Reason == "DependencyNeverSatisfied"
	}
	return true
}

// Overall states of a submission.
const (
	Running   = "running"
	Completed = "completed"
	Failed    = "failed"
)

// Status is where a submission stands.
type Status struct {
	Sub   *Submission  `json:"submission"`
	Tasks []TaskStatus `json:"tasks"`
	Merge TaskStatus   `json:"merge"`
	// State is Running, Completed (the merge job completed) or Failed (a
	// task or the merge failed and nothing is left running).
	State string `json:"state"`
}

// FailedTasks lists the tasks that failed.
func (st *Status) FailedTasks() []int {
	var out []int
	for _, t := range st.Tasks {
		if t.Failed() {
			out = append(out, t.Task)
		}
	}
	return out
}

// Status asks squeue and reads the progress files.
func (s Slurm) Status(ctx context.Context, sub *Submission) (*Status, error) {
	q, err := s.Queue(ctx)
	if err != nil {
		return nil, err
	}
	return status(sub, q), nil
}

func status(sub *Submission, q map[string]QueueEntry) *Status {
	st := &Status{Sub: sub}
	active := false
	for i := range sub.Spec.Tasks {
		t := taskStatus(i, sub.TaskJob(i), sub.Spec.Shared, sub.Attempts[i], q)
		active = active || !t.Ended()
		st.Tasks = append(st.Tasks, t)
	}
	st.Merge = taskStatus(-1, sub.MergeJob, sub.Spec.Shared, sub.MergeJob, q)
	switch {
	case st.Merge.State == "COMPLETED":
		st.State = Completed
	case st.Merge.Failed() && !active:
		st.State = Failed
	default:
		st.State = Running
	}
	return st
}

func taskStatus(i int, id, shared, logJob string, q map[string]QueueEntry) TaskStatus {
	t := TaskStatus{Task: i, Job: id, Log: LogPath(shared, logJob, i)}
	rec, warnings, err := ReadProgress(ProgressPath(shared, i))
	if err == nil {
		t.Progress, t.Warnings = &rec, warnings
	}
	if e, ok := q[id]; ok {
		t.State, t.Reason = e.State, e.Reason
		return t
	}
	switch {
	case errors.Is(err, ErrNoProgress) || err != nil:
		t.State = StateUnknown
	case rec.Kind == "finished":
		t.State = "COMPLETED"
	case rec.Kind == "failed":
		t.State = "FAILED"
	case rec.Kind == "cancelled":
		t.State = "CANCELLED"
	default:
		t.State = StateLost
	}
	return t
}

// Resubmit submits the given failed tasks again, alone (`sbatch
// --array=i,j`), and replaces the merge job by one that waits for them
// (afterok) and for whatever else of the submission still runs
// (afterany: the original array cannot satisfy afterok once one of its
// tasks failed; the merge checks each task's progress file itself). It
// returns the new job ids and saves the submission.
func (s Slurm) Resubmit(ctx context.Context, sub *Submission, tasks []int) (taskJob, mergeJob string, err error) {
	st, err := s.Status(ctx, sub)
	if err != nil {
		return "", "", err
	}
	if len(tasks) == 0 {
		return "", "", errors.New("no task to resubmit")
	}
	sort.Ints(tasks)
	for _, i := range tasks {
		if i < 0 || i >= sub.Spec.Tasks {
			return "", "", fmt.Errorf("task %d: the submission has tasks 0 to %d", i, sub.Spec.Tasks-1)
		}
		if t := st.Tasks[i]; !t.Ended() {
			return "", "", fmt.Errorf("task %d is %s (job %s): wait for it or scancel it first", i, t.State, t.Job)
		}
	}
	// What the new merge job must wait for besides the new tasks.
	var others []string
	seen := map[string]bool{}
	for i, t := range st.Tasks {
		if !t.Ended() && !seen[sub.Attempts[i]] {
			seen[sub.Attempts[i]] = true
			others = append(others, sub.Attempts[i])
		}
	}
	id, err := s.sbatch(ctx, sub.Spec.ArrayScriptPath(), "--array="+arrayRange(tasks))
	if err != nil {
		return "", "", err
	}
	for _, i := range tasks {
		sub.Attempts[i] = id
	}
	dep := "afterok:" + id
	if len(others) > 0 {
		dep += ",afterany:" + strings.Join(others, ":")
	}
	if !st.Merge.Ended() {
		// Ignore the error: the old merge job may have just gone.
		s.cancel(ctx, sub.MergeJob)
	}
	merge, err := s.sbatch(ctx, sub.Spec.MergeScriptPath(), "--dependency="+dep)
	if err != nil {
		err = fmt.Errorf("tasks resubmitted as job %s, but the merge job: %w", id, err)
		// The new attempts must be recorded even so, or status would
		// follow the old ones; failing that is said too.
		if serr := sub.Save(); serr != nil {
			err = fmt.Errorf("%w; and recording the resubmission in %s failed: %v", err, sub.Spec.Shared, serr)
		}
		return id, "", err
	}
	sub.MergeJob = merge
	return id, merge, sub.Save()
}

// CheckTasksFinished returns an error naming every task of a submission
// whose progress file does not end with a finished run; the merge job
// runs it first, since after a resubmission it may start once the other
// tasks have ended, successfully or not.
func CheckTasksFinished(shared string, tasks int) error {
	var bad []string
	for i := range tasks {
		rec, _, err := ReadProgress(ProgressPath(shared, i))
		switch {
		case err != nil:
			bad = append(bad, fmt.Sprintf("task %d has no progress file (%v)", i, err))
		case rec.Kind != "finished":
			what := rec.Kind
			if rec.Error != "" {
				what += ": " + rec.Error
			}
			bad = append(bad, fmt.Sprintf("task %d %s", i, what))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("cannot merge: %s (resubmit failed tasks with voxlab status JOBID --resubmit I)", strings.Join(bad, "; "))
	}
	return nil
}
