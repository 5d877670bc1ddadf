package train

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/internal/kerasw"
	"github.com/voxlab/voxlab/processing/classify/keras"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
)

func init() { pipeline.Register(Spec) }

// Spec is `voxlab train YAML OUTDIR`: cellfinder's `cellfinder train`
// (train_yaml.py) on the CPU, without augmentation yet; with a CUDA
// backend the convolutions' products run on cuBLAS (Products).
var Spec = &pipeline.Spec{
	Name:    "train",
	Title:   "Train classifier",
	Order:   27,
	Summary: "train cellfinder's cell classifier on training cubes (cellfinder's training YAML), writing a model voxlab classify and cellfinder load",
	Usage: "YAML OUTDIR [--model FILE | --network-depth 18|34|50|101|152] [--batch-size 16] [--epochs 100] [--learning-rate 0.0001] " +
		"[--test-fraction 0.1] [--resume CHECKPOINT] [--lr-schedule E1,E2 --lr-multiplier 0.1] [--normalize-channels] [--save-weights] [--no-save-checkpoints] [--save-progress] [--no-augment] [--augment-likelihood 0.9] [--seed N] [--cube-size 50,50,20]",
	Examples: []string{
		"voxlab train cubes/training.yaml retrained/ --model resnet50_tv.h5 --epochs 10 --save-weights",
	},
	ArgsHelp: "cellfinder's training YAML and an output folder",
	Args: []pipeline.Param{
		{Name: "in", Kind: pipeline.Input, Label: "Training YAML",
			Help: "cellfinder's training YAML: data: entries with cube_dir, type (cell or no_cell), signal_channel, bg_channel (Export training cubes writes it)"},
		{Name: "out", Kind: pipeline.Output, Folder: true, Label: "Output folder", Default: "trained",
			Help: "the folder the model (model.weights.h5 or model.keras), the checkpoints and training.csv are written into"},
	},
	Params: []pipeline.Param{
		{Name: "model", Kind: pipeline.Input, Optional: true, Label: "Start from model",
			Help: "continue training a model file (Keras 2 .h5, .weights.h5 or .keras); empty: a new network of --network-depth"},
		{Name: "resume", Kind: pipeline.Input, Optional: true, Advanced: true, Label: "Resume from checkpoint",
			Help: "continue an interrupted run from its last checkpoint (the same YAML and flags): the result equals an uninterrupted run's"},
		{Name: "network-depth", Kind: pipeline.Choice, Options: []string{"18", "34", "50", "101", "152"}, Default: "50",
			Help: "layers of a new network (a model file gives its own)"},
		{Name: "epochs", Kind: pipeline.Int, Default: 100, Help: "passes over the training cubes"},
		{Name: "learning-rate", Kind: pipeline.Float, Default: 0.0001, Help: "Adam's learning rate"},
		{Name: "test-fraction", Kind: pipeline.Float, Default: 0.1, Help: "fraction of the cubes held out for validation (0: none)"},
		{Name: "lr-schedule", Kind: pipeline.Text, Advanced: true,
			Help: "epochs (0-based, comma-separated) at whose start the learning rate is multiplied by --lr-multiplier"},
		{Name: "lr-multiplier", Kind: pipeline.Float, Default: 0.1, Advanced: true, Help: "the learning rate's factor at each epoch of --lr-schedule"},
		{Name: "normalize-channels", Kind: pipeline.Bool, Advanced: true,
			Help: "normalise each channel by the signal_mean, signal_std, bg_mean, bg_std of its YAML entry"},
		{Name: "save-weights", Kind: pipeline.Bool, Help: "write model.weights.h5 (Keras 3 weights) instead of model.keras"},
		{Name: "no-save-checkpoints", Kind: pipeline.Bool, Advanced: true, Help: "write no checkpoint after each epoch"},
		{Name: "save-progress", Kind: pipeline.Bool, Advanced: true, Help: "write training.csv, each epoch's loss and accuracy, as Keras's CSVLogger"},
		{Name: "no-augment", Kind: pipeline.Bool, Advanced: true, Help: "train on the cubes as they are: no flips, rotation, translation or scaling (cellfinder's --no-augment)"},
		{Name: "augment-likelihood", Kind: pipeline.Float, Default: 0.9, Advanced: true,
			Help: "the chance that each of the affine transform and the three flips is applied to a training cube (cellfinder's --augment-likelihood)",
			Check: func(v any) error {
				if f := v.(float64); f < 0 || f > 1 {
					return fmt.Errorf("is %g: give a number from 0 to 1", f)
				}
				return nil
			}},
		{Name: "seed", Kind: pipeline.Int, Default: 0, Advanced: true, Help: "seed of the validation split, the shuffles and a new network's weights"},
		cubeSizeParam(),
	},
	Batch:  pipeline.Batch{Flag: "batch-size", Unit: "cubes", Label: "Cubes per batch"},
	Follow: follow,
	Live: pipeline.Live{Kind: pipeline.LiveMetrics, Title: "Training", Next: &pipeline.Next{
		Label: "Classify with this model", Command: classify.Spec.Name, Values: nextValues}},
	Open:    open,
	Example: example,
}

