package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"gopkg.in/yaml.v3"

	"github.com/voxlab/voxlab/panel"
	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/task"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer"
)

// TestRegisteredPipelines: every registered pipeline has, from its spec
// alone (docs/ARCHITECTURE.md: adding a pipeline is its package and one
// import line in pipelines.go), a command whose --help lists its flags,
// a YAML step taking them as keys, a form in the processing panel with a
// field for each, a plan, and — when it splits — a plan per task, a
// SLURM submission and tasks that merge, run here on its spec's example;
// and from the generic path alone, that a run whose output is its input
// is refused and a merge refuses a damaged part.
func TestRegisteredPipelines(t *testing.T) {
	specs := pipeline.All()
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	t.Logf("registered pipelines: %s", strings.Join(names, ", "))
	for _, want := range []string{"dezing", "detect", "distance", "convert"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not registered (pipelines.go imports it)", want)
		}
	}
	for _, s := range specs {
		t.Run(s.Name, func(t *testing.T) {
			if pipelines[s.Name] != s {
				t.Fatalf("no command for %s", s.Name)
			}
			checkCLI(t, s)
			checkYAML(t, s)
			checkForm(t, s)
			if s.Example == nil {
				t.Fatalf("%s has no Example to plan and run", s.Name)
			}
			dir := t.TempDir()
			args, err := s.Example(dir)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, s, args)
			checkInputsKept(t, s, args)
			if s.Split {
				checkSplit(t, s, dir, args)
				checkDamagedPart(t, s, args)
			}
		})
	}
}

// checkCLI: --help lists every parameter's flag and the shared ones.
func checkCLI(t *testing.T, s *pipeline.Spec) {
	t.Helper()
	help := mustRun(t, s.Name, "--help")
	want := []string{"--" + s.Batch.Flag, "--backend", "--pin-memory", "--device-memory", "--host-memory", "--json", "--quiet"}
	for _, p := range s.Params {
		want = append(want, "--"+p.Name)
	}
	if s.Split {
		want = append(want, "--task")
	}
	for _, w := range want {
		if !strings.Contains(help, "\n  "+w+" ") && !strings.Contains(help, "\n  "+w+"\n") {
			t.Errorf("voxlab %s --help does not list %s", s.Name, w)
		}
	}
}

// checkYAML: a step with every parameter as a key, at its default, reads
// as the command line with each flag.
func checkYAML(t *testing.T, s *pipeline.Spec) {
	t.Helper()
	step := map[string]any{"pipeline": s.Name}
	for _, a := range s.Args {
		step[a.Name] = "f-" + a.Name
	}
	for _, p := range s.Params {
		step[p.Name] = p.DefaultText()
	}
	data, err := yaml.Marshal([]any{step})
	if err != nil {
		t.Fatal(err)
	}
	steps, err := parseSteps(filepath.Join(t.TempDir(), "p.yaml"), data)
	if err != nil {
		t.Fatalf("YAML step with every key: %v\n%s", err, data)
	}
	argv := strings.Join(steps[0].argv, " ")
	for _, p := range s.Params {
		if !strings.Contains(argv, "--"+p.Name+"=") {
			t.Errorf("the YAML step's command line %q lacks --%s", argv, p.Name)
		}
	}
}

// checkForm: the panel offers the pipeline under its title, with a field
// for every argument and parameter.
func checkForm(t *testing.T, s *pipeline.Spec) {
	t.Helper()
	if s.Title == "" {
		t.Fatalf("%s has no Title: the panel does not offer it", s.Name)
	}
	_, p := newRegisteredPanel(t)
	if err := p.Select(s.Name); err != nil {
		t.Fatal(err)
	}
	for _, f := range append(slices.Clone(s.Args), s.Params...) {
		if p.Field(f.Name) == nil {
			t.Errorf("the panel's form of %s has no field %s", s.Name, f.Name)
		}
	}
	// Without inputs the request is incomplete (its error says so); its
	// values are the defaults.
	req, _ := p.Request()
	if req.Command != s.Name {
		t.Errorf("the form's request is of %q", req.Command)
	}
	for _, f := range s.Params {
		if f.Format(req.Values[f.Name]) != f.DefaultText() {
			t.Errorf("the form's %s is %v, want the default %s", f.Name, req.Values[f.Name], f.DefaultText())
		}
	}
}

