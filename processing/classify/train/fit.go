package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// Config holds the training's settings, cellfinder's train_yaml.py
// options of the same names.
type Config struct {
	Epochs       int
	BatchSize    int
	LearningRate float64
	// TestFraction of the cubes held out for validation (0: none).
	TestFraction float64
	// LRSchedule lists the 0-based epochs at whose start the learning
	// rate is multiplied by LRMultiplier (train_yaml.py's lr_scheduler
	// through Keras's LearningRateScheduler).
	LRSchedule   []int
	LRMultiplier float64
	// Seed fixes the validation split and the shuffles (cellfinder's are
	// unseeded).
	Seed uint64
	// Progress, when set, hears the cubes of each step as it ends.
	Progress func(cubes int)
	// Resume, when set, continues the run a State was taken from (with
	// the model holding that run's weights at the time); the model takes
	// the State's moments over.
	Resume *State
	// Augment, when set, augments the training cubes (never the
	// validation's) as cellfinder does, drawn from the shuffles'
	// generator so that a seed (and a resumed State) fixes them.
	Augment *Augmentation
}

// State is what a run holds beyond the weights after an epoch: with
// them, Fit continues exactly as the uninterrupted run would (the same
// bits on the CPU).
type State struct {
	// NextEpoch is the first epoch still to run; LearningRate the rate
	// the last one ran at.
	NextEpoch    int
	LearningRate float64
	// Shuffle is the shuffles' generator (rand.PCG's binary form).
	Shuffle []byte
	// AdamSteps and Adam's moments, per trainable variable in model
	// order.
	AdamSteps int
	M, V      [][]float32
	Logs      []Epoch
}

// Checkpoint returns the run's state after its last finished epoch. Its
// moments are the model's own arrays, not a copy (two more sets of
// weights' worth of memory otherwise): it holds until the model's next
// step.
func (m *Model) Checkpoint() *State { return m.state }

// saveState records the state after epoch e.
func (m *Model) saveState(e int, lr float64, pcg *rand.PCG, logs []Epoch) error {
	b, err := pcg.MarshalBinary()
	if err != nil {
		return err
	}
	st := &State{NextEpoch: e + 1, LearningRate: lr, Shuffle: b, AdamSteps: m.adam.steps, Logs: slices.Clone(logs)}
	vars, _ := m.trainables()
	for _, w := range vars {
		st.M = append(st.M, m.adam.m[&w[0]])
		st.V = append(st.V, m.adam.v[&w[0]])
	}
	m.state = st
	return nil
}

// restore sets Adam's moments from st, taking its arrays over (a resumed
// run's State is read for this alone).
func (m *Model) restore(st *State) error {
	vars, _ := m.trainables()
	if len(st.M) != len(vars) || len(st.V) != len(vars) {
		return fmt.Errorf("train: the state holds %d variables' moments, the network %d", len(st.M), len(vars))
	}
	m.adam = adam{steps: st.AdamSteps, m: map[*float32][]float32{}, v: map[*float32][]float32{}}
	for i, w := range vars {
		if len(st.M[i]) != len(w) || len(st.V[i]) != len(w) {
			return fmt.Errorf("train: the state's moments of variable %d have %d values, the network's %d", i, len(st.M[i]), len(w))
		}
		m.adam.m[&w[0]], m.adam.v[&w[0]] = st.M[i], st.V[i]
	}
	return nil
}

// DefaultConfig is cellfinder's defaults (train_yaml.py's run).
var DefaultConfig = Config{Epochs: 100, BatchSize: 16, LearningRate: 0.0001, TestFraction: 0.1, LRMultiplier: 0.1}

// Epoch is one epoch's line of Keras's logs (what its CSVLogger writes):
// the training loss and accuracy averaged over the epoch's cubes as the
// steps measured them, the validation's in inference mode after the
// epoch (NaN without validation), and the epoch's learning rate.
type Epoch struct {
	Epoch                  int
	Loss, Accuracy         float64
	ValLoss, ValAccuracy   float64
	LearningRate           float64
	TrainCubes, ValidCubes int
}

// Split holds out a fraction of the samples for validation as sklearn's
// train_test_split does (ceil(n·fraction) validation samples, the rest
// training, after a shuffle; here a seeded one).
func Split(samples []Sample, fraction float64, seed uint64) (trainSet, valSet []Sample) {
	if fraction <= 0 {
		return slices.Clone(samples), nil
	}
	idx := rand.New(rand.NewPCG(seed, 0x5eed)).Perm(len(samples))
	nTest := int(math.Ceil(fraction * float64(len(samples))))
	for k, i := range idx {
		if k < nTest {
			valSet = append(valSet, samples[i])
		} else {
			trainSet = append(trainSet, samples[i])
		}
	}
	return trainSet, valSet
}

// loadBatch reads samples into x (len(samples) cubes) and returns their
// labels.
func (m *Model) loadBatch(x []float32, samples []Sample) ([]int, error) {
	l := classify.CubeLen(m.Arch)
	labels := make([]int, len(samples))
	for i, s := range samples {
		if err := m.cubes.load(x[i*l:(i+1)*l], s, m.Arch); err != nil {
			return nil, err
		}
		labels[i] = s.Label
	}
	return labels, nil
}