// follow fills the form from the training cubes the latest cubes run of
// the session wrote (File ▸ Export training cubes): their training.yaml,
// an output folder beside the cubes' (a new export replaces the cubes'
// folder, so the model is not put inside it) and their cube size.
func follow(done []pipeline.Finished) ([]string, map[string]string) {
	for i := len(done) - 1; i >= 0; i-- {
		r := done[i]
		if r.Command != classify.CubesSpec.Name || len(r.Args) < 3 || r.Args[2] == "" {
			continue
		}
		dir := filepath.Clean(r.Args[2])
		params := map[string]string{}
		if cs, ok := r.Values["cube-size"].([]float64); ok && len(cs) == 3 {
			params["cube-size"] = cubeSizeParam().Format(cs)
		}
		return []string{filepath.Join(dir, "training.yaml"), dir + "-trained"}, params
	}
	return nil, nil
}

// modelName is the final model's file name in the output folder, as
// cellfinder names it.
func modelName(saveWeights bool) string {
	if saveWeights {
		return "model.weights.h5"
	}
	return "model.keras"
}

// nextValues gives classify the model a finished run wrote and the
// cube size it was trained on.
func nextValues(args []string, v pipeline.Values) map[string]string {
	if len(args) < 2 || args[1] == "" {
		return nil
	}
	sw, _ := v["save-weights"].(bool)
	out := map[string]string{"model": filepath.Join(args[1], modelName(sw))}
	if cs, ok := v["cube-size"].([]float64); ok && len(cs) == 3 {
		out["cube-size"] = cubeSizeParam().Format(cs)
	}
	return out
}

// epochMetrics is an epoch's log as the run's partial result, named as
// Keras's CSVLogger names its columns; the validation's are left out
// when there is none.
func epochMetrics(e Epoch) pipeline.Metrics {
	m := pipeline.Metrics{Step: e.Epoch, Values: map[string]float64{"loss": e.Loss, "accuracy": e.Accuracy}}
	if !math.IsNaN(e.ValLoss) {
		m.Values["val_loss"], m.Values["val_accuracy"] = e.ValLoss, e.ValAccuracy
	}
	return m
}

// cubeSizeParam is classify's --cube-size, the same words in both
// commands.
func cubeSizeParam() pipeline.Param {
	p, ok := classify.Spec.Param("cube-size")
	if !ok {
		panic("train: classify has no cube-size")
	}
	return p
}

// defaultBatch is cellfinder's --batch-size.
const defaultBatch = 16

