package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/demo"
	"github.com/voxlab/voxlab/processing/dezing"
	"github.com/voxlab/voxlab/processing/job"
)

func TestRunYAMLMatchesTheCommands(t *testing.T) {
	dir := writeDemo(t)
	os.MkdirAll(filepath.Join(dir, "pipelines"), 0o755)
	// The output folder ../out is made by the run.
	// Relative paths are relative to the YAML file's folder; lists become
	// comma-separated flag values; booleans are flags.
	yml := filepath.Join(dir, "pipelines", "demo.yaml")
	os.WriteFile(yml, []byte(`# the demo, as a repeatable run
steps:
  - pipeline: dezing
    in: ../tomo/scan.nxs
    out: ../out/dezinged.h5
    kernel: 5
    dif: 800
    darks-flats: median
  - {pipeline: detect, in: ../brain/planes, out: ../out/cells.csv, voxel-size: [5, 2, 2], threshold: 9, batch-size: 3}
  - pipeline: distance
    gt: ../maps/gt.npy
    sub: ../maps/submitted.npy
    out: ../out/distances
    mask: ../maps/mask.mrc
    metrics: [l2, corr]
    low-memory: true
    chunk-size: 7
`), 0o644)
	code, out, errOut := runCmd("run", yml, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	// The same steps as commands, by hand, give the same results.
	ref := t.TempDir()
	for _, args := range [][]string{
		{"dezing", filepath.Join(dir, demo.TomoScan), filepath.Join(ref, "dezinged.h5"), "--kernel", "5", "--dif", "800", "--darks-flats", "median", "--quiet"},
		{"detect", filepath.Join(dir, demo.BrainPlanes), filepath.Join(ref, "cells.csv"), "--voxel-size", "5,2,2", "--threshold", "9", "--batch-size", "3", "--quiet"},
		{"distance", filepath.Join(dir, demo.MapsGT), filepath.Join(dir, demo.MapsSubmitted), filepath.Join(ref, "distances"),
			"--mask", filepath.Join(dir, demo.MapsMask), "--metrics", "l2,corr", "--low-memory", "--chunk-size", "7", "--quiet"},
	} {
		if code, _, e := runCmd(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, e)
		}
	}
	for _, rel := range []string{"cells.csv", "distances/l2.npy", "distances/corr.csv"} {
		a, err1 := os.ReadFile(filepath.Join(dir, "out", rel))
		b, err2 := os.ReadFile(filepath.Join(ref, rel))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs from the command's (%v, %v)", rel, err1, err2)
		}
	}
	// HDF5 files carry no timestamps of ours, but compare the data only:
	// the files record their own paths.
	_, a := testutil.ReadVolume(t, filepath.Join(dir, "out", "dezinged.h5")+":/data")
	_, b := testutil.ReadVolume(t, filepath.Join(ref, "dezinged.h5")+":/data")
	if !bytes.Equal(a, b) {
		t.Error("the dezinged projections differ from the command's")
	}
}

func TestRunYAMLErrorsNameTheKeyAndStep(t *testing.T) {
	dir := writeDemo(t)
	good := "- {pipeline: detect, in: brain/planes, out: cells.csv}\n"
	for _, c := range []struct {
		yaml string
		want []string
	}{
		{good + "- pipeline: dezing\n  in: tomo/scan.nxs\n  out: d.h5\n  kernal: 5\n", []string{"step 2 (dezing, line 2)", `unknown key "kernal"`, `did you mean "kernel"`}},
		{good + "- {pipeline: dezing, in: tomo/scan.nxs, out: d.h5, task: 1/2}\n", []string{"step 2", `unknown key "task"`}},
		{good + "- {pipeline: dezinger, in: x, out: y}\n", []string{"step 2 (line 2)", `unknown pipeline "dezinger"`, "dezing"}},
		{good + "- {pipeline: dezing, out: d.h5}\n", []string{"step 2 (dezing, line 2)", "no in"}},
		{good + "- {in: x}\n", []string{"step 2", "no pipeline"}},
		{good + "- {pipeline: detect, in: brain/planes, out: c.csv, threshold: {a: 1}}\n", []string{"step 2", "threshold", "not a mapping"}},
		{good + "- {pipeline: detect, in: brain/planes, out: c.csv, threshold: lots}\n", []string{"step 2", "threshold", `"lots" is not a valid value`}},
		{good + "- {pipeline: detect, in: a, in: b, out: c.csv}\n", []string{"step 2", `"in" is given twice`}},
		{"pipeline: dezing\n", []string{"unknown key \"pipeline\"", "list of steps"}},
		{"- [1, 2]\n", []string{"step 1", "want a mapping"}},
		{"- {pipeline: dezing\n", []string{"yaml"}},
		{"", []string{"empty"}},
	} {
		yml := filepath.Join(dir, "p.yaml")
		os.WriteFile(yml, []byte(c.yaml), 0o644)
		code, _, errOut := runCmd("run", yml)
		if code != 1 {
			t.Errorf("%q: exit %d, want 1", c.yaml, code)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%q: message %q lacks %q", c.yaml, errOut, w)
			}
		}
		// Every step is checked before any runs: the good first step
		// wrote nothing.
		if _, err := os.Stat(filepath.Join(dir, "cells.csv")); err == nil {
			t.Fatalf("%q: the first step ran although a later one is wrong", c.yaml)
		}
	}
	if code, _, _ := runCmd("run"); code != 2 {
		t.Errorf("no file: exit %d, want 2", code)
	}
	if code, _, e := runCmd("run", filepath.Join(dir, "missing.yaml")); code != 1 || !strings.Contains(e, "missing.yaml") {
		t.Errorf("missing file: exit %d: %s", code, e)
	}
}

