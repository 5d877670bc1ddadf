package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/cluster"
)

// installFakeSlurm puts sbatch, squeue and scancel on PATH: sbatch prints
// the next line of $dir/ids and logs its arguments, squeue prints
// $dir/queue.
func installFakeSlurm(t *testing.T, ids ...string) string {
	t.Helper()
	dir := t.TempDir()
	scripts := map[string]string{
		"sbatch": `{ printf '%s\0' "$@"; echo; } >>"$D/sbatch.log"
id=$(head -n1 "$D/ids"); sed -i 1d "$D/ids"
[ -n "$id" ] || { echo "sbatch: error: submission failed" >&2; exit 1; }
echo "$id"`,
		"squeue":  `cat "$D/queue" 2>/dev/null`,
		"scancel": `{ printf '%s\0' "$@"; echo; } >>"$D/scancel.log"`,
	}
	for name, body := range scripts {
		body = "#!/bin/bash\nD='" + dir + "'\n" + body + "\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "ids"), []byte(strings.Join(ids, "\n")+"\n"), 0o644)
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	return dir
}

func setQueue(t *testing.T, dir string, lines ...string) {
	os.WriteFile(filepath.Join(dir, "queue"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

func sbatchCalls(dir string) [][]string {
	data, _ := os.ReadFile(filepath.Join(dir, "sbatch.log"))
	var out [][]string
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if l != "" {
			out = append(out, strings.Split(strings.TrimSuffix(l, "\x00"), "\x00"))
		}
	}
	return out
}

// recordingVoxlab is a fake voxlab binary that writes its argv,
// NUL-separated, to $RECORD.
func recordingVoxlab(t *testing.T) string {
	exe := filepath.Join(t.TempDir(), "voxlab")
	os.WriteFile(exe, []byte("#!/bin/bash\nprintf '%s\\0' \"$@\" >\"$RECORD\"\n"), 0o755)
	return exe
}

// An option value and inputs that would break a carelessly quoted script.
const nastyLabel = `a b'c "d" $(touch PWNED) ; touch PWNED` + "\n`touch PWNED`"

// The output starts like a flag: after "--" it must stay an argument.
var nastyInputs = []string{"100", "-n out dir/it's $HOME;`x`"}

func TestSubmitCommand(t *testing.T) {
	dir := installFakeSlurm(t, "501", "502")
	shared := filepath.Join(t.TempDir(), "shared")
	exe := recordingVoxlab(t)
	args := append([]string{"submit", "slurm", "fakepipe", "--kernel", "5", "--label", nastyLabel, "--tasks", "3",
		"--partition", "gpu", "--gres", "gpu:1", "--time", "10:00", "--shared", shared, "--voxlab", exe, "--"}, nastyInputs...)
	code, out, errs := runCmd(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "job array 501 (3 tasks), then merge job 502") || !strings.Contains(out, "voxlab status 501") {
		t.Errorf("output %q", out)
	}
	sub, err := cluster.Load(shared)
	if err != nil {
		t.Fatal(err)
	}
	calls := sbatchCalls(dir)
	if len(calls) != 2 || calls[1][1] != "--dependency=afterok:501" {
		t.Errorf("sbatch calls %q", calls)
	}
	script, _ := os.ReadFile(sub.Spec.ArrayScriptPath())
	for _, want := range []string{"#SBATCH --array=0-2\n", "#SBATCH --partition=gpu\n", "#SBATCH --gres=gpu:1\n", "#SBATCH --time=10:00\n"} {
		if !strings.Contains(string(script), want) {
			t.Errorf("array script lacks %q:\n%s", want, script)
		}
	}

	// Run task 1 as SLURM would and parse what the binary receives with
	// the pipeline's own flags: every value arrives intact.
	work := t.TempDir()
	record := filepath.Join(work, "argv")
	cmd := exec.Command("bash", sub.Spec.ArrayScriptPath())
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=1", "RECORD="+record)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("array script: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(record)
	argv := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
	if argv[0] != "fakepipe" {
		t.Fatalf("argv %q", argv)
	}
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	_, runFn := specSetup(pipelines["fakepipe"])(fs, addOutputFlags(fs))
	pos, err := parseInterspersed(fs, argv[1:])
	if err != nil {
		t.Fatalf("the task's arguments do not parse: %v (%q)", err, argv)
	}
	takeFakeRuns()
	t.Setenv(cluster.EnvShared, t.TempDir()) // the task's part goes there
	if err := runFn(t.Context(), &env{stdout: io.Discard, stderr: io.Discard}, pos); err != nil {
		t.Fatal(err)
	}
	r := takeFakeRuns()[0]
	if r.kernel != 5 || r.label != nastyLabel || r.task != "1/3" || !slices.Equal(r.args, nastyInputs) {
		t.Errorf("the task got kernel %d, label %q, task %s, inputs %q", r.kernel, r.label, r.task, r.args)
	}
	if _, err := os.Stat(filepath.Join(work, "PWNED")); err == nil {
		t.Error("a payload ran")
	}
}

func TestSubmitCommandErrors(t *testing.T) {
	dir := installFakeSlurm(t, "601", "602")
	shared := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"submit", "pbs", "fakepipe"}, 2, "only slurm"},
		{[]string{"submit", "slurm"}, 2, "which pipeline?"},
		{[]string{"submit", "slurm", "fakepipe", "1", "o"}, 2, "--tasks: how many array tasks?"},
		{[]string{"submit", "slurm", "fakewhole", "1", "o", "--tasks", "2"}, 1, "fakewhole cannot run on a cluster yet"},
		{[]string{"submit", "slurm", "fakepipe", "1", "o", "--tasks", "2", "--task", "0/2"}, 2, "--task is set by submit"},
		{[]string{"submit", "slurm", "fakepipe", "1", "o", "--tasks", "2", "--partition", "gpu;reboot"}, 2, "--partition"},
		{[]string{"submit", "slurm", "fakepipe", "1", "o", "--tasks", "2", "--kernal", "3"}, 2, "flag provided but not defined: -kernal"},
	} {
		code, _, errs := runCmd(append(tc.args, "--shared", shared)...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
	if c := sbatchCalls(dir); len(c) != 0 {
		t.Errorf("a bad command line submitted %q", c)
	}
	// A dry run writes the scripts and submits nothing.
	code, out, errs := runCmd("submit", "slurm", "fakepipe", "1", "o", "--tasks", "2", "--shared", shared, "--dry-run")
	if code != 0 || !strings.Contains(out, "not submitted") || len(sbatchCalls(dir)) != 0 {
		t.Errorf("dry run: exit %d %s %s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(shared, "merge.sh")); err != nil {
		t.Error(err)
	}
}

func TestStatusCommand(t *testing.T) {
	dir := installFakeSlurm(t, "701", "702")
	shared := filepath.Join(t.TempDir(), "shared")
	if code, _, errs := runCmd("submit", "slurm", "fakepipe", "40", "o", "--tasks", "3", "--shared", shared, "--voxlab", "/bin/true"); code != 0 {
		t.Fatal(errs)
	}
	// Task 0 reported its progress through jobSinks, as a real task does,
	// and wrote its part into the shared folder.
	t.Setenv(cluster.EnvProgressFile, cluster.ProgressPath(shared, 0))
	t.Setenv(cluster.EnvShared, shared)
	if code, _, errs := runCmd("fakepipe", "40", "o", "--task", "0/3", "--quiet"); code != 0 {
		t.Fatal(errs)
	}
	os.Unsetenv(cluster.EnvProgressFile)
	os.Unsetenv(cluster.EnvShared)
	os.WriteFile(cluster.ProgressPath(shared, 1), []byte(`{"kind":"progress","stage":"slices","done":3,"total":13,"unit":"slices","rate":1.5,"eta_s":7}`+"\n"), 0o644)
	setQueue(t, dir, "701_1|RUNNING|None", "701_2|PENDING|Resources", "702|PENDING|Dependency")

	code, out, errs := runCmd("status", "701")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"fakepipe, 3 tasks: running",
		"0      701_0  COMPLETED  slices 4/4 slices",
		"1      701_1  RUNNING    slices 3/13 slices (23%), 1.5/s, ETA 7s",
		"2      701_2  PENDING    (Resources)",
		"merge  702    PENDING    (Dependency)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}

	// Task 1 fails: with nothing left running, status fails and says how
	// to resubmit.
	os.WriteFile(cluster.ProgressPath(shared, 1), []byte(`{"kind":"failed","error":"disk full"}`+"\n"), 0o644)
	os.WriteFile(cluster.ProgressPath(shared, 2), []byte(`{"kind":"finished"}`+"\n"), 0o644)
	setQueue(t, dir, "701_1|FAILED|NonZeroExitCode", "702|PENDING|DependencyNeverSatisfied")
	code, out, errs = runCmd("status", "--shared", shared)
	if code != 1 || !strings.Contains(errs, "task 1 failed; resubmit with: voxlab status 701 --resubmit 1") ||
		!strings.Contains(out, "error: disk full log: "+filepath.Join(shared, "logs", "task-701_1.out")) {
		t.Errorf("failed: exit %d\n%s\n%s", code, out, errs)
	}

	os.WriteFile(filepath.Join(dir, "ids"), []byte("710\n711\n"), 0o644)
	code, out, errs = runCmd("status", "701", "--resubmit", "1")
	if code != 0 || !strings.Contains(out, "resubmitted task 1 as job 710; the merge job is now 711") {
		t.Errorf("resubmit: exit %d\n%s\n%s", code, out, errs)
	}
	calls := sbatchCalls(dir)
	if got := calls[len(calls)-2]; got[1] != "--array=1" {
		t.Errorf("resubmission %q", got)
	}

	// The new attempt and the merge complete; --wait returns at once.
	os.WriteFile(cluster.ProgressPath(shared, 1), []byte(`{"kind":"finished"}`+"\n"), 0o644)
	setQueue(t, dir, "710_1|COMPLETED|None", "711|COMPLETED|None")
	code, out, errs = runCmd("status", "711", "--wait", "--json")
	if code != 0 || !strings.Contains(out, `"state": "completed"`) {
		t.Errorf("completed: exit %d\n%s\n%s", code, out, errs)
	}
	for _, bad := range [][]string{{"status"}, {"status", "1", "2"}, {"status", "701", "--resubmit", "x"}, {"status", "abc"}} {
		if code, _, _ := runCmd(bad...); code == 0 {
			t.Errorf("%q succeeded", bad)
		}
	}
}

func TestMergeCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	runSplit(t, "fakepipe", 3, "--kernel=5", "40", out)
	takeFakeRuns()
	code, _, errs := runCmd("merge", "fakepipe", "--kernel=5", "--tasks", "3", "--", "40", out)
	if code == 0 || !strings.Contains(errs, "no parts folder") {
		t.Errorf("a second merge, of removed parts: exit %d: %s", code, errs)
	}
	runSplit(t, "fakepipe", 3, "--kernel=5", "40", out)
	if r := takeFakeRuns(); len(r) != 4 || r[3].merged != 3 || r[3].kernel != 5 || !slices.Equal(r[3].args, []string{"40", out}) {
		t.Errorf("tasks and merge ran %+v", r)
	}
	// A part of another run (another kernel) is refused, naming what
	// differs.
	for i := range 2 {
		mustRun(t, "fakepipe", "--task", fmt.Sprintf("%d/2", i), "--kernel", fmt.Sprint(3+2*i), "40", out)
	}
	if code, _, errs := runCmd("merge", "fakepipe", "--tasks", "2", "40", out); code == 0 || !strings.Contains(errs, "kernel") {
		t.Errorf("merge of parts of two runs: exit %d: %s", code, errs)
	}
	// In a merge job, every task must have finished first.
	takeFakeRuns()
	shared := t.TempDir()
	os.MkdirAll(filepath.Join(shared, "progress"), 0o755)
	os.WriteFile(cluster.ProgressPath(shared, 0), []byte(`{"kind":"finished"}`+"\n"), 0o644)
	t.Setenv(cluster.EnvShared, shared)
	t.Setenv(cluster.EnvProgressFile, cluster.ProgressPath(shared, -1))
	code, _, errs = runCmd("merge", "fakepipe", "--tasks", "2", "40", out)
	if code != 1 || !strings.Contains(errs, "cannot merge: task 1 has no progress file") || len(takeFakeRuns()) != 0 {
		t.Errorf("merge with a missing task: exit %d %s", code, errs)
	}
	if rec, _, err := cluster.ReadProgress(cluster.ProgressPath(shared, -1)); err != nil || rec.Kind != "failed" {
		t.Errorf("the merge's failure is not in its progress file: %+v %v", rec, err)
	}
	for _, bad := range [][]string{{"merge", "fakewhole", "--tasks", "2"}, {"merge", "fakepipe", "1", "o"}, {"merge"}} {
		if code, _, _ := runCmd(bad...); code != 2 {
			t.Errorf("%q: exit %d, want 2", bad, code)
		}
	}
}