// trainJob is an opened `voxlab train` run.
type trainJob struct {
	arch    resnet.Arch
	weights resnet.Weights
	from    string // the model file, or "" for a new network
	resume  *State
	samples []Sample
	cfg     Config
	out     string
	yaml    string
	opts    struct{ saveWeights, checkpoints, progress bool }
}

func open(r pipeline.Request) (pipeline.Job, error) {
	v := r.Values
	j := &trainJob{yaml: r.Args[0], from: v.String("model")}
	cs := v.Floats("cube-size")
	src, err := ReadYAML(j.yaml)
	if err != nil {
		return nil, err
	}
	if j.samples, err = ListSamples(src, v.Bool("normalize-channels")); err != nil {
		return nil, err
	}
	j.arch = resnet.Arch{Input: [4]int{int(cs[0]), int(cs[1]), int(cs[2]), len(j.samples[0].Files)}}
	if err := checkCubes(j.samples, j.arch); err != nil {
		return nil, err
	}
	if r := v.String("resume"); r != "" {
		if j.from != "" {
			return nil, pipeline.Usagef("--resume continues a run: it takes no --model (the checkpoint holds the weights)")
		}
		if j.resume, err = ReadState(r + StateSuffix); err != nil {
			return nil, err
		}
		j.from = r
	}
	if j.from != "" {
		m, err := keras.Load(j.from, 0)
		if err != nil {
			return nil, err
		}
		j.arch.Depth, j.weights = m.Depth, m.Weights
		if j.arch.Depth == 0 {
			return nil, fmt.Errorf("model %s: its layers fit no network depth of cellfinder's", j.from)
		}
	} else {
		j.arch.Depth, _ = strconv.Atoi(v.String("network-depth"))
	}
	if err := j.arch.Validate(); err != nil {
		return nil, err
	}
	if j.weights == nil {
		j.weights = Init(j.arch, uint64(v.Int("seed")))
	} else if err := j.weights.Check(j.arch); err != nil {
		return nil, fmt.Errorf("model %s: %w", j.from, err)
	}
	sched, err := parseSchedule(v.String("lr-schedule"))
	if err != nil {
		return nil, err
	}
	j.cfg = Config{Epochs: v.Int("epochs"), BatchSize: r.Batch, LearningRate: v.Float("learning-rate"),
		TestFraction: v.Float("test-fraction"), LRSchedule: sched, LRMultiplier: v.Float("lr-multiplier"), Seed: uint64(v.Int("seed"))}
	if !v.Bool("no-augment") {
		// cellfinder augments training cubes unless told not to
		// (train_yaml.py's --no-augment); validation cubes never are.
		aug := DefaultAugmentation()
		aug.Likelihood = v.Float("augment-likelihood")
		j.cfg.Augment = &aug
	}
	if j.cfg.BatchSize == 0 {
		j.cfg.BatchSize = defaultBatch
	}
	switch {
	case j.cfg.Epochs < 1:
		return nil, pipeline.Usagef("--epochs %d: at least 1", j.cfg.Epochs)
	case j.cfg.TestFraction < 0 || j.cfg.TestFraction >= 1:
		return nil, pipeline.Usagef("--test-fraction %g: from 0 to below 1", j.cfg.TestFraction)
	case !(j.cfg.LearningRate > 0):
		return nil, pipeline.Usagef("--learning-rate %g: must be positive", j.cfg.LearningRate)
	}
	j.opts.saveWeights, j.opts.checkpoints, j.opts.progress = v.Bool("save-weights"), !v.Bool("no-save-checkpoints"), v.Bool("save-progress")
	if !r.PlanOnly {
		j.out = r.Args[1]
		if st, err := os.Stat(j.out); err == nil && !st.IsDir() {
			return nil, fmt.Errorf("output %s is a file: give a folder for the model", j.out)
		}
	}
	return j, nil
}

// parseSchedule reads --lr-schedule's comma-separated epochs.
func parseSchedule(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		e, err := strconv.Atoi(f)
		if err != nil || e < 0 {
			return nil, pipeline.Usagef("--lr-schedule %q: give epochs as whole numbers from 0, comma-separated", s)
		}
		out = append(out, e)
	}
	return out, nil
}

