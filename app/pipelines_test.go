package main

import (
	"encoding/json"
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
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/viewer"
)

// TestRegisteredPipelines: every registered pipeline has, from its spec
// alone (docs/ARCHITECTURE.md: adding a pipeline is its package and one
// import line in pipelines.go), a command whose --help lists its flags,
// a YAML step taking them as keys, a form in the processing panel with a
// field for each, a plan, and — when it splits — a plan per task, a
// SLURM submission and tasks that merge, run here on its spec's example.
func TestRegisteredPipelines(t *testing.T) {
	specs := pipeline.All()
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	t.Logf("registered pipelines: %s", strings.Join(names, ", "))
	for _, want := range []string{"dezing", "detect", "distance"} {
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
			if s.Split {
				checkSplit(t, s, dir, args)
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
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	hl := viewer.NewHeadless(w)
	w.Resize(fyne.NewSize(1200, 800))
	p := panel.NewPanel(hl.Viewer, panel.PanelOptions{PlanDelay: time.Hour}, guiPipelines()...)
	defer func() {
		p.Close()
		hl.Close()
	}()
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

// TestCheckFiles: an output that is an input, by path or through a
// link, or inside an input folder, is refused by the generic path
// whatever the pipeline checks itself.
func TestCheckFiles(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	os.WriteFile(in, []byte("x"), 0o644)
	link := filepath.Join(dir, "link.npy")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	planes := filepath.Join(dir, "planes")
	os.Mkdir(planes, 0o755)
	for out, want := range map[string]string{
		in: "is the input", link: "is the input", filepath.Join(planes, "cells.csv"): "inside the input folder",
		filepath.Join(dir, "out.h5"): "", filepath.Join(dir, "planes-cells.csv"): "",
	} {
		err := checkFiles([]string{in, planes}, []string{out})
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("output %s: %v, want %q", out, err, want)
		}
	}
}