// checkPlan: the example plans, and each of two tasks plans.
func checkPlan(t *testing.T, s *pipeline.Spec, args []string) {
	t.Helper()
	var pl struct {
		Pipeline string           `json:"pipeline"`
		Phases   []map[string]any `json:"phases"`
	}
	out := mustRun(t, append([]string{"plan", s.Name, "--backend", "cpu", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &pl); err != nil || len(pl.Phases) == 0 {
		t.Errorf("plan %s: %v\n%s", s.Name, err, out)
	}
	if !s.Split {
		return
	}
	out = mustRun(t, append([]string{"plan", s.Name, "--backend", "cpu", "--json", "--task", "1/2"}, args...)...)
	if err := json.Unmarshal([]byte(out), &pl); err != nil || pl.Pipeline != s.Name+" task 1/2" {
		t.Errorf("plan %s --task 1/2: %v\n%s", s.Name, err, out)
	}
}

// checkSplit: a SLURM submission's scripts are written (dry run), and the
// example run as two tasks and a merge writes the outputs and removes
// the parts.
func checkSplit(t *testing.T, s *pipeline.Spec, dir string, args []string) {
	t.Helper()
	shared := filepath.Join(dir, "slurm")
	mustRun(t, append([]string{"submit", "slurm", s.Name, "--tasks", "2", "--dry-run", "--shared", shared, "--backend", "cpu"}, args...)...)
	for _, f := range []string{"array.sh", "merge.sh"} {
		if _, err := os.Stat(filepath.Join(shared, f)); err != nil {
			t.Error(err)
		}
	}
	runSplit(t, s.Name, 2, append([]string{"--backend", "cpu", "--quiet"}, args...)...)
	var outs []string
	for i, a := range s.Args {
		if a.Kind == pipeline.Output && i < len(args) {
			outs = append(outs, args[i])
		}
	}
	for _, o := range outs {
		if _, err := os.Stat(o); err != nil {
			t.Errorf("the merge wrote no %s: %v", o, err)
		}
		if _, err := os.Stat(o + ".parts"); err == nil {
			if es, _ := os.ReadDir(o + ".parts"); len(es) > 0 {
				t.Errorf("the merge left its parts: %v", es)
			}
		}
	}
}

// firstOutput is the index in args of s's first output argument.
func firstOutput(t *testing.T, s *pipeline.Spec, args []string) int {
	t.Helper()
	for i, a := range s.Args {
		if a.Kind == pipeline.Output && i < len(args) {
			return i
		}
	}
	t.Fatalf("%s's example has no output argument", s.Name)
	return -1
}

// treeState lists what is at path (a file or a folder, recursively):
// names, sizes, modes, modification times and the files' bytes.
func treeState(t *testing.T, path string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(path, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %v %d\n", p, fi.Size(), fi.Mode(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.Write(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// checkInputsKept: the example with its first output named as its first
// input, as a run, a plan and (when it splits) a task, a merge and a
// SLURM submission, fails saying inputs are never overwritten, and the
// input is as it was.
func checkInputsKept(t *testing.T, s *pipeline.Spec, args []string) {
	t.Helper()
	in, _ := volume.SplitSpec(args[0])
	before := treeState(t, in)
	bad := slices.Clone(args)
	bad[firstOutput(t, s, args)] = in
	cmds := [][]string{{s.Name}, {"plan", s.Name}}
	if s.Split {
		cmds = append(cmds, []string{s.Name, "--task", "0/2"}, []string{"merge", s.Name, "--tasks", "2"},
			[]string{"submit", "slurm", s.Name, "--tasks", "2", "--dry-run", "--shared", filepath.Join(t.TempDir(), "slurm")})
	}
	for _, c := range cmds {
		code, _, stderr := runCmd(append(append(c, bad...), "--backend", "cpu")...)
		if code != 1 || !strings.Contains(stderr, "inputs are never overwritten") {
			t.Errorf("%s with its input as output: exit %d, want 1 saying inputs are never overwritten: %s", strings.Join(c, " "), code, stderr)
		}
	}
	if treeState(t, in) != before {
		t.Errorf("%s: the input %s changed", s.Name, in)
	}
}

// checkDamagedPart: the example as two tasks, one byte of the second
// part's payload changed, does not merge: the error names the part and
// says it is damaged, and the merge writes no output.
func checkDamagedPart(t *testing.T, s *pipeline.Spec, args []string) {
	t.Helper()
	t.Setenv(cluster.EnvShared, "")
	out := args[firstOutput(t, s, args)]
	os.RemoveAll(out)
	flags := append(slices.Clone(args), "--backend", "cpu", "--quiet")
	for i := range 2 {
		mustRun(t, append([]string{s.Name, "--task", fmt.Sprintf("%d/2", i)}, flags...)...)
	}
	part := cluster.PartPath(cluster.PartsDir(out), s.Name, task.Task{Index: 1, Count: 2})
	b := fileBytes(t, part)
	b[len(b)/2] ^= 0x10
	if err := os.WriteFile(part, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(append([]string{"merge", s.Name, "--tasks", "2"}, flags...)...)
	if code != 1 || !strings.Contains(stderr, part) || !strings.Contains(stderr, "damaged") {
		t.Errorf("merge with a damaged part: exit %d, want 1 naming %s as damaged: %s", code, part, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused merge wrote %s (%v)", out, err)
	}
	os.RemoveAll(cluster.PartsDir(out))
}

// TestGenericPathChecksEveryPipeline: a pipeline that says nothing of
// its files (no Spec.Files: a new one, classify or convert) is checked
// on the Input and Output arguments and parameters its spec declares —
// an output that is an input by path, through a symbolic or hard link,
// or lies inside an input folder, or an output folder holding an input —
// before its Open is called, for a run, a plan given its output and a
// task (whose part is an output too).
func TestGenericPathChecksEveryPipeline(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	os.WriteFile(in, []byte("x"), 0o644)
	link := filepath.Join(dir, "link.npy")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.npy")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	planes := filepath.Join(dir, "planes")
	os.Mkdir(planes, 0o755)
	ref := filepath.Join(dir, "ref", "ref.npy")
	os.Mkdir(filepath.Dir(ref), 0o755)
	os.WriteFile(ref, []byte("r"), 0o644)
	opened := 0
	s := &pipeline.Spec{
		Name: "plain", Summary: "a pipeline without Files", Split: true,
		Args: []pipeline.Param{{Name: "in", Kind: pipeline.Input}, {Name: "out", Kind: pipeline.Output}},
		Params: []pipeline.Param{
			{Name: "ref", Kind: pipeline.Input, Optional: true},
			{Name: "report", Kind: pipeline.Output, Folder: true, Optional: true},
		},
		Batch: pipeline.Batch{Flag: "batch-size", Unit: "slices"},
		Open: func(r pipeline.Request) (pipeline.Job, error) {
			opened++
			return nil, errors.New("opened")
		},
	}
	newIv := func(in, out, report string) *invocation {
		vals := s.Defaults()
		vals["ref"], vals["report"] = ref, report
		return &invocation{spec: s, req: pipeline.Request{Args: []string{in, out}, Values: vals},
			dev: &deviceFlags{backend: "cpu"}, out: &outputFlags{quiet: true}, e: &env{stdout: io.Discard, stderr: io.Discard}}
	}
	other := filepath.Join(dir, "o.csv")
	for _, c := range []struct {
		in, out, report, want string
	}{
		{in, in, "", "is the in " + in},
		{in, link, "", "through a symbolic link"},
		{in, hard, "", "hard link"},
		{planes, filepath.Join(planes, "o.csv"), "", "inside the in " + planes},
		{in, ref, "", "is the --ref " + ref},
		{in, other, filepath.Dir(ref), "the --ref " + ref + " is inside --report"},
		{in, other, "", ""},
	} {
		for _, how := range []string{"run", "plan", "task"} {
			iv := newIv(c.in, c.out, c.report)
			iv.req.PlanOnly = how == "plan"
			var tk *task.Task
			if how == "task" {
				tk = &task.Task{Index: 0, Count: 2}
			}
			before := opened
			_, err := iv.open(tk)
			switch {
			case c.want == "":
				if err == nil || err.Error() != "opened" {
					t.Errorf("%s of %s: %v, want it opened", how, c.out, err)
				}
			case !iocheck.IsClash(err) || !strings.Contains(err.Error(), c.want) || opened != before:
				t.Errorf("%s of %s (input %s): %v (opened %d times), want a clash %q before Open", how, c.out, c.in, err, opened-before, c.want)
			}
		}
	}
	// A task's part goes beside the first output: an input there is
	// refused too.
	out := filepath.Join(dir, "t.csv")
	part := cluster.PartPath(cluster.PartsDir(out), s.Name, task.Task{Index: 1, Count: 2})
	os.MkdirAll(filepath.Dir(part), 0o755)
	os.WriteFile(part, []byte("p"), 0o644)
	if _, err := newIv(part, out, "").open(&task.Task{Index: 1, Count: 2}); !iocheck.IsClash(err) || !strings.Contains(err.Error(), "task part") {
		t.Errorf("a task whose part is its input: %v", err)
	}
}

// newRegisteredPanel opens the processing panel with every registered
// pipeline beside a headless viewer in a test window; both close when
// the test ends.
func newRegisteredPanel(t *testing.T) (*viewer.Headless, *panel.Panel) {
	t.Helper()
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	hl := viewer.NewHeadless(w)
	w.Resize(fyne.NewSize(1200, 800))
	p := panel.NewPanel(hl.Viewer, panel.PanelOptions{PlanDelay: time.Hour}, guiPipelines()...)
	t.Cleanup(func() {
		p.Close()
		hl.Close()
	})
	return hl, p
}