// Fit trains the model for cfg.Epochs on trainSet, shuffled each epoch
// into batches of cfg.BatchSize (the last one partial, as cellfinder's
// CuboidBatchSampler makes them), validating on valSet after each
// epoch; onEpoch (may be nil) sees each epoch's log as it ends. A
// cancelled ctx stops between steps.
func (m *Model) Fit(ctx context.Context, trainSet, valSet []Sample, cfg Config, onEpoch func(Epoch) error) ([]Epoch, error) {
	if len(trainSet) == 0 {
		return nil, fmt.Errorf("train: no training cubes")
	}
	if cfg.BatchSize < 1 || cfg.Epochs < 1 {
		return nil, fmt.Errorf("train: batch size %d and epochs %d must be positive", cfg.BatchSize, cfg.Epochs)
	}
	pcg := rand.NewPCG(cfg.Seed, 0xba7c4)
	x := make([]float32, cfg.BatchSize*classify.CubeLen(m.Arch))
	lr := cfg.LearningRate
	var logs []Epoch
	first := 0
	if st := cfg.Resume; st != nil {
		if err := pcg.UnmarshalBinary(st.Shuffle); err != nil {
			return nil, fmt.Errorf("train: resume: %w", err)
		}
		if err := m.restore(st); err != nil {
			return nil, err
		}
		first, lr, logs = st.NextEpoch, st.LearningRate, slices.Clone(st.Logs)
	}
	rng := rand.New(pcg)
	aug := newBatchAugmenter(cfg.Augment, m.Arch.Input)
	for e := first; e < cfg.Epochs; e++ {
		if slices.Contains(cfg.LRSchedule, e) {
			lr *= cfg.LRMultiplier
		}
		order := rng.Perm(len(trainSet))
		var lossSum float64
		var correct int
		for b0 := 0; b0 < len(order); b0 += cfg.BatchSize {
			if err := ctx.Err(); err != nil {
				return logs, err
			}
			var batch []Sample
			for _, i := range order[b0:min(b0+cfg.BatchSize, len(order))] {
				batch = append(batch, trainSet[i])
			}
			labels, err := m.loadBatch(x, batch)
			if err != nil {
				return logs, err
			}
			aug.apply(x[:len(batch)*classify.CubeLen(m.Arch)], rng)
			r, err := m.Step(x[:len(batch)*classify.CubeLen(m.Arch)], labels, lr)
			if err != nil {
				return logs, err
			}
			if cfg.Progress != nil {
				cfg.Progress(len(batch))
			}
			lossSum += r.Loss * float64(len(batch))
			correct += countCorrect(r.Probs, labels)
		}
		log := Epoch{Epoch: e, Loss: lossSum / float64(len(trainSet)), Accuracy: float64(correct) / float64(len(trainSet)),
			ValLoss: math.NaN(), ValAccuracy: math.NaN(), LearningRate: lr, TrainCubes: len(trainSet), ValidCubes: len(valSet)}
		if len(valSet) > 0 {
			var err error
			if log.ValLoss, log.ValAccuracy, err = m.Evaluate(ctx, valSet, cfg.BatchSize); err != nil {
				return logs, err
			}
		}
		logs = append(logs, log)
		if err := m.saveState(e, lr, pcg, logs); err != nil {
			return logs, err
		}
		if onEpoch != nil {
			if err := onEpoch(log); err != nil {
				return logs, err
			}
		}
	}
	return logs, nil
}

// Evaluate returns the mean loss and the accuracy of the model in
// inference mode (moving statistics) on samples, in batches.
func (m *Model) Evaluate(ctx context.Context, samples []Sample, batchSize int) (loss, accuracy float64, err error) {
	l := classify.CubeLen(m.Arch)
	x := make([]float32, batchSize*l)
	var sum float64
	var correct int
	for b0 := 0; b0 < len(samples); b0 += batchSize {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		batch := samples[b0:min(b0+batchSize, len(samples))]
		labels, err := m.loadBatch(x, batch)
		if err != nil {
			return 0, 0, err
		}
		m.stem.s.err = nil
		probs := m.forward(x[:len(batch)*l], len(batch), false)
		if err := m.stem.s.err; err != nil {
			return 0, 0, err
		}
		bl, _ := lossGrad(probs, labels, len(batch))
		sum += bl * float64(len(batch))
		correct += countCorrect(probs, labels)
	}
	return sum / float64(len(samples)), float64(correct) / float64(len(samples)), nil
}

// Predict returns the probabilities (n x classes) of the n cubes of x in
// inference mode. It has no error to return: with device products
// (SetProducts) a product that fails leaves them meaningless, which
// Step and Evaluate report.
func (m *Model) Predict(x []float32, n int) []float32 {
	return slices.Clone(m.forward(x, n, false))
}

// countCorrect counts the cubes whose most probable class is their label
// (Keras's categorical_accuracy: argmax, the first on a tie).
func countCorrect(probs []float32, labels []int) int {
	n := 0
	for b, l := range labels {
		best := 0
		for k := 1; k < resnet.Classes; k++ {
			if probs[b*resnet.Classes+k] > probs[b*resnet.Classes+best] {
				best = k
			}
		}
		if best == l {
			n++
		}
	}
	return n
}
