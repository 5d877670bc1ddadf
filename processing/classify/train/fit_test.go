package train

import (
	"context"
	"math"
	"testing"

	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// TestFitLowersValidationLoss trains a new 18-layer network a few epochs
// on the synthetic task from cubes on disk (read through ReadYAML,
// ListSamples and LoadCube) and asks that the validation loss fall
// below the first epoch's.
func TestFitLowersValidationLoss(t *testing.T) {
	if testing.Short() {
		// make test's race pass (-short): Fit's goroutines are raced by
		// TestResumeEqualsUninterrupted and TestScheduleAndSplit there;
		// this many epochs of an 18-layer net take minutes under the race
		// detector, and the plain pass runs this test whole.
		t.Skip("several epochs of training: run whole without -short (make test's plain pass)")
	}
	arch := resnet.Arch{Depth: 18, Input: [4]int{20, 20, 8, 2}}
	y, err := WriteExampleCubes(t.TempDir(), 12, 20, 20, 8)
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
	if len(samples) != 24 {
		t.Fatalf("%d samples, want 24", len(samples))
	}
	cfg := Config{Epochs: 4, BatchSize: 6, LearningRate: 1e-4, TestFraction: 0.25, LRMultiplier: 0.1, Seed: 3}
	trainSet, valSet := Split(samples, cfg.TestFraction, cfg.Seed)
	if len(valSet) != 6 || len(trainSet) != 18 {
		t.Fatalf("split %d/%d, want 18 training and 6 validation cubes", len(trainSet), len(valSet))
	}
	m, err := New(arch, Init(arch, 1))
	if err != nil {
		t.Fatal(err)
	}
	before, _, err := m.Evaluate(context.Background(), valSet, cfg.BatchSize)
	if err != nil {
		t.Fatal(err)
	}
	logs, err := m.Fit(context.Background(), trainSet, valSet, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range logs {
		t.Logf("epoch %d: loss %.4f accuracy %.3f, validation loss %.4f accuracy %.3f", e.Epoch, e.Loss, e.Accuracy, e.ValLoss, e.ValAccuracy)
	}
	// As TestFitCropCubes: against the first epoch's validation loss,
	// not the untrained network's (its moving statistics are Keras's
	// initial ones, which any epoch moves), the best of the later epochs.
	// Measured (seed 3): 0.824, 0.784, 0.715, 0.699.
	best := math.Inf(1)
	for _, e := range logs[1:] {
		best = min(best, e.ValLoss)
	}
	if !(best < logs[0].ValLoss) {
		t.Errorf("validation loss %.4f before training, %.4f after the first epoch, at best %.4f after the later ones", before, logs[0].ValLoss, best)
	}
}