// checkCubes reads every cube's header (not its data) and checks its
// size and type before any epoch runs.
func checkCubes(samples []Sample, arch resnet.Arch) error {
	want := [3]int{arch.Input[2], arch.Input[0], arch.Input[1]}
	for _, s := range samples {
		for _, f := range s.Files {
			v, err := volume.Open(f)
			if err != nil {
				return fmt.Errorf("cube %s: %w", f, err)
			}
			info := v.Info
			v.Close()
			if info.Shape != want {
				return fmt.Errorf("cube %s is %dx%dx%d (z, y, x); the network takes %dx%dx%d cubes (--cube-size %d,%d,%d: height, width, depth)",
					f, info.Shape[0], info.Shape[1], info.Shape[2], want[0], want[1], want[2], arch.Input[0], arch.Input[1], arch.Input[2])
			}
			if _, err := classify.Converter(info.DType); err != nil {
				return fmt.Errorf("cube %s: %w", f, err)
			}
		}
	}
	return nil
}

func (j *trainJob) Close() error { return nil }

// Summary is the --json output of voxlab train.
type Summary struct {
	YAML       string  `json:"yaml"`
	Output     string  `json:"output"`
	Model      string  `json:"model"`
	From       string  `json:"from,omitempty"`
	Depth      int     `json:"network_depth"`
	Training   int     `json:"training_cubes"`
	Validation int     `json:"validation_cubes"`
	Epochs     []Epoch `json:"epochs"`
	Seconds    float64 `json:"seconds"`
}

