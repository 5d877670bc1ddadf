package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/voxlab/voxlab/panel"
	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
)

// panelSpec returns the spec of a pipeline the panel offers.
func panelSpec(t *testing.T, command string) *pipeline.Spec {
	t.Helper()
	for _, vp := range guiPipelines() {
		if vp.Spec.Name == command {
			return vp.Spec
		}
	}
	t.Fatalf("the panel offers no %s", command)
	return nil
}

// runPanelJob runs runOnCluster as the panel's queue would, in a job.
func runPanelJob(ctx context.Context, t *testing.T, r panel.Request, o clusterOptions) ([]job.Event, error) {
	return runPanelJobSink(ctx, t, r, o, nil)
}

// runPanelJobSink is runPanelJob with sink called on each event too.
func runPanelJobSink(ctx context.Context, t *testing.T, r panel.Request, o clusterOptions, sink func(job.Event)) ([]job.Event, error) {
	s := panelSpec(t, r.Command)
	var evs []job.Event
	err := job.Run(ctx, r.Command, func(ctx context.Context, prog *job.Progress) error {
		return runOnCluster(ctx, s, r, o, prog)
	}, func(e job.Event) {
		evs = append(evs, e)
		if sink != nil {
			sink(e)
		}
	})
	return evs, err
}

