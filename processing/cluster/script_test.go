package cluster

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// nasty are arguments that would run something, split, or change meaning
// if a script quoted them wrongly. Each payload would create a file named
// PWNED in the working folder.
var nasty = []string{
	"plain.nxs",
	"with space.nxs",
	"it's.nxs",
	`say "hi".nxs`,
	"$HOME/x",
	"${IFS}",
	"$(touch PWNED)",
	"`touch PWNED`",
	"a; touch PWNED",
	"a && touch PWNED",
	"a | touch PWNED",
	"line1\ntouch PWNED\nline3",
	"'; touch PWNED; '",
	`"; touch PWNED; "`,
	`\'; touch PWNED; \'`,
	"*",
	"~",
	"!!",
	"-n",
	"--task=9/9",
	"",
	`back\slash`,
	"tab\there",
	"# not a comment",
	"%A_%a %j",
	"ünïcødé ✓",
}

// weirdDir makes a folder whose name needs quoting everywhere.
func weirdDir(t *testing.T, name string) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// fakeVoxlab writes a script that records its argv (NUL-separated) and
// the progress file it was given, to $RECORD.<task or merge>.
func fakeVoxlab(t *testing.T, dir string) string {
	t.Helper()
	exe := filepath.Join(dir, "fake voxlab $(touch PWNED)")
	script := `#!/bin/bash
suffix=${SLURM_ARRAY_TASK_ID:-merge}
printf '%s\0' "$@" >"$RECORD.$suffix"
printf '%s' "$VOXLAB_PROGRESS_FILE" >"$RECORD.$suffix.progress"
printf '%s' "${VOXLAB_SLURM_SHARED:-}" >"$RECORD.$suffix.shared"
`
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

func readArgv(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
}

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func nastySpec(t *testing.T) Spec {
	base := weirdDir(t, `base it's "q" $x`)
	return Spec{
		Pipeline: "dezing",
		Exe:      fakeVoxlab(t, weirdDir(t, "bin `x` 'y'")),
		Args:     []string{"--kernel=3", "--out=a b; $(touch PWNED)'\"", "--flag"},
		Inputs:   append([]string{}, nasty...),
		Tasks:    4,
		Shared:   filepath.Join(base, `shared; $(touch PWNED) "x" 'y' %j`),
		Workdir:  weirdDir(t, "work dir $(touch PWNED); `touch PWNED`"),
	}
}

// runScript runs a generated script with bash as SLURM would (in the
// working folder, with the task id) and returns the recorded argv.
func runScript(t *testing.T, script, workdir, record, taskID string) {
	t.Helper()
	check := exec.Command("bash", "-n", script)
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("bash -n %s: %v\n%s", script, err, out)
	}
	cmd := exec.Command("bash", script)
	cmd.Dir = workdir
	cmd.Env = append(os.Environ(), "RECORD="+record)
	if taskID != "" {
		cmd.Env = append(cmd.Env, "SLURM_ARRAY_TASK_ID="+taskID)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bash %s: %v\n%s", script, err, stderr.String())
	}
}

// noPayloadRan fails if any payload created its file anywhere under dirs.
func noPayloadRan(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.Name() == "PWNED" {
				t.Errorf("a payload ran: %s exists", p)
			}
			return nil
		})
	}
}

func TestScriptsPassArgumentsIntact(t *testing.T) {
	spec := nastySpec(t)
	if err := spec.Write(); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(t.TempDir(), "argv")

	runScript(t, spec.ArrayScriptPath(), spec.Workdir, record, "2")
	want := slices.Concat([]string{"dezing"}, spec.Args, []string{"--task", "2/4", "--"}, nasty)
	if got := readArgv(t, record+".2"); !slices.Equal(got, want) {
		t.Errorf("array task argv:\n got %q\nwant %q", got, want)
	}
	if got, want := readString(t, record+".2.progress"), ProgressPath(spec.Shared, 2); got != want {
		t.Errorf("task progress file %q, want %q", got, want)
	}
	if got := readString(t, record+".2.shared"); got != spec.Shared {
		t.Errorf("task shared folder %q, want %q", got, spec.Shared)
	}

	runScript(t, spec.MergeScriptPath(), spec.Workdir, record, "")
	want = slices.Concat([]string{"merge", "dezing"}, spec.Args, []string{"--tasks", "4", "--"}, nasty)
	if got := readArgv(t, record+".merge"); !slices.Equal(got, want) {
		t.Errorf("merge argv:\n got %q\nwant %q", got, want)
	}
	if got := readString(t, record+".merge.progress"); got != ProgressPath(spec.Shared, -1) {
		t.Errorf("merge progress file %q", got)
	}
	if got := readString(t, record+".merge.shared"); got != spec.Shared {
		t.Errorf("merge shared folder %q, want %q", got, spec.Shared)
	}
	noPayloadRan(t, filepath.Dir(filepath.Dir(spec.Exe)), spec.Workdir, filepath.Dir(spec.Shared), filepath.Dir(record))
}

