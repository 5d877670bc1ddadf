package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/classify/keras"
	"github.com/voxlab/voxlab/processing/classify/train"
)

// trainExample returns the arguments of train's example written under
// dir. Under -short (make test's race pass, where every step of the
// ResNet's Go loops runs instrumented) its YAML names 2 cubes of each
// type instead of 8: with --test-fraction 0.25 one batch of 3 training
// cubes an epoch instead of three batches of 4, through the same code
// (split, shuffle, augment, checkpoint, resume); the plain pass runs the
// example whole.
func trainExample(t *testing.T, dir string) []string {
	t.Helper()
	args, err := pipelines["train"].Example(dir)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		y, err := train.WriteExampleCubes(filepath.Join(dir, "short-cubes"), 2, 20, 20, 8)
		if err != nil {
			t.Fatal(err)
		}
		args[0] = y
	}
	return args
}

// TestTrainResume: `voxlab train` on its example for 3 epochs, and for 2
// epochs then --resume from the second epoch's checkpoint into another
// folder up to 3, write the same training.csv, and their final models
// classify the classify example identically (the same CSV, bytes for
// bytes; under -short their weights are compared instead); the
// checkpoints are named as cellfinder names them, and only the last
// keeps its state.
func TestTrainResume(t *testing.T) {
	dir := t.TempDir()
	if _, ok := pipelines["train"]; !ok {
		t.Fatal("train is not registered")
	}
	args := trainExample(t, dir)
	yaml := args[0]
	flags := append(slices.Clone(args[2:]), "--test-fraction", "0.25", "--save-progress", "--backend", "cpu", "--quiet")
	train := func(out string, more ...string) {
		mustRun(t, append(append([]string{"train", yaml, out}, flags...), more...)...)
	}
	// Under -short (the race pass, where an epoch of the ResNet in Go
	// loops takes a minute) 2 epochs of the smaller example
	// (trainExample), resumed after the first; the plain
	// pass runs 3, resumed after the second (Adam's moments and the
	// seeded split two epochs on). train's TestResumeEqualsUninterrupted
	// checks the same continuation on the model, under -race too.
	epochs, stop := 3, 2
	if testing.Short() {
		epochs, stop = 2, 1
	}
	whole, part, rest := filepath.Join(dir, "whole"), filepath.Join(dir, "part"), filepath.Join(dir, "rest")
	train(whole, "--epochs", fmt.Sprint(epochs))
	train(part, "--epochs", fmt.Sprint(stop))
	ckpts, _ := filepath.Glob(filepath.Join(part, fmt.Sprintf("weight-epoch.%02d-loss-*.weights.h5", stop)))
	if len(ckpts) != 1 {
		t.Fatalf("checkpoints of epoch %d in %s: %v", stop, part, ckpts)
	}
	states, _ := filepath.Glob(filepath.Join(part, "*.voxlab-state"))
	if len(states) != 1 || states[0] != ckpts[0]+".voxlab-state" {
		t.Errorf("states kept: %v, want only the last checkpoint's", states)
	}
	train(rest, "--epochs", fmt.Sprint(epochs), "--resume", ckpts[0])
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if w, r := read(filepath.Join(whole, "training.csv")), read(filepath.Join(rest, "training.csv")); w != r {
		t.Errorf("training.csv of the uninterrupted run:\n%s\nof the resumed run:\n%s", w, r)
	}
	if testing.Short() {
		// The race pass: the two final models hold the same weights, bit
		// for bit (classifying with them, 12 candidates through the
		// ResNet's Go loops twice, is the plain pass's check; classify's
		// own tests run a model under -race).
		sameWeights(t, filepath.Join(whole, "model.weights.h5"), filepath.Join(rest, "model.weights.h5"))
		return
	}
	cl := pipelines["classify"]
	cargs, err := cl.Example(filepath.Join(dir, "classify"))
	if err != nil {
		t.Fatal(err)
	}
	var outs []string
	for _, m := range []string{whole, rest} {
		a := slices.Clone(cargs)
		a[2] = filepath.Join(m, "classified.csv")
		i := slices.Index(a, "--model")
		a[i+1] = filepath.Join(m, "model.weights.h5")
		mustRun(t, append(append([]string{"classify"}, a...), "--backend", "cpu", "--quiet")...)
		outs = append(outs, read(a[2]))
	}
	if outs[0] != outs[1] {
		t.Errorf("the resumed model classifies otherwise than the uninterrupted one:\n%s\n%s", outs[0], outs[1])
	}
}

// sameWeights fails t unless the weight files a and b hold the same
// layers and variables with the same values, bit for bit.
func sameWeights(t *testing.T, a, b string) {
	t.Helper()
	ma, err := keras.Load(a, 0)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := keras.Load(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ma.Weights) == 0 || len(ma.Weights) != len(mb.Weights) {
		t.Fatalf("%s holds %d layers, %s %d", a, len(ma.Weights), b, len(mb.Weights))
	}
	for layer, vars := range ma.Weights {
		if len(vars) != len(mb.Weights[layer]) {
			t.Errorf("layer %s: %d variables in %s, %d in %s", layer, len(vars), a, len(mb.Weights[layer]), b)
		}
		for v, ta := range vars {
			tb, ok := mb.Weights[layer][v]
			if !ok || !slices.Equal(ta.Shape, tb.Shape) || !slices.EqualFunc(ta.Data, tb.Data, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) }) {
				t.Errorf("%s/%s differs between %s and %s", layer, v, a, b)
			}
		}
	}
}

// TestTrainAugments: `voxlab train` augments its training cubes by default
// as cellfinder does (the same seed, with and without --no-augment, gives
// different losses), and an augment likelihood outside [0, 1] is a usage
// error naming the flag.
func TestTrainAugments(t *testing.T) {
	dir := t.TempDir()
	args := trainExample(t, dir)
	flags := append(slices.Clone(args[2:]), "--epochs", "1", "--test-fraction", "0.25", "--save-progress",
		"--no-save-checkpoints", "--backend", "cpu", "--quiet")
	run := func(out string, more ...string) string {
		mustRun(t, append(append([]string{"train", args[0], out}, flags...), more...)...)
		b, err := os.ReadFile(filepath.Join(out, "training.csv"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	aug, plain := run(filepath.Join(dir, "aug")), run(filepath.Join(dir, "plain"), "--no-augment")
	if aug == plain {
		t.Errorf("training.csv is the same with and without --no-augment:\n%s", aug)
	}
	code, _, stderr := runCmd(append(append([]string{"train", args[0], filepath.Join(dir, "bad")}, flags...), "--augment-likelihood", "1.5")...)
	if code != 2 || !strings.Contains(stderr, "augment-likelihood") {
		t.Errorf("--augment-likelihood 1.5: exit %d, stderr %q; want 2 naming the flag", code, stderr)
	}
}
