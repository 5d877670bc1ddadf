package panel

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/voxlab/voxlab/processing/job"
)

// clusterFake records the requests its RunCluster gets; a run waits on
// gate when it is set.
type clusterFake struct {
	mu   sync.Mutex
	reqs []Request
	gate chan struct{}
}

func (c *clusterFake) run(ctx context.Context, r Request, p *job.Progress) error {
	c.mu.Lock()
	c.reqs = append(c.reqs, r)
	c.mu.Unlock()
	p.Stage("tasks", int64(r.Cluster.Tasks), "tasks")
	if c.gate != nil {
		select {
		case <-c.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	p.Add(int64(r.Cluster.Tasks))
	return nil
}

func (c *clusterFake) requests() []Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Request(nil), c.reqs...)
}

// newClusterHarness is newPanelHarness with a pipeline that can run on a
// cluster.
func newClusterHarness(t *testing.T, cf *clusterFake) *panelHarness {
	t.Helper()
	return newPanelHarnessFor(t, cpuProbe, func(pl *Pipeline) { pl.RunCluster = cf.run })
}

func TestClusterChoiceOnlyWhereOffered(t *testing.T) {
	h := newPanelHarness(t, cpuProbe)
	if h.p.cl.box.Visible() {
		t.Error("the Run on choice shows for a pipeline without RunCluster")
	}
	if err := h.p.Set("run-on", RunCluster); err == nil {
		t.Error("a pipeline without RunCluster was set to run on the cluster")
	}
	if r, _ := h.p.Request(); r.Cluster != nil {
		t.Errorf("request %+v goes to a cluster", r)
	}
	c := newClusterHarness(t, &clusterFake{})
	if !c.p.cl.box.Visible() || c.p.cl.opts.Visible() {
		t.Errorf("with RunCluster: choice shown %v, options shown %v; want the choice, options only once chosen",
			c.p.cl.box.Visible(), c.p.cl.opts.Visible())
	}
}

// TestClusterRun: choosing the cluster sends the request, with its
// options, to RunCluster (not Run), as its own job; the command line
// shown is voxlab submit's.
func TestClusterRun(t *testing.T) {
	cf := &clusterFake{}
	h := newClusterHarness(t, cf)
	for name, v := range map[string]string{"run-on": RunCluster, "tasks": "3", "partition": "gpu", "gres": "gpu:1", "time": "1:00:00", "count": "6"} {
		if err := h.p.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	h.planned()
	if !h.p.cl.opts.Visible() {
		t.Error("the cluster options are hidden")
	}
	if cmd := h.p.pv.cmd.Text; !strings.Contains(cmd, "voxlab submit slurm fake ") || !strings.Contains(cmd, "--tasks 3 --partition gpu --gres gpu:1 --time 1:00:00") {
		t.Errorf("command line %q", cmd)
	}
	id := h.run()
	st := h.ended(id)
	if st.State != job.StateFinished || st.Event.Done != 3 || st.Device != "slurm #1" || !strings.HasPrefix(st.Name, "slurm: ") {
		t.Errorf("job %+v", st)
	}
	reqs := cf.requests()
	if len(reqs) != 1 || *reqs[0].Cluster != (ClusterOptions{Tasks: 3, Partition: "gpu", Gres: "gpu:1", Time: "1:00:00"}) || reqs[0].Values.Int("count") != 6 {
		t.Fatalf("RunCluster got %+v", reqs)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "out.txt")); !os.IsNotExist(err) {
		t.Error("the local Run ran too")
	}
	// Back to this machine: the local Run again.
	h.p.Set("run-on", RunHere)
	h.set("out", filepath.Join(h.dir, "local.txt"))
	if st := h.ended(h.run()); st.State != job.StateFinished || st.Device != "cpu" || len(cf.requests()) != 1 {
		t.Errorf("local job %+v after %d cluster runs", st, len(cf.requests()))
	}
}