func TestScriptDirectives(t *testing.T) {
	spec := Spec{Pipeline: "detect", Exe: "/opt/voxlab/bin/voxlab", Args: []string{"--json"}, Inputs: []string{"brain"}, Tasks: 8,
		Partition: "gpu", Gres: "gpu:a100:1", Time: "1-02:00:00",
		Shared: "/scratch/run 1/%x", Workdir: "/home/me/data \"q\""}
	array, err := spec.ArrayScript()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"#!/bin/bash\n",
		"#SBATCH --job-name=voxlab-detect\n",
		"#SBATCH --array=0-7\n",
		"#SBATCH --partition=gpu\n",
		"#SBATCH --gres=gpu:a100:1\n",
		"#SBATCH --time=1-02:00:00\n",
		`#SBATCH --output="/scratch/run 1/%%x/logs/task-%A_%a.out"` + "\n",
		`#SBATCH --chdir="/home/me/data \"q\""` + "\n",
		`exec '/opt/voxlab/bin/voxlab' 'detect' '--json' --task "${SLURM_ARRAY_TASK_ID}"/8 -- 'brain'` + "\n",
	} {
		if !strings.Contains(array, want) {
			t.Errorf("array script lacks %q:\n%s", want, array)
		}
	}
	merge, err := spec.MergeScript()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"#SBATCH --job-name=voxlab-detect-merge\n",
		`#SBATCH --output="/scratch/run 1/%%x/logs/merge-%j.out"` + "\n",
		"#SBATCH --partition=gpu\n",
		`exec '/opt/voxlab/bin/voxlab' 'merge' 'detect' '--json' --tasks 8 -- 'brain'` + "\n",
	} {
		if !strings.Contains(merge, want) {
			t.Errorf("merge script lacks %q:\n%s", want, merge)
		}
	}
	if strings.Contains(merge, "--gres") || strings.Contains(merge, "--array") {
		t.Errorf("the merge job asks for a GPU or an array:\n%s", merge)
	}
}

func TestSpecCheck(t *testing.T) {
	good := Spec{Pipeline: "dezing", Exe: "/bin/voxlab", Tasks: 2, Shared: "/s", Workdir: "/w"}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Spec){
		"no tasks":          func(s *Spec) { s.Tasks = 0 },
		"relative exe":      func(s *Spec) { s.Exe = "voxlab" },
		"relative shared":   func(s *Spec) { s.Shared = "out" },
		"relative workdir":  func(s *Spec) { s.Workdir = "." },
		"pipeline name":     func(s *Spec) { s.Pipeline = "de zing" },
		"partition payload": func(s *Spec) { s.Partition = "gpu; touch x" },
		"gres newline":      func(s *Spec) { s.Gres = "gpu:1\n#SBATCH --wrap=x" },
		"time option":       func(s *Spec) { s.Time = "--wrap=x" },
	} {
		s := good
		mutate(&s)
		if err := s.Check(); err == nil {
			t.Errorf("%s: Check accepted %+v", name, s)
		}
	}
	s := good
	s.Shared = "/s/line\nbreak"
	if _, err := s.ArrayScript(); err == nil {
		t.Error("a shared folder with a line break was accepted")
	}
	s = good
	s.Inputs = []string{"nul\x00byte"}
	if _, err := s.ArrayScript(); err == nil {
		t.Error("an argument with a NUL byte was accepted")
	}
}
