package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxlab/voxlab/processing/job"
)

// queueSteps makes the fake squeue answer with each step in turn, the
// last one from then on.
func (f *fakeSlurm) queueSteps(t *testing.T, steps ...[]string) {
	t.Helper()
	for i, s := range steps {
		os.WriteFile(filepath.Join(f.dir, fmt.Sprintf("queue.%d", i+1)), []byte(strings.Join(s, "\n")+"\n"), 0o644)
	}
	script := "#!/bin/bash\nD='" + f.dir + "'\n" +
		`n=$(( $(cat "$D/calls" 2>/dev/null || echo 0) + 1 )); echo $n >"$D/calls"` + "\n" +
		fmt.Sprintf(`[ $n -gt %d ] && n=%d`, len(steps), len(steps)) + "\n" +
		`cat "$D/queue.$n"` + "\n"
	if err := os.WriteFile(filepath.Join(f.dir, "squeue"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// writeRecords appends progress records for task i (-1: the merge).
func writeRecords(t *testing.T, shared string, i int, events ...job.Event) {
	t.Helper()
	pf, err := CreateProgressFile(ProgressPath(shared, i))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		pf.write(e)
	}
	pf.Close()
}

// follow runs Follow inside a job and returns its events.
func follow(t *testing.T, sub *Submission) ([]job.Event, error) {
	var mu sync.Mutex
	var evs []job.Event
	err := job.Run(context.Background(), "cluster", func(ctx context.Context, p *job.Progress) error {
		_, err := Slurm{}.Follow(ctx, sub, time.Millisecond, p)
		return err
	}, func(e job.Event) { mu.Lock(); evs = append(evs, e); mu.Unlock() })
	mu.Lock()
	defer mu.Unlock()
	return evs, err
}

func TestFollowCompletes(t *testing.T) {
	f := newFakeSlurm(t, "101", "102")
	spec := testSpec(t)
	spec.Tasks = 2
	sub, err := Slurm{}.Submit(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	writeRecords(t, spec.Shared, 0, job.Event{Kind: job.Warning, Message: "clipped a lot"}, job.Event{Kind: job.Finished})
	writeRecords(t, spec.Shared, -1, job.Event{Kind: job.Progressed, Stage: "merge projections", Done: 90, Total: 90, Unit: "slices"}, job.Event{Kind: job.Finished, Stage: "merge projections", Done: 90, Total: 90, Unit: "slices"})
	f.queueSteps(t,
		[]string{"101_0|RUNNING|None", "101_1|PENDING|Resources", "102|PENDING|Dependency"},
		[]string{"101_0|COMPLETED|None", "101_1|RUNNING|None", "102|PENDING|Dependency"},
		[]string{"101_0|COMPLETED|None", "101_1|COMPLETED|None", "102|RUNNING|None"},
		[]string{"101_0|COMPLETED|None", "101_1|COMPLETED|None", "102|COMPLETED|None"})
	evs, err := follow(t, sub)
	if err != nil {
		t.Fatalf("follow: %v", err)
	}
	var stages, warnings []string
	var tasksDone int64
	for _, e := range evs {
		if len(stages) == 0 || stages[len(stages)-1] != e.Stage {
			stages = append(stages, e.Stage)
		}
		if e.Stage == "tasks" {
			tasksDone = e.Done
		}
		if e.Kind == job.Warning {
			warnings = append(warnings, e.Message)
		}
	}
	if !slices.Equal(stages, []string{"tasks", "merge: merge projections"}) {
		t.Errorf("stages %q", stages)
	}
	last := evs[len(evs)-1]
	if tasksDone != 2 || last.Kind != job.Finished || last.Done != 90 || last.Total != 90 {
		t.Errorf("tasks done %d; last event %+v", tasksDone, last)
	}
	if !slices.Equal(warnings, []string{"task 0: clipped a lot"}) {
		t.Errorf("warnings %q, want task 0's once", warnings)
	}
}

func TestFollowFails(t *testing.T) {
	f := newFakeSlurm(t, "201", "202")
	spec := testSpec(t)
	spec.Tasks = 3
	sub, err := Slurm{}.Submit(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	writeRecords(t, spec.Shared, 1, job.Event{Kind: job.Failed, Err: fmt.Errorf("disk full")})
	f.queueSteps(t, []string{"201_0|COMPLETED|None", "201_1|FAILED|None", "201_2|COMPLETED|None", "202|PENDING|DependencyNeverSatisfied"})
	_, err = follow(t, sub)
	if err == nil || !strings.Contains(err.Error(), "voxlab status 201 --resubmit 1") || !strings.Contains(err.Error(), "task 1: disk full") {
		t.Errorf("follow of a failed task: %v", err)
	}
}

func TestFollowStopsWithContextAndCancel(t *testing.T) {
	f := newFakeSlurm(t, "301", "302", "303")
	spec := testSpec(t)
	spec.Tasks = 2
	sub, err := Slurm{}.Submit(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	sub.Attempts[1] = "303" // task 1 was resubmitted alone
	f.queueSteps(t, []string{"301_0|RUNNING|None", "303_1|RUNNING|None", "302|PENDING|Dependency"})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := (Slurm{}).Follow(ctx, sub, time.Millisecond, nil); err != context.DeadlineExceeded {
		t.Errorf("follow past its context: %v", err)
	}
	if err := (Slurm{}).Cancel(context.Background(), sub); err != nil {
		t.Fatal(err)
	}
	calls := f.calls("scancel")
	if len(calls) != 1 || !slices.Equal(calls[0], []string{"302", "301_0", "303_1"}) {
		t.Errorf("scancel calls %q", calls)
	}
}
