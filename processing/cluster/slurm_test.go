package cluster

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeSlurm installs sbatch, squeue and scancel scripts that log their
// arguments (one call per line, arguments NUL-separated) and answer from
// files the test writes: sbatch prints the next id of $dir/ids, squeue
// prints $dir/queue.
type fakeSlurm struct {
	dir string
}

func newFakeSlurm(t *testing.T, ids ...string) *fakeSlurm {
	t.Helper()
	dir := t.TempDir()
	f := &fakeSlurm{dir: dir}
	for _, name := range []string{"sbatch", "squeue", "scancel"} {
		script := "#!/bin/bash\n" +
			`{ printf '%s\0' "$@"; echo; } >>"` + dir + `/` + name + `.log"` + "\n"
		switch name {
		case "sbatch":
			script += `id=$(head -n1 "` + dir + `/ids"); sed -i 1d "` + dir + `/ids"` + "\n" +
				`[ -n "$id" ] || { echo "sbatch: error: Batch job submission failed" >&2; exit 1; }` + "\n" +
				`echo "$id;cluster"` + "\n"
		case "squeue":
			script += `cat "` + dir + `/queue" 2>/dev/null` + "\n"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.setIDs(t, ids...)
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	return f
}

func (f *fakeSlurm) setIDs(t *testing.T, ids ...string) {
	os.WriteFile(filepath.Join(f.dir, "ids"), []byte(strings.Join(ids, "\n")+"\n"), 0o644)
}

func (f *fakeSlurm) setQueue(t *testing.T, lines ...string) {
	os.WriteFile(filepath.Join(f.dir, "queue"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// calls returns the argument lists a command was called with.
func (f *fakeSlurm) calls(name string) [][]string {
	data, _ := os.ReadFile(filepath.Join(f.dir, name+".log"))
	var out [][]string
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line != "" {
			out = append(out, strings.Split(strings.TrimSuffix(line, "\x00"), "\x00"))
		}
	}
	return out
}

func testSpec(t *testing.T) Spec {
	return Spec{Pipeline: "dezing", Exe: "/opt/voxlab", Inputs: []string{"in.nxs", "out.nxs"}, Tasks: 4,
		Shared: filepath.Join(t.TempDir(), "shared dir"), Workdir: t.TempDir(), Gres: "gpu:1"}
}

func TestSubmit(t *testing.T) {
	f := newFakeSlurm(t, "101", "102")
	spec := testSpec(t)
	sub, err := Slurm{}.Submit(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if sub.ArrayJob != "101" || sub.MergeJob != "102" || !slices.Equal(sub.Attempts, []string{"101", "101", "101", "101"}) {
		t.Errorf("submission %+v", sub)
	}
	calls := f.calls("sbatch")
	want := [][]string{
		{"--parsable", spec.ArrayScriptPath()},
		{"--parsable", "--dependency=afterok:101", spec.MergeScriptPath()},
	}
	if len(calls) != 2 || !slices.Equal(calls[0], want[0]) || !slices.Equal(calls[1], want[1]) {
		t.Errorf("sbatch calls %q, want %q", calls, want)
	}
	for _, p := range []string{spec.ArrayScriptPath(), spec.MergeScriptPath(), filepath.Join(spec.Shared, "logs"), filepath.Join(spec.Shared, "progress")} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	// Found again from any of its job ids.
	for _, id := range []string{"101", "102", "101_3"} {
		got, err := Find(id)
		if err != nil || got.ArrayJob != "101" || got.Spec.Shared != spec.Shared || got.Spec.Inputs[1] != "out.nxs" {
			t.Errorf("Find(%s) = %+v, %v", id, got, err)
		}
	}
	if _, err := Find("999"); err == nil || !strings.Contains(err.Error(), "--shared") {
		t.Errorf("Find of an unknown job: %v", err)
	}
	if _, err := Find("12; rm"); err == nil {
		t.Error("Find accepted a bad job id")
	}
}

func TestSubmitMergeFailureCancelsArray(t *testing.T) {
	f := newFakeSlurm(t, "201") // no id left for the merge job
	_, err := Slurm{}.Submit(context.Background(), testSpec(t))
	if err == nil || !strings.Contains(err.Error(), "Batch job submission failed") || !strings.Contains(err.Error(), "201 was cancelled") {
		t.Fatalf("err = %v", err)
	}
	if c := f.calls("scancel"); len(c) != 1 || !slices.Equal(c[0], []string{"201"}) {
		t.Errorf("scancel calls %q", c)
	}
}

func TestParseJobID(t *testing.T) {
	for in, want := range map[string]string{"123\n": "123", "77;cluster\n": "77", " 5 ": "5"} {
		if got, err := ParseJobID(in); err != nil || got != want {
			t.Errorf("ParseJobID(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "Submitted batch job 5", "12a", ";x"} {
		if _, err := ParseJobID(bad); err == nil {
			t.Errorf("ParseJobID(%q) accepted", bad)
		}
	}
}

func writeProgress(t *testing.T, shared string, task int, lines ...string) {
	t.Helper()
	p := ProgressPath(shared, task)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStatusAndResubmit(t *testing.T) {
	f := newFakeSlurm(t, "300", "301")
	sub, err := Slurm{}.Submit(context.Background(), testSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	sh := sub.Spec.Shared
	writeProgress(t, sh, 0, `{"kind":"progress","stage":"projections","done":5,"total":10}`, `{"kind":"finished","done":10,"total":10}`)
	writeProgress(t, sh, 1, `{"kind":"progress","done":3,"total":10}`, `{"kind":"warning","message":"hot pixel","done":3,"total":10}`, `{"kind":"failed","error":"disk full","done":3,"total":10}`)
	writeProgress(t, sh, 2, `{"kind":"progress","stage":"projections","done":7,"total":10}`)
	// Task 0 is gone from squeue (use its progress file), 1 failed, 2 runs,
	// 3 waits; the merge waits for the array.
	f.setQueue(t, "300_1|FAILED|NonZeroExitCode", "300_2|RUNNING|None", "300_3|PENDING|Resources", "301|PENDING|Dependency", "999|RUNNING|None")
	st, err := Slurm{}.Status(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	wantStates := []string{"COMPLETED", "FAILED", "RUNNING", "PENDING"}
	for i, ts := range st.Tasks {
		if ts.State != wantStates[i] || ts.Job != "300_"+string(rune('0'+i)) {
			t.Errorf("task %d: %s %s, want %s", i, ts.Job, ts.State, wantStates[i])
		}
	}
	if st.Tasks[1].Progress.Error != "disk full" || !slices.Equal(st.Tasks[1].Warnings, []string{"hot pixel"}) || st.Tasks[2].Progress.Done != 7 {
		t.Errorf("progress not read: %+v", st.Tasks)
	}
	if st.Tasks[3].Reason != "Resources" || st.Tasks[1].Log != filepath.Join(sh, "logs", "task-300_1.out") {
		t.Errorf("task 3 %+v, task 1 log %s", st.Tasks[3], st.Tasks[1].Log)
	}
	if st.State != Running || !slices.Equal(st.FailedTasks(), []int{1}) {
		t.Errorf("state %s, failed %v", st.State, st.FailedTasks())
	}
	if sa := st.Tasks[0]; sa.Ended() == false || sa.Failed() {
		t.Errorf("task 0 ended %v failed %v", sa.Ended(), sa.Failed())
	}

	// Resubmitting a running task is refused.
	if _, _, err := (Slurm{}).Resubmit(context.Background(), sub, []int{2}); err == nil || !strings.Contains(err.Error(), "RUNNING") {
		t.Errorf("resubmit of a running task: %v", err)
	}
	// Task 1 alone: the new merge waits for it (afterok) and for the
	// array's tasks still running (afterany).
	f.setIDs(t, "310", "311")
	taskJob, mergeJob, err := Slurm{}.Resubmit(context.Background(), sub, []int{1})
	if err != nil || taskJob != "310" || mergeJob != "311" {
		t.Fatalf("Resubmit = %s, %s, %v", taskJob, mergeJob, err)
	}
	calls := f.calls("sbatch")
	if got := calls[len(calls)-2]; !slices.Equal(got, []string{"--parsable", "--array=1", sub.Spec.ArrayScriptPath()}) {
		t.Errorf("task resubmission %q", got)
	}
	if got := calls[len(calls)-1]; !slices.Equal(got, []string{"--parsable", "--dependency=afterok:310,afterany:300", sub.Spec.MergeScriptPath()}) {
		t.Errorf("merge resubmission %q", got)
	}
	if c := f.calls("scancel"); len(c) != 1 || c[0][0] != "301" {
		t.Errorf("old merge not cancelled: %q", c)
	}
	again, err := Load(sh)
	if err != nil || again.MergeJob != "311" || !slices.Equal(again.Attempts, []string{"300", "310", "300", "300"}) || again.TaskJob(1) != "310_1" {
		t.Errorf("saved submission %+v, %v", again, err)
	}

	// Everything ends: task 1's new attempt completed, the merge too.
	writeProgress(t, sh, 2, `{"kind":"finished","done":10,"total":10}`)
	writeProgress(t, sh, 3, `{"kind":"finished","done":10,"total":10}`)
	f.setQueue(t, "310_1|COMPLETED|None", "311|COMPLETED|None")
	st, _ = Slurm{}.Status(context.Background(), again)
	if st.State != Completed || len(st.FailedTasks()) != 0 {
		t.Errorf("state %s, failed %v", st.State, st.FailedTasks())
	}
}

func TestStatusFailedWhenNothingRuns(t *testing.T) {
	f := newFakeSlurm(t, "400", "401")
	sub, err := Slurm{}.Submit(context.Background(), testSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	// Task 2 died without a final line, and squeue forgot it; the merge can
	// never run.
	writeProgress(t, sub.Spec.Shared, 2, `{"kind":"progress","done":1,"total":9}`)
	f.setQueue(t, "400_0|COMPLETED|None", "400_1|COMPLETED|None", "400_3|COMPLETED|None", "401|PENDING|DependencyNeverSatisfied")
	st, err := Slurm{}.Status(context.Background(), sub)
	if err != nil {
		t.Fatal(err)
	}
	if st.Tasks[2].State != StateLost || st.State != Failed || !slices.Equal(st.FailedTasks(), []int{2}) {
		t.Errorf("task 2 %s, state %s, failed %v", st.Tasks[2].State, st.State, st.FailedTasks())
	}
	// Resubmitting it: nothing else runs, so the merge waits only for it.
	f.setIDs(t, "410", "411")
	if _, _, err := (Slurm{}).Resubmit(context.Background(), sub, []int{2}); err != nil {
		t.Fatal(err)
	}
	calls := f.calls("sbatch")
	if got := calls[len(calls)-1]; got[1] != "--dependency=afterok:410" {
		t.Errorf("merge dependency %q", got)
	}
}

// TestResubmitSaysWhenTheRecordFails: when the merge job cannot be
// submitted after the tasks were, and the submission cannot be recorded
// either (its submission.json is taken by a folder), the error says
// both, not only the first.
func TestResubmitSaysWhenTheRecordFails(t *testing.T) {
	f := newFakeSlurm(t, "500", "501")
	sub, err := Slurm{}.Submit(context.Background(), testSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	f.setQueue(t, "500_0|FAILED|None", "500_1|COMPLETED|None", "500_2|COMPLETED|None", "500_3|COMPLETED|None", "501|PENDING|DependencyNeverSatisfied")
	path := submissionPath(sub.Spec.Shared)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(path, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.setIDs(t, "510") // the merge job's sbatch fails
	_, _, err = Slurm{}.Resubmit(context.Background(), sub, []int{0})
	if err == nil || !strings.Contains(err.Error(), "merge job") || !strings.Contains(err.Error(), "recording the resubmission") {
		t.Errorf("Resubmit: %v, want the merge's failure and the record's", err)
	}
}