// TestRunOnCluster: a panel request goes to sbatch as `voxlab submit
// slurm` would send it — the panel's parameters and device settings as
// flags, its arguments after "--", quoted — and the job follows the
// submission to its end.
func TestRunOnCluster(t *testing.T) {
	dir := installFakeSlurm(t, "701", "702")
	setQueue(t, dir, "701_0|COMPLETED|None", "701_1|COMPLETED|None", "701_2|COMPLETED|None", "702|COMPLETED|None")
	work := hostileDir(t)
	r := panel.Request{Command: "detect", Args: []string{filepath.Join(work, "planes"), filepath.Join(work, "cells $x.csv")},
		Values: pipeline.Values{"xml": true, "threshold": 9.0}, Device: panel.Device{Backend: "cpu", Batch: "3"}}
	shared := filepath.Join(work, "shared 'q'")
	evs, err := runPanelJob(context.Background(), t, r, clusterOptions{Tasks: 3, Partition: "gpu", Shared: shared, Interval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if last := evs[len(evs)-1]; last.Kind != job.Finished || last.Stage != "tasks" || last.Done != 3 {
		t.Errorf("last event %+v, want the 3 tasks finished", last)
	}
	sub, err := cluster.Load(shared)
	if err != nil {
		t.Fatal(err)
	}
	if sub.Spec.Tasks != 3 || sub.Spec.Partition != "gpu" || !slices.Equal(sub.Spec.Inputs, r.Args) {
		t.Errorf("spec %+v", sub.Spec)
	}
	for _, want := range []string{"--backend=cpu", "--batch-size=3", "--threshold=9", "--xml=true"} {
		if !slices.Contains(sub.Spec.Args, want) {
			t.Errorf("the tasks' options %q lack %s", sub.Spec.Args, want)
		}
	}
	if calls := sbatchCalls(dir); len(calls) != 2 {
		t.Errorf("sbatch calls %q", calls)
	}
	noPWNED(t, work)
}

// TestRunOnClusterFails: a failed task ends the panel's job with the
// resubmission to type; a cancelled job cancels the SLURM jobs.
func TestRunOnClusterFails(t *testing.T) {
	dir := installFakeSlurm(t, "801", "802", "901", "902")
	setQueue(t, dir, "801_0|FAILED|None", "801_1|COMPLETED|None", "802|PENDING|DependencyNeverSatisfied")
	r := panel.Request{Command: "detect", Args: []string{"in", "out.csv"}}
	_, err := runPanelJob(context.Background(), t, r, clusterOptions{Tasks: 2, Shared: t.TempDir(), Interval: time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "voxlab status 801 --resubmit 0") {
		t.Errorf("a failed task: %v", err)
	}

	// Cancelled once the jobs are submitted (the job says so), while
	// its task runs.
	setQueue(t, dir, "901_0|RUNNING|None", "902|PENDING|Dependency")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = runPanelJobSink(ctx, t, r, clusterOptions{Tasks: 1, Shared: filepath.Join(t.TempDir(), "s"), Interval: time.Millisecond},
		func(e job.Event) {
			if e.Kind == job.Warning && strings.HasPrefix(e.Message, "submitted to SLURM") {
				cancel()
			}
		})
	if err == nil {
		t.Error("a job cancelled while its tasks run ended without error")
	}
	data, _ := os.ReadFile(filepath.Join(dir, "scancel.log"))
	if got := strings.Split(strings.TrimSuffix(string(data), "\x00\n"), "\x00"); !slices.Equal(got, []string{"902", "901_0"}) {
		t.Errorf("scancel got %q, want the merge job and the task", got)
	}
	if _, err := runPanelJob(context.Background(), t, r, clusterOptions{}); err == nil || !strings.Contains(err.Error(), "tasks") {
		t.Errorf("no task count: %v", err)
	}
}

// TestGUIRunOnCluster: with sbatch on the PATH the panel offers the
// cluster for every pipeline that splits into tasks (convert does not:
// it is bound by one disk); a run there goes through voxlab submit with
// the panel's settings and is followed to its end.
func TestGUIRunOnCluster(t *testing.T) {
	dir := installFakeSlurm(t, "401", "402")
	setQueue(t, dir, "401_0|COMPLETED|None", "401_1|COMPLETED|None", "402|COMPLETED|None")
	panelVoxlab = "/opt/voxlab/bin/voxlab"
	defer func() { panelVoxlab = "" }()
	for _, vp := range guiPipelines() {
		if vp.Spec.Split && vp.RunCluster == nil {
			t.Errorf("%s does not offer the cluster though sbatch is on the PATH", vp.Spec.Name)
		}
		if !vp.Spec.Split && vp.RunCluster != nil {
			t.Errorf("%s offers the cluster though it does not split into tasks", vp.Spec.Name)
		}
	}
	h := newGUIHarness(t)
	h.choose("detect", map[string]string{"run-on": panel.RunCluster, "tasks": "2", "partition": "cpu", "threshold": "9"})
	req, err := h.p.Request()
	if err != nil || req.Cluster == nil || req.Cluster.Tasks != 2 {
		t.Fatalf("request %+v: %v", req, err)
	}
	st := h.runToEnd()
	if st.State != job.StateFinished || st.Event.Done != 2 || st.Event.Total != 2 || !strings.HasPrefix(st.Device, "slurm") {
		t.Fatalf("cluster job %+v", st)
	}
	calls := sbatchCalls(dir)
	if len(calls) != 2 {
		t.Fatalf("sbatch calls %q", calls)
	}
	if want := filepath.Join(filepath.Dir(req.Args[1]), "voxlab-slurm") + "/"; !strings.HasPrefix(calls[0][len(calls[0])-1], want) {
		t.Errorf("the scripts are in %s, want them beside the output in %s", calls[0][len(calls[0])-1], want)
	}
	script, err := os.ReadFile(calls[0][len(calls[0])-1])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --array=0-1\n", "#SBATCH --partition=cpu\n", "'/opt/voxlab/bin/voxlab' 'detect'", "'--threshold=9'", "-- '" + req.Args[0] + "'"} {
		if !strings.Contains(string(script), want) {
			t.Errorf("array script lacks %q:\n%s", want, script)
		}
	}

	// Without sbatch, no pipeline offers the cluster.
	t.Setenv("PATH", "/nonexistent")
	for _, vp := range guiPipelines() {
		if vp.RunCluster != nil {
			t.Errorf("%s offers the cluster without sbatch", vp.Spec.Name)
		}
	}
}