func TestDemoHeadlessRunsThePipelines(t *testing.T) {
	dir := writeDemo(t)
	code, out, errOut := runCmd("demo", dir, "--headless")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	res := filepath.Join(dir, demoResults)
	for _, p := range []string{"dezinged.h5", "reconstructed.npy", "cells.csv", "distances/l2.npy", "distances/summary.json"} {
		if _, err := os.Stat(filepath.Join(res, p)); err != nil {
			t.Error(err)
		}
		if !strings.Contains(out, filepath.Join(res, strings.Split(p, "/")[0])) {
			t.Errorf("the report does not say where %s went:\n%s", p, out)
		}
	}
	if !strings.Contains(out, "100% of the demo's") {
		t.Errorf("no recall line:\n%s", out)
	}
	// The demo scan's axis is off the detector's middle; --center auto
	// finds it within half a pixel.
	axis := demo.TomoLayoutFor(demo.Small).Axis()
	code, out, errOut = runCmd("reconstruct", filepath.Join(dir, demo.TomoScan), filepath.Join(t.TempDir(), "rows.npy"),
		"--center", "auto", "--rows", "60:62", "--dezing", "--stripes", "sorting")
	m := regexp.MustCompile(`centre of rotation: column ([0-9.]+) \(auto`).FindStringSubmatch(out + errOut)
	if code != 0 || m == nil {
		t.Fatalf("exit %d, no centre in the report:\n%s%s", code, out, errOut)
	}
	if c, _ := strconv.ParseFloat(m[1], 64); math.Abs(c-axis) > 0.5 || axis == float64(demo.TomoLayoutFor(demo.Small).Cols)/2 {
		t.Errorf("centre %s, the demo's axis is at %g", m[1], axis)
	}
}

// sigintEnv makes the test binary run `voxlab` as main does (a context
// cancelled by SIGINT, SIGTERM and SIGHUP: stopSignals) with these
// arguments (tab separated), so the Ctrl-C tests can signal a real
// process. With sigintSlowEnv set,
// the job holds at its first progress event of the projections (once the
// terminal sink has printed it) until the signal arrives: a long job that
// is still running when the test sees the line and signals, however fast
// or slow the machine.
// With sigintHoldEnv set, the job's first progress event prints
// holdMarker and waits there until a signal stops the command: a job
// caught in the middle, its temporary output on disk, for as long as the
// test needs.
const (
	sigintEnv     = "VOXLAB_TEST_SIGINT_ARGS"
	sigintSlowEnv = "VOXLAB_TEST_SIGINT_SLOW"
	sigintHoldEnv = "VOXLAB_TEST_SIGINT_HOLD"
	holdMarker    = "voxlab-test: holding"
)

