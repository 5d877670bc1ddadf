package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voxlab/voxlab/panel"
	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/demo"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/viewer"
)

// slurmCase is one demo pipeline submitted to a real SLURM.
type slurmCase struct {
	pipeline string
	// args are the positional arguments and flags, with OUT as "{out}".
	args  []string
	out   string // OUT's name in the case's folder
	tasks int
	// extra are further outputs beside OUT to compare (the XML).
	extra []string
	// same compares a single-process output with the merged one.
	same func(t *testing.T, whole, merged string)
	// failTask, when ≥ 0, is a task made to fail on its first attempt:
	// its part's name is taken by a folder, so the task cannot commit.
	failTask int
}

func (c slurmCase) argv(out string) []string {
	a := make([]string, len(c.args))
	for i, s := range c.args {
		a[i] = strings.ReplaceAll(s, "{out}", out)
	}
	return a
}

// TestSubmitRealSlurm runs every demo pipeline end to end on a real SLURM
// (scripts/test-cluster.sh starts a one-node one and sets
// VOXLAB_TEST_SLURM=1 and VOXLAB_BIN, the voxlab binary the nodes run):
// the demo data are written with `voxlab demo` into a folder whose name
// needs quoting, each pipeline runs single-process, then `voxlab submit
// slurm` submits all of them at once as job arrays with merge jobs, into
// shared folders with hostile names. One dezing task fails on its first
// attempt: `voxlab status --wait` must report it and name the
// resubmission, and `--resubmit` must run it alone and merge. Every
// merged output must equal the single-process one, and no file name may
// have run anything.
func TestSubmitRealSlurm(t *testing.T) {
	if os.Getenv("VOXLAB_TEST_SLURM") == "" {
		t.Skip("needs a running SLURM: set VOXLAB_TEST_SLURM=1 and VOXLAB_BIN (scripts/test-cluster.sh does)")
	}
	exe := os.Getenv("VOXLAB_BIN")
	if !filepath.IsAbs(exe) {
		t.Fatalf("VOXLAB_BIN=%q: want the absolute path of the voxlab binary the nodes run", exe)
	}
	if err := exec.Command("sinfo").Run(); err != nil {
		t.Fatalf("VOXLAB_TEST_SLURM is set but sinfo fails: %v", err)
	}
	t0 := time.Now()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv(cluster.EnvShared, "")
	root := hostileDir(t)
	data := filepath.Join(root, "demo data $(touch PWNED)")
	mustRun(t, "demo", data)
	h5same := func(t *testing.T, a, b string) {
		if err := sameHDF5(fileBytes(t, a), fileBytes(t, b), t0); err != nil {
			t.Errorf("%s differs from the single-process %s: %v", b, a, err)
		}
	}
	exact := func(t *testing.T, a, b string) {
		if !bytes.Equal(fileBytes(t, a), fileBytes(t, b)) {
			t.Errorf("%s differs from the single-process %s", b, a)
		}
	}
	cases := []slurmCase{
		{pipeline: "dezing", args: []string{filepath.Join(data, demo.TomoScan), "{out}", "--flat-field", "--minus-log", "--kernel", "5"},
			out: "dezinged 'x'.h5", tasks: 4, same: h5same, failTask: 2},
		{pipeline: "detect", args: []string{filepath.Join(data, demo.BrainPlanes), "{out}", "--xml"},
			out: `cells "y".csv`, extra: []string{`cells "y".xml`}, tasks: 5, same: exact, failTask: -1},
		{pipeline: "distance", args: []string{filepath.Join(data, demo.MapsGT), filepath.Join(data, demo.MapsSubmitted), "{out}",
			"--mask", filepath.Join(data, demo.MapsMask), "--chunk-size", "7"},
			out: "matrices 'z' $y", tasks: 4, same: sameDistanceDirs, failTask: -1},
	}

	type submitted struct {
		c            slurmCase
		dir, shared  string
		job          string
		start, ended time.Time
	}
	var subs []*submitted
	for _, c := range cases {
		dir := filepath.Join(root, c.pipeline+" out $HOME `touch PWNED`")
		os.MkdirAll(filepath.Join(dir, "single"), 0o755)
		os.MkdirAll(filepath.Join(dir, "merged"), 0o755)
		start := time.Now()
		mustRun(t, append([]string{c.pipeline}, append(c.argv(filepath.Join(dir, "single", c.out)), "--quiet")...)...)
		t.Logf("%s single-process: %.1f s", c.pipeline, time.Since(start).Seconds())
		shared := filepath.Join(dir, `shared 'q' "dq" $(touch PWNED) %j`)
		if c.failTask >= 0 {
			os.MkdirAll(cluster.PartPath(filepath.Join(shared, "parts"), c.pipeline, cluster.Task{Index: c.failTask, Count: c.tasks}), 0o755)
		}
		s := &submitted{c: c, dir: dir, shared: shared, start: time.Now()}
		args := append([]string{"submit", "slurm", c.pipeline}, c.argv(filepath.Join(dir, "merged", c.out))...)
		args = append(args, "--tasks", fmt.Sprint(c.tasks), "--time", "10:00", "--shared", shared, "--voxlab", exe, "--json")
		var sub struct {
			ArrayJob string `json:"array_job"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, args...)), &sub); err != nil || sub.ArrayJob == "" {
			t.Fatalf("%s: submit printed no job id (%v)", c.pipeline, err)
		}
		s.job = sub.ArrayJob
		subs = append(subs, s)
	}
	for _, s := range subs {
		code, stdout, stderr := runCmd("status", s.job, "--wait", "--interval", "500ms")
		if s.c.failTask >= 0 {
			want := fmt.Sprintf("--resubmit %d", s.c.failTask)
			if code != 1 || !strings.Contains(stderr, want) {
				t.Fatalf("%s: status --wait exited %d, want 1 and %q:\n%s%s", s.c.pipeline, code, want, stdout, stderr)
			}
			t.Logf("%s: task %d failed on its first attempt as planned after %.1f s", s.c.pipeline, s.c.failTask, time.Since(s.start).Seconds())
			os.Remove(cluster.PartPath(filepath.Join(s.shared, "parts"), s.c.pipeline, cluster.Task{Index: s.c.failTask, Count: s.c.tasks}))
			code, stdout, stderr = runCmd("status", s.job, "--resubmit", fmt.Sprint(s.c.failTask), "--wait", "--interval", "500ms")
		}
		if code != 0 {
			t.Fatalf("%s: status --wait exited %d:\n%s%s", s.c.pipeline, code, stdout, stderr)
		}
		s.ended = time.Now()
		t.Logf("%s: %d tasks and the merge done %.1f s after submission", s.c.pipeline, s.c.tasks, s.ended.Sub(s.start).Seconds())
	}
	// The GUI's Run on cluster: the detect case again, as the panel
	// submits and follows it.
	gstart := time.Now()
	dc := cases[1]
	gui := filepath.Join(root, "gui $(touch PWNED)")
	os.MkdirAll(gui, 0o755)
	r := panel.Request{Command: "detect", Args: dc.argv(filepath.Join(gui, dc.out))[:2], Values: pipeline.Values{"xml": true}}
	evs, err := runPanelJob(context.Background(), t, r, clusterOptions{Tasks: 3, Time: "10:00", Shared: filepath.Join(gui, "shared"),
		Voxlab: exe, Interval: 500 * time.Millisecond})
	if err != nil {
		t.Fatalf("Run on cluster: %v", err)
	}
	if last := evs[len(evs)-1]; last.Kind != job.Finished || !strings.HasPrefix(last.Stage, "merge: ") {
		t.Errorf("Run on cluster: last event %+v, want the merge's stage finished", last)
	}
	for _, name := range append([]string{dc.out}, dc.extra...) {
		if !bytes.Equal(fileBytes(t, filepath.Join(gui, name)), fileBytes(t, filepath.Join(subs[1].dir, "single", name))) {
			t.Errorf("Run on cluster: %s differs from the single-process one", name)
		}
	}
	t.Logf("detect through the GUI's Run on cluster: %.1f s", time.Since(gstart).Seconds())

	for _, s := range subs {
		for _, name := range append([]string{s.c.out}, s.c.extra...) {
			s.c.same(t, filepath.Join(s.dir, "single", name), filepath.Join(s.dir, "merged", name))
		}
		for i := range s.c.tasks {
			rec, _, err := cluster.ReadProgress(cluster.ProgressPath(s.shared, i))
			if err != nil || rec.Kind != "finished" {
				t.Errorf("%s: task %d's progress file ends %q (%v)", s.c.pipeline, i, rec.Kind, err)
			}
		}
		if _, err := os.Stat(filepath.Join(s.shared, "parts")); !os.IsNotExist(err) {
			t.Errorf("%s: the parts are left after the merge (%v)", s.c.pipeline, err)
		}
	}
	noPWNED(t, root)
	t.Logf("all pipelines on SLURM in %.1f s", time.Since(t0).Seconds())
}

// TestGUIRunOnRealSlurm: in the viewer's processing panel, detection on
// the demo brain run on a real SLURM ("Run on: SLURM cluster", 3 tasks)
// writes the cells a local run writes, and they open as the result
// layer. scripts/test-cluster.sh runs it (VOXLAB_TEST_SLURM, VOXLAB_BIN).
func TestGUIRunOnRealSlurm(t *testing.T) {
	if os.Getenv("VOXLAB_TEST_SLURM") == "" {
		t.Skip("needs a running SLURM: set VOXLAB_TEST_SLURM=1 and VOXLAB_BIN (scripts/test-cluster.sh does)")
	}
	exe := os.Getenv("VOXLAB_BIN")
	if !filepath.IsAbs(exe) {
		t.Fatalf("VOXLAB_BIN=%q: want the absolute path of the voxlab binary the nodes run", exe)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv(cluster.EnvShared, "")
	panelVoxlab = exe
	defer func() { panelVoxlab = "" }()
	start := time.Now()
	h := newGUIHarness(t)
	h.choose("detect", map[string]string{"run-on": panel.RunCluster, "tasks": "3", "time": "10:00"})
	req, _ := h.p.Request()
	st := h.runToEnd()
	if st.State != job.StateFinished || !strings.HasPrefix(st.Event.Stage, "merge: ") {
		t.Fatalf("cluster job ended %v (%v), last stage %q", st.State, st.Err, st.Event.Stage)
	}
	local := filepath.Join(t.TempDir(), "local.csv")
	mustRun(t, "detect", req.Args[0], local, "--quiet")
	if !bytes.Equal(fileBytes(t, req.Args[1]), fileBytes(t, local)) {
		t.Error("the cells the panel's cluster run wrote differ from a local run's")
	}
	if _, ok := h.layer(filepath.Base(req.Args[1])).(*viewer.PointsLayer); !ok {
		t.Errorf("no points layer of the result; layers %v", names(h.hl.Layers()))
	}
	t.Logf("detect from the panel on SLURM in %.1f s", time.Since(start).Seconds())
}
