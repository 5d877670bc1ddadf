package train

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	_ "github.com/voxlab/voxlab/processing/volume/h5"
)

// TestRunSendsEpochMetrics: a run hands each epoch's log to the
// progress's sinks as it ends, a pipeline.Metrics named as Keras's
// CSVLogger names its columns, equal to the epochs of its summary, and
// its Next fills classify's model with the model the run wrote and its
// cube size.
func TestRunSendsEpochMetrics(t *testing.T) {
	dir := t.TempDir()
	y, err := WriteExampleCubes(dir, 3, 20, 20, 8)
	if err != nil {
		t.Fatal(err)
	}
	v := Spec.Defaults()
	v["network-depth"], v["epochs"], v["cube-size"], v["no-augment"] = "18", 2, []float64{20, 20, 8}, true
	v["test-fraction"], v["no-save-checkpoints"] = 0.34, true
	out := filepath.Join(dir, "trained")
	args := []string{y, out}
	j, err := Spec.Open(pipeline.Request{Args: args, Values: v, Batch: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var got []pipeline.Metrics
	sink := func(e job.Event) {
		if m, ok := e.Partial.(pipeline.Metrics); ok && e.Kind == job.Partial {
			got = append(got, m)
		}
	}
	d := pipeline.Device{Backend: gpu.NewCPU(), Budget: plan.Budget{Host: 4 << 30, Shared: true}}
	rep, err := j.Run(context.Background(), job.NewProgress("train", sink), d)
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Summary.(Summary)
	if len(got) != len(s.Epochs) || len(got) != 2 {
		t.Fatalf("%d metrics sent for %d epochs", len(got), len(s.Epochs))
	}
	for k, e := range s.Epochs {
		m := got[k]
		want := map[string]float64{"loss": e.Loss, "accuracy": e.Accuracy, "val_loss": e.ValLoss, "val_accuracy": e.ValAccuracy}
		if m.Step != k || len(m.Values) != len(want) {
			t.Errorf("epoch %d: metrics %+v", k, m)
		}
		for name, x := range want {
			if g, ok := m.Values[name]; !ok || g != x || math.IsNaN(g) {
				t.Errorf("epoch %d: %s %v, the log's %v", k, name, g, x)
			}
		}
	}
	next := Spec.Live.Next.Values(args, v)
	named := false
	for _, o := range pipeline.All() {
		for name := range next {
			if _, ok := o.Param(name); o.Name == Spec.Live.Next.Command && !ok {
				t.Errorf("Next fills %s, which %s has not", name, o.Name)
			}
		}
		named = named || o.Name == Spec.Live.Next.Command
	}
	if !named {
		t.Errorf("Next names %q, no registered pipeline", Spec.Live.Next.Command)
	}
	if next["model"] != s.Model || next["cube-size"] != "20,20,8" {
		t.Errorf("Next gives %v; the run wrote %q with 20,20,8 cubes", next, s.Model)
	}
}

// TestFollowCubes: the form follows the latest cubes run: its
// training.yaml, an output folder beside its cubes, its cube size.
func TestFollowCubes(t *testing.T) {
	if a, p := follow([]pipeline.Finished{{Command: "classify", Args: []string{"a", "b", "c.xml"}}}); a != nil || p != nil {
		t.Errorf("followed a classify run: %v %v", a, p)
	}
	done := []pipeline.Finished{
		{Command: "cubes", Args: []string{"sig", "old.xml", "/d/old"}, Values: pipeline.Values{"cube-size": []float64{50, 50, 20}}},
		{Command: "cubes", Args: []string{"sig", "new.xml", "/d/new/"}, Values: pipeline.Values{"cube-size": []float64{20, 20, 8}}},
		{Command: "detect", Args: []string{"sig", "x.csv"}},
	}
	args, params := follow(done)
	if len(args) != 2 || args[0] != "/d/new/training.yaml" || args[1] != "/d/new-trained" || params["cube-size"] != "20,20,8" {
		t.Errorf("follow gave %q, %v", args, params)
	}
}

// TestCancelSaysWhatItKept: a run cancelled after its first epoch ends
// as a cancellation that names the checkpoint it kept (a
// *job.Kept, which the CLI and the job list print in place of "no
// output was written"), and that checkpoint is there; cancelled before
// any epoch ends, it is a plain cancellation.
func TestCancelSaysWhatItKept(t *testing.T) {
	dir := t.TempDir()
	y, err := WriteExampleCubes(dir, 3, 20, 20, 8)
	if err != nil {
		t.Fatal(err)
	}
	run := func(out string, cancelAfter int) error {
		v := Spec.Defaults()
		v["network-depth"], v["epochs"], v["cube-size"], v["no-augment"] = "18", 3, []float64{20, 20, 8}, true
		v["test-fraction"] = 0.34
		j, err := Spec.Open(pipeline.Request{Args: []string{y, out}, Values: v, Batch: 4})
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		epochs := 0
		sink := func(e job.Event) {
			if _, ok := e.Partial.(pipeline.Metrics); ok && e.Kind == job.Partial {
				if epochs++; epochs == cancelAfter {
					cancel()
				}
			}
		}
		if cancelAfter == 0 {
			cancel()
		}
		d := pipeline.Device{Backend: gpu.NewCPU(), Budget: plan.Budget{Host: 4 << 30, Shared: true}}
		_, err = j.Run(ctx, job.NewProgress("train", sink), d)
		return err
	}
	err = run(filepath.Join(dir, "one"), 1)
	k, ok := errors.AsType[*job.Kept](err)
	if !ok || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled after an epoch: %v, want a *job.Kept cancellation", err)
	}
	ckpts, _ := filepath.Glob(filepath.Join(dir, "one", "model-epoch.01-loss-*.keras"))
	if len(ckpts) != 1 || !strings.Contains(k.What, ckpts[0]) {
		t.Errorf("kept %q; the checkpoints written: %v", k.What, ckpts)
	}
	err = run(filepath.Join(dir, "none"), 0)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before an epoch: %v, want a cancellation", err)
	} else if _, kept := errors.AsType[*job.Kept](err); kept {
		t.Errorf("cancelled before an epoch, yet says it kept: %v", err)
	}
	if got := job.LeftBehind(err); got != "no output was written" {
		t.Errorf("LeftBehind of a plain cancellation: %q", got)
	}
}