func init() {
	args := os.Getenv(sigintEnv)
	if args == "" {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals...)
	e := &env{stdout: os.Stdout, stderr: os.Stderr}
	if os.Getenv(sigintSlowEnv) != "" {
		e.sinks = []job.Sink{func(ev job.Event) {
			if ev.Kind == job.Progressed && ev.Stage == dezing.StageProjections {
				<-ctx.Done()
			}
		}}
	}
	if os.Getenv(sigintHoldEnv) != "" {
		var once sync.Once
		e.sinks = append(e.sinks, func(ev job.Event) {
			if ev.Kind == job.Progressed {
				once.Do(func() {
					fmt.Fprintln(os.Stderr, holdMarker)
					<-ctx.Done()
				})
			}
		})
	}
	code := run(ctx, strings.Split(args, "\t"), e)
	stop()
	os.Exit(code)
}

// interrupt starts voxlab with args, waits until its output contains
// after, sends SIGINT and returns the exit code and output. (A window,
// which prints nothing to wait for, is waited for on the screen:
// startChild and screenUntil.)
func interrupt(t *testing.T, after string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = childEnv(t.TempDir(), sigintEnv+"="+strings.Join(args, "\t"), sigintSlowEnv+"=1")
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	seen := make(chan struct{})
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(pr)
		once := false
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if !once && strings.Contains(sc.Text(), after) {
				once = true
				close(seen)
			}
		}
	}()
	select {
	case <-seen:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("no %q in the output", after)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute): // a hang, not a speed
		cmd.Process.Kill()
		t.Fatal("voxlab did not stop within two minutes of Ctrl-C")
	}
	pw.Close()
	<-scanned
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return code, out.String()
}

func TestCtrlCLeavesNoPartialOutput(t *testing.T) {
	dir := writeDemo(t)
	out := filepath.Join(dir, "out.h5")
	// One projection per block: the job holds at the projections until
	// the signal (sigintSlowEnv), so Ctrl-C lands in the middle of it.
	code, log := interrupt(t, "projections", "dezing", filepath.Join(dir, demo.TomoScan), out, "--batch-size", "1")
	if code != 1 || !strings.Contains(log, "cancelled; no output was written") {
		t.Errorf("exit %d, output:\n%s", code, log)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "out") {
			t.Errorf("Ctrl-C left %s", e.Name())
		}
	}
}

func TestCtrlCStopsAYAMLRunBetweenSteps(t *testing.T) {
	dir := writeDemo(t)
	yml := filepath.Join(dir, "p.yaml")
	os.WriteFile(yml, []byte(`
- {pipeline: detect, in: brain/planes, out: cells.csv}
- {pipeline: dezing, in: tomo/scan.nxs, out: d.h5, batch-size: 1}
- {pipeline: distance, gt: maps/gt.npy, sub: maps/submitted.npy, out: dist}
`), 0o644)
	code, log := interrupt(t, "dezing: projections", "run", yml)
	if code != 1 || !strings.Contains(log, "step 2 (dezing, line 3): cancelled") {
		t.Errorf("exit %d, output:\n%s", code, log)
	}
	if _, err := os.Stat(filepath.Join(dir, "cells.csv")); err != nil {
		t.Errorf("the finished first step's output is gone: %v", err)
	}
	for _, p := range []string{"d.h5", "dist"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s exists after Ctrl-C", p)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && e.Name() != demo.CompleteMark {
			t.Errorf("a temporary file is left: %s", e.Name())
		}
	}
}

func TestDocsPipelineYAMLParses(t *testing.T) {
	path := filepath.Join("..", "docs", "pipeline.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := parseSteps(path, data)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range steps {
		names = append(names, s.pipeline)
	}
	if strings.Join(names, ",") != "dezing,detect,distance" {
		t.Errorf("steps %v", names)
	}
	if want := filepath.Join("..", "demo-data", "maps", "gt.npy"); steps[2].argv[1] != want {
		t.Errorf("gt resolved to %s, want %s", steps[2].argv[1], want)
	}
}

func TestEveryCommandHelpHasExamples(t *testing.T) {
	for name := range commands {
		if strings.HasPrefix(name, "fake") || name == "clustertest" {
			continue // registered by tests
		}
		code, out, errOut := runCmd(name, "--help")
		if code != 0 || !strings.Contains(out, "Usage:") || !strings.Contains(out, "Examples:\n  voxlab "+name) {
			t.Errorf("voxlab %s --help: exit %d, %q %q", name, code, out, errOut)
		}
	}
	if code, out, _ := runCmd("--help"); code != 0 || !strings.Contains(out, "run ") || !strings.Contains(out, "gui ") {
		t.Errorf("voxlab --help: exit %d: %s", code, out)
	}
}
