package train

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// TestCheckpointNames: cellfinder's ModelCheckpoint paths,
// "weight-epoch.{epoch:02d}-loss-{val_loss:.3f}.weights.h5" (or model-
// … .keras), the epoch from 1 as Keras formats it.
func TestCheckpointNames(t *testing.T) {
	e := Epoch{Epoch: 2, ValLoss: 0.12345}
	for _, c := range []struct {
		weights, val bool
		want         string
	}{
		{true, true, "weight-epoch.03-loss-0.123.weights.h5"},
		{false, true, "model-epoch.03-loss-0.123.keras"},
		{true, false, "weight-epoch.03.weights.h5"},
	} {
		if got := checkpointName(e, c.weights, c.val); got != c.want {
			t.Errorf("checkpoint %q, want %q", got, c.want)
		}
	}
}

// TestTrainingCSV: training.csv as Keras's CSVLogger writes it — epoch,
// then the sorted log keys (learning_rate only with a schedule, whose
// callback logs it), values as Python prints the float32 logs.
func TestTrainingCSV(t *testing.T) {
	p := filepath.Join(t.TempDir(), "training.csv")
	logs := []Epoch{{Epoch: 0, Loss: 0.5, Accuracy: 0.75, ValLoss: 0.25, ValAccuracy: 1, LearningRate: 1e-4}}
	if err := writeCSV(p, logs, true); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := "epoch,accuracy,learning_rate,loss,val_accuracy,val_loss\n0,0.75,9.999999747378752e-05,0.5,1.0,0.25\n"
	if string(b) != want {
		t.Errorf("training.csv:\n%s\nwant\n%s", b, want)
	}
}

// TestScheduleAndSplit: the learning rate drops at the start of each
// listed epoch; the split is ceil(n·fraction) and the same for a seed;
// a run is the same for a seed (under -short one run only: see below).
func TestScheduleAndSplit(t *testing.T) {
	arch := resnet.Arch{Depth: 18, Input: [4]int{20, 20, 8, 2}}
	y, err := WriteExampleCubes(t.TempDir(), 3, 20, 20, 8)
	if err != nil {
		t.Fatal(err)
	}
	src, err := ReadYAML(y)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := ListSamples(src, false)
	if err != nil {
		t.Fatal(err)
	}
	tr, va := Split(samples, 0.2, 9)
	tr2, va2 := Split(samples, 0.2, 9)
	if len(va) != 2 || len(tr) != 4 || !slices.EqualFunc(va, va2, func(a, b Sample) bool { return a.Files[0] == b.Files[0] }) ||
		!slices.EqualFunc(tr, tr2, func(a, b Sample) bool { return a.Files[0] == b.Files[0] }) {
		t.Fatalf("split of 6 at 0.2: %d training, %d validation (want 4, 2, the same for a seed)", len(tr), len(va))
	}
	cfg := Config{Epochs: 3, BatchSize: 4, LearningRate: 1e-4, LRSchedule: []int{1}, LRMultiplier: 0.5, Seed: 2}
	if testing.Short() {
		// The race pass: an epoch of the ResNet's Go loops takes seconds
		// under the detector; two still see the rate drop once.
		cfg.Epochs = 2
	}
	runs := make([][]Epoch, 2)
	if testing.Short() {
		// One run: TestResumeEqualsUninterrupted holds two runs of one
		// seed (its uninterrupted one and the first epoch of the one it
		// stops) to the same epoch log, bit for bit, with a rate drop
		// too; the plain pass runs both here.
		runs = runs[:1]
	}
	for i := range runs {
		m, err := New(arch, Init(arch, 5))
		if err != nil {
			t.Fatal(err)
		}
		if runs[i], err = m.Fit(context.Background(), tr, va, cfg, nil); err != nil {
			t.Fatal(err)
		}
	}
	for k, want := range []float64{1e-4, 5e-5, 5e-5}[:cfg.Epochs] {
		if math.Abs(runs[0][k].LearningRate-want) > 1e-12 {
			t.Errorf("epoch %d: learning rate %g, want %g", k, runs[0][k].LearningRate, want)
		}
		if len(runs) > 1 && runs[0][k] != runs[1][k] {
			t.Errorf("epoch %d differs between two runs of one seed: %+v, %+v", k, runs[0][k], runs[1][k])
		}
	}
}

// TestResumeEqualsUninterrupted: a run of 3 epochs, and a run stopped
// after 2 whose weights (through Weights, as a checkpoint file holds
// them) and State continue in a new model for the third, end with the
// same weights and logs, bit for bit.
func TestResumeEqualsUninterrupted(t *testing.T) {
	arch := resnet.Arch{Depth: 18, Input: [4]int{20, 20, 8, 2}}
	y, err := WriteExampleCubes(t.TempDir(), 3, 20, 20, 8)
	if err != nil {
		t.Fatal(err)
	}
	src, err := ReadYAML(y)
	if err != nil {
		t.Fatal(err)
	}
	samples, err := ListSamples(src, false)
	if err != nil {
		t.Fatal(err)
	}
	tr, va := Split(samples, 0.2, 4)
	cfg := Config{Epochs: 3, BatchSize: 4, LearningRate: 1e-4, LRSchedule: []int{2}, LRMultiplier: 0.5, Seed: 8}
	stop := 2
	if testing.Short() {
		// The race pass: 2 epochs, stopped after the first, the rate
		// dropping in the resumed one (the plain pass: 3, after 2).
		cfg.Epochs, cfg.LRSchedule, stop = 2, []int{1}, 1
	}
	whole, err := New(arch, Init(arch, 5))
	if err != nil {
		t.Fatal(err)
	}
	want, err := whole.Fit(context.Background(), tr, va, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	first, err := New(arch, Init(arch, 5))
	if err != nil {
		t.Fatal(err)
	}
	short := cfg
	short.Epochs = stop
	if _, err := first.Fit(context.Background(), tr, va, short, nil); err != nil {
		t.Fatal(err)
	}
	second, err := New(arch, first.Weights())
	if err != nil {
		t.Fatal(err)
	}
	cont := cfg
	cont.Resume = first.Checkpoint()
	got, err := second.Fit(context.Background(), tr, va, cont, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d epochs logged, want %d", len(got), len(want))
	}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("epoch %d: resumed %+v, uninterrupted %+v", k, got[k], want[k])
		}
	}
	ww, gw := whole.Weights(), second.Weights()
	for layer, vars := range ww {
		for v, tw := range vars {
			if !slices.Equal(tw.Data, gw[layer][v].Data) {
				t.Errorf("%s/%s differs between the resumed and the uninterrupted run", layer, v)
			}
		}
	}
}
