package modelfiles

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/internal/kerasw"
	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/classify/keras"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/classify/train"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/points"
)

// TestTrainedModelClassifies closes the loop on the synthetic crop:
// training cubes exported from its curated candidates (WriteCubes, the
// curation layout and training.yaml), read back as cellfinder reads them
// (train.ReadYAML, ListSamples), an epoch of training from the
// calibrated 18-layer network (an uncalibrated dense layer), the model saved as Keras 3's
// model.weights.h5 — and voxlab classify with that file gives each
// candidate the probability the trained model's own inference mode
// gives its cube (within 1e-4; the two are independent implementations:
// classify folds each batch normalisation into its convolution) — and the
// probability an independent reference gives it: trained_golden.json,
// the torch network of gen_golden.py run on the saved file and the
// exported cubes by gen_trained_golden.py (within 1e-4, once the trained
// weights are the ones the reference read: their fingerprint within
// 1e-4 relative).
func TestTrainedModelClassifies(t *testing.T) {
	if raceEnabled && testing.Short() {
		// make test's race pass: an epoch of training and a classification
		// in the networks' Go loops take minutes under the race detector
		// (the train package's own tests race its goroutines); the plain
		// pass runs this test whole.
		t.Skip("an epoch of training under -race: run whole without -short (make test's plain pass)")
	}
	c := netGolden(t)[0]
	if c.Depth != 18 || c.Input != [4]int{20, 20, 8, 2} {
		t.Fatalf("the first golden network is %s, want the 18-layer one on 20x20x8 cubes", c.Tag)
	}
	sig, bg := cropVolumes(t)
	pts := candidates(t)
	in := classify.Inputs{Signal: sig, Background: bg, Points: pts}
	cfg := configFor(c, "")
	s, err := classify.OpenCubes(cfg, in)
	if err != nil {
		t.Fatal(err)
	}
	// gen_trained_golden.py sets VOXLAB_TRAINED_OUT to keep the cubes and
	// the model for its reference (and rewrites the golden).
	keep := os.Getenv("VOXLAB_TRAINED_OUT")
	work := t.TempDir()
	if keep != "" {
		work = keep
	}
	dir := filepath.Join(work, "cubes")
	if _, err := s.WriteCubes(context.Background(), job.NewProgress("cubes"), dir, 2, 8); err != nil {
		t.Fatal(err)
	}
	src, err := train.ReadYAML(filepath.Join(dir, "training.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	samples, err := train.ListSamples(src, false)
	if err != nil {
		t.Fatal(err)
	}
	cal, err := synth.ReadCalibration(filepath.Join(testdata, "calib_"+c.Tag+".json"))
	if err != nil {
		t.Fatal(err)
	}
	arch := resnet.Arch{Depth: c.Depth, Input: c.Input}
	// The calibrated batch normalisations with synth's uncalibrated dense
	// layer, whose probabilities stay away from 0 and 1.
	w0 := synth.Weights(arch, cal)
	w0["fully_connected"] = synth.Weights(arch, nil)["fully_connected"]
	m, err := train.New(arch, w0)
	if err != nil {
		t.Fatal(err)
	}
	logs, err := m.Fit(context.Background(), samples, nil, train.Config{Epochs: 1, BatchSize: 8, LearningRate: 1e-5, LRMultiplier: 0.1, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d cubes, epoch loss %.4f accuracy %.3f", len(samples), logs[0].Loss, logs[0].Accuracy)
	model := filepath.Join(work, "model.weights.h5")
	if err := kerasw.Save(model, keras.Keras3Weights, arch, m.Weights()); err != nil {
		t.Fatal(err)
	}
	cfg.Model = model
	res := run(t, cfg, in, gpu.NewCPU(), nil)
	// The trained model's inference on each exported cube, by file name.
	want := map[string]float64{}
	cube := make([]float32, classify.CubeLen(arch))
	for _, sm := range samples {
		if err := train.LoadCube(cube, sm, arch); err != nil {
			t.Fatal(err)
		}
		want[filepath.Base(sm.Files[0])] = float64(m.Predict(cube, 1)[1])
	}
	var golden struct {
		Fingerprint map[string]float64
		P           map[string]float64
	}
	if keep == "" {
		b, err := os.ReadFile(filepath.Join(testdata, "trained_golden.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &golden); err != nil {
			t.Fatal(err)
		}
		for k, want := range fingerprint(m.Weights()) {
			if g, ok := golden.Fingerprint[k]; !ok || math.Abs(g-want) > max(1e-4*math.Abs(g), 1e-8) {
				t.Fatalf("trained weights' %s %.7g, the reference's model %.7g: training changed; rerun testdata/gen_trained_golden.py", k, want, g)
			}
		}
	}
	var compared, spread, ref int
	seen := map[string]bool{}
	worst, worstRef := 0.0, 0.0
	for i, cl := range res.Candidates {
		if cl.Class == points.Unknown {
			continue
		}
		name := classify.CubeFileName(pts[i], 0)
		w, ok := want[name]
		if !ok {
			t.Fatalf("candidate %d classified, but no cube %s was exported", i, name)
		}
		compared++
		if w > 0.01 && w < 0.99 {
			spread++
		}
		d := math.Abs(float64(cl.P) - w)
		worst = max(worst, d)
		if d > 1e-4 {
			t.Errorf("candidate %d: voxlab classify p(cell) %.6f, the trained model's %.6f", i, cl.P, w)
		}
		if keep != "" {
			continue
		}
		r, ok := golden.P[name]
		if !ok {
			t.Errorf("candidate %d: no reference p(cell) for cube %s", i, name)
			continue
		}
		ref++
		seen[name] = true
		d = math.Abs(float64(cl.P) - r)
		worstRef = max(worstRef, d)
		if d > 1e-4 {
			t.Errorf("candidate %d: voxlab classify p(cell) %.6f, the torch reference's %.6f", i, cl.P, r)
		}
	}
	t.Logf("%d candidates compared (%d with p(cell) in (0.01, 0.99)), largest difference %.2g from the trained model's inference, %.2g from the torch reference's (%d)", compared, spread, worst, worstRef, ref)
	if keep == "" && len(seen) != len(golden.P) {
		t.Errorf("%d cubes compared with the reference, which classified %d", len(seen), len(golden.P))
	}
	if compared == 0 || spread < compared/4 {
		t.Error(fmt.Sprintf("%d candidates compared, %d away from 0 and 1: too few to hold the two apart", compared, spread))
	}
}

// fingerprint sums a few of the trained variables (the dense layer's and
// the first convolution's), so that the test knows its weights are the
// ones the reference classified with.
func fingerprint(w resnet.Weights) map[string]float64 {
	out := map[string]float64{}
	for _, lv := range [][2]string{{"fully_connected", "kernel"}, {"fully_connected", "bias"}, {"conv1", "kernel"}, {"conv1_bn", "gamma"}, {"conv1_bn", "moving_variance"}} {
		sum := 0.0
		for _, v := range w[lv[0]][lv[1]].Data {
			sum += math.Abs(float64(v))
		}
		out[lv[0]+"/"+lv[1]] = sum
	}
	return out
}