func (j *trainJob) Run(ctx context.Context, p *job.Progress, d pipeline.Device) (*pipeline.Report, error) {
	start := time.Now()
	var notes []string
	if err := os.MkdirAll(j.out, 0o755); err != nil {
		return nil, err
	}
	if j.weights == nil {
		return nil, fmt.Errorf("train %s: the job has run once: open it again", j.yaml)
	}
	m, err := New(j.arch, j.weights)
	if err != nil {
		return nil, err
	}
	// The model holds its own copy: the job's would be a second set of
	// weights held for the whole run.
	j.weights = nil
	// Training runs on the host's cores: the CPU backend's workers, or
	// every core beside another backend, which computes the
	// convolutions' products (Products; on CUDA cuBLAS's fp32 GEMM).
	switch c := d.Backend.(type) {
	case *gpu.CPUBackend:
		m.Workers = c.Workers()
	case nil:
	default:
		pr, err := ProductsFor(d.Backend)
		if err != nil {
			return nil, err
		}
		defer pr.Close()
		m.SetProducts(pr)
		notes = append(notes, fmt.Sprintf("train: the convolutions' products (forward, kernel and input gradients) ran on %s (fp32, operands copied per product); the rest of each step on the CPU's %d cores",
			d.Backend.Name(), m.Workers))
	}
	trainSet, valSet := Split(j.samples, j.cfg.TestFraction, j.cfg.Seed)
	if len(trainSet) == 0 {
		return nil, fmt.Errorf("train %s: no cube left for training after holding out %g for validation", j.yaml, j.cfg.TestFraction)
	}
	if p != nil {
		done := 0
		if j.resume != nil {
			done = j.resume.NextEpoch
		}
		p.Stage("train", int64((j.cfg.Epochs-done)*len(trainSet)), "cubes")
	}
	cfg := j.cfg
	cfg.Resume = j.resume
	cfg.Progress = func(n int) {
		if p != nil {
			p.Add(int64(n))
		}
	}
	var logs []Epoch
	if j.resume != nil {
		logs = j.resume.Logs
	}
	if p != nil {
		// A resumed run's plot starts with the epochs run before.
		for _, e := range logs {
			p.Partial(epochMetrics(e))
		}
	}
	lastState := ""
	_, err = m.Fit(ctx, trainSet, valSet, cfg, func(e Epoch) error {
		if j.opts.checkpoints {
			name := checkpointName(e, j.opts.saveWeights, len(valSet) > 0)
			if err := j.save(m, name); err != nil {
				return err
			}
			if err := WriteState(filepath.Join(j.out, name+StateSuffix), m.Checkpoint()); err != nil {
				return err
			}
			if lastState != "" && lastState != name {
				os.Remove(filepath.Join(j.out, lastState+StateSuffix))
			}
			lastState = name
		}
		logs = append(logs, e)
		if p != nil {
			p.Partial(epochMetrics(e))
		}
		if j.opts.progress {
			return writeCSV(filepath.Join(j.out, "training.csv"), logs, len(cfg.LRSchedule) > 0)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	name := modelName(j.opts.saveWeights)
	if err := j.save(m, name); err != nil {
		return nil, err
	}
	s := Summary{YAML: j.yaml, Output: j.out, Model: filepath.Join(j.out, name), From: j.from, Depth: j.arch.Depth,
		Training: len(trainSet), Validation: len(valSet), Epochs: logs, Seconds: time.Since(start).Seconds()}
	last := logs[len(logs)-1]
	note := fmt.Sprintf("train: %d epochs of a %d-layer network on %d cubes (%d held out): loss %.4f, accuracy %.3f", len(logs), j.arch.Depth, len(trainSet), len(valSet), last.Loss, last.Accuracy)
	if len(valSet) > 0 {
		note += fmt.Sprintf("; validation loss %.4f, accuracy %.3f", last.ValLoss, last.ValAccuracy)
	}
	return &pipeline.Report{Summary: s, Notes: append([]string{note + " → " + s.Model}, notes...)}, nil
}

// save writes the model's weights into the output folder as name: a
// .keras archive or a Keras 3 .weights.h5, from the model's own arrays
// (between steps, they do not change while written).
func (j *trainJob) save(m *Model, name string) error {
	f := keras.Keras3Model
	if strings.HasSuffix(name, ".weights.h5") {
		f = keras.Keras3Weights
	}
	return kerasw.Save(filepath.Join(j.out, name), f, j.arch, m.view())
}

// checkpointName is cellfinder's checkpoint file name: "weight" or
// "model" + "-epoch.{epoch:02d}-loss-{val_loss:.3f}" (without
// validation "-epoch.{epoch:02d}"), Keras numbering epochs from 1.
func checkpointName(e Epoch, weights, val bool) string {
	base := fmt.Sprintf("-epoch.%02d", e.Epoch+1)
	if val {
		base += fmt.Sprintf("-loss-%.3f", e.ValLoss)
	}
	if weights {
		return "weight" + base + ".weights.h5"
	}
	return "model" + base + ".keras"
}

// writeCSV writes training.csv as Keras's CSVLogger does: the epoch
// (from 0), then the logs' keys in sorted order.
func writeCSV(path string, logs []Epoch, lr bool) error {
	var b strings.Builder
	b.WriteString("epoch,accuracy")
	if lr {
		b.WriteString(",learning_rate")
	}
	val := !math.IsNaN(logs[0].ValLoss)
	b.WriteString(",loss")
	if val {
		b.WriteString(",val_accuracy,val_loss")
	}
	b.WriteString("\n")
	for _, e := range logs {
		row := []string{strconv.Itoa(e.Epoch), pyFloat(e.Accuracy)}
		if lr {
			row = append(row, pyFloat(e.LearningRate))
		}
		row = append(row, pyFloat(e.Loss))
		if val {
			row = append(row, pyFloat(e.ValAccuracy), pyFloat(e.ValLoss))
		}
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// pyFloat formats a float32 log value as Python's repr of the float
// Keras logs it as.
func pyFloat(v float64) string {
	f := float64(float32(v))
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eIN") {
		s += ".0"
	}
	return s
}