// TestClusterOptionsChecked: a bad task count or an option that could
// smuggle another sbatch option is shown beside the controls and stops
// Run.
func TestClusterOptionsChecked(t *testing.T) {
	h := newClusterHarness(t, &clusterFake{})
	h.p.Set("run-on", RunCluster)
	for _, tc := range []struct{ name, value, msg string }{
		{"tasks", "0", "at least 1"},
		{"tasks", "many", "whole number"},
		{"partition", "gpu; touch PWNED", "unexpected characters"},
		{"gres", "--wrap=x", "unexpected characters"},
	} {
		h.p.Set(tc.name, tc.value)
		h.planned()
		if !strings.Contains(h.p.cl.msg.Text, tc.msg) || !h.p.RunButton().Disabled() {
			t.Errorf("%s %q: message %q, Run disabled %v", tc.name, tc.value, h.p.cl.msg.Text, h.p.RunButton().Disabled())
		}
		h.p.Set("tasks", "2")
		h.p.Set("partition", "")
		h.p.Set("gres", "")
	}
	h.planned()
	if h.p.cl.msg.Text != "" || h.p.RunButton().Disabled() {
		t.Errorf("valid options: message %q, Run disabled %v", h.p.cl.msg.Text, h.p.RunButton().Disabled())
	}
}

// TestClusterRunDespiteLocalPlan: the plan on show is this machine's; a
// request this machine cannot plan can still go to the cluster, whose
// tasks plan on their nodes.
func TestClusterRunDespiteLocalPlan(t *testing.T) {
	h := newClusterHarness(t, &clusterFake{})
	h.set("count", "200000") // the fake's plan refuses this
	h.planned()
	if h.p.PlanError() == nil || !h.p.RunButton().Disabled() {
		t.Fatalf("plan error %v, Run disabled %v: want the local plan to fail", h.p.PlanError(), h.p.RunButton().Disabled())
	}
	h.p.Set("run-on", RunCluster)
	h.planned()
	if h.p.RunButton().Disabled() {
		t.Error("Run stays disabled for a cluster run")
	}
	if st := h.ended(h.run()); st.State != job.StateFinished {
		t.Errorf("cluster job %+v", st)
	}
}

// TestClusterRunsDoNotQueue: SLURM queues the tasks, so two cluster runs
// run side by side instead of waiting for each other in the panel.
func TestClusterRunsDoNotQueue(t *testing.T) {
	cf := &clusterFake{gate: make(chan struct{})}
	h := newClusterHarness(t, cf)
	h.p.Set("run-on", RunCluster)
	h.planned()
	a := h.run()
	h.set("out", filepath.Join(h.dir, "second.txt"))
	b := h.run()
	h.until("both cluster runs to start", func() bool {
		return h.status(a).State == job.StateRunning && h.status(b).State == job.StateRunning
	})
	close(cf.gate)
	for _, id := range []int{a, b} {
		if st := h.ended(id); st.State != job.StateFinished {
			t.Errorf("job %d: %+v", id, st)
		}
	}
}

// TestRequestErrorStopsEveryRun: a plan error about the request itself
// (an output that is the input) shows beside the output, whatever the
// message names, and stops Run here and on the cluster: the tasks would
// meet it again on their nodes.
func TestRequestErrorStopsEveryRun(t *testing.T) {
	cf := &clusterFake{}
	h := newClusterHarness(t, cf)
	h.set("out", h.in)
	h.planned()
	for _, where := range []string{RunHere, RunCluster} {
		h.p.Set("run-on", where)
		h.planned()
		if msg := h.p.FieldError("out"); !strings.Contains(msg, "is the input") {
			t.Errorf("%s: beside the output: %q", where, msg)
		}
		if !h.p.RunButton().Disabled() {
			t.Errorf("%s: Run is enabled", where)
		}
		if _, err := h.p.Run(); err == nil || !strings.Contains(err.Error(), "is the input") {
			t.Errorf("%s: Run: %v", where, err)
		}
	}
	if n := len(cf.requests()); n != 0 || h.p.Jobs().Len() != 0 {
		t.Errorf("%d cluster runs, %d jobs", n, h.p.Jobs().Len())
	}
	if b, _ := os.ReadFile(h.in); string(b) != "x" {
		t.Errorf("the input holds %q", b)
	}
	h.set("out", filepath.Join(h.dir, "other.txt"))
	h.planned()
	if msg := h.p.FieldError("out"); msg != "" || h.p.RunButton().Disabled() {
		t.Errorf("another output: message %q, Run disabled %v", msg, h.p.RunButton().Disabled())
	}
}
