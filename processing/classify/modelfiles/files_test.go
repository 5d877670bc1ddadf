package modelfiles

// Tests that read weight files: they link libhdf5 (processing/volume/h5),
// which the pipeline's own test binary must not (doc.go).

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/internal/kerasw"
	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/classify/keras"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	_ "github.com/voxlab/voxlab/processing/volume/h5"
)

var modelFiles struct {
	sync.Mutex
	dir   string
	paths map[string]string
}

// modelFile writes (once per test binary) the weight file of a golden
// configuration in the given layout: the generator's weights rebuilt
// with synth and its calibration, saved by keras.Save.
func modelFile(t testing.TB, c netConfig, format keras.Format) string {
	t.Helper()
	modelFiles.Lock()
	defer modelFiles.Unlock()
	key := c.Tag + string(format)
	if p, ok := modelFiles.paths[key]; ok {
		return p
	}
	if modelFiles.dir == "" {
		d, err := os.MkdirTemp("", "voxlab-classify-models-")
		if err != nil {
			t.Fatal(err)
		}
		modelFiles.dir, modelFiles.paths = d, map[string]string{}
	}
	cal, err := synth.ReadCalibration(filepath.Join(testdata, "calib_"+c.Tag+".json"))
	if err != nil {
		t.Fatal(err)
	}
	arch := resnet.Arch{Depth: c.Depth, Input: c.Input}
	ext := map[keras.Format]string{keras.Legacy: ".h5", keras.Keras3Weights: ".weights.h5", keras.Keras3Model: ".keras"}[format]
	p := filepath.Join(modelFiles.dir, c.Tag+ext)
	if err := kerasw.Save(p, format, arch, synth.Weights(arch, cal)); err != nil {
		t.Fatal(err)
	}
	modelFiles.paths[key] = p
	return p
}

func TestMain(m *testing.M) {
	code := m.Run()
	if modelFiles.dir != "" {
		os.RemoveAll(modelFiles.dir)
	}
	os.Exit(code)
}

// TestClassifyGolden classifies the crop's candidates with the networks
// of depth 18 and 50, on small cubes and cellfinder's 50x50x20, from
// weight files in Keras 2 and Keras 3 layouts, and holds the
// probabilities against the torch reference (testdata/gen_golden.py,
// float64): within 1e-3, the same class wherever the reference is not
// within 1e-3 of 0.5, the same candidates unknown. Under -race -short
// (make test's race pass) only the smallest network runs: the race
// detector slows the networks' Go loops some two hundredfold.
func TestClassifyGolden(t *testing.T) {
	pts := candidates(t)
	all := true
	if raceEnabled && len(pts) > 12 {
		pts, all = pts[:12], false
	}
	sig, bg := cropVolumes(t)
	for _, c := range netGolden(t) {
		format := keras.Legacy
		if c.Layout != "legacy" {
			format = keras.Keras3Model
		}
		t.Run(c.Tag, func(t *testing.T) {
			if raceEnabled && testing.Short() && c.Tag != "d18_20x20x8" {
				t.Skip("-race -short: the 18-layer network on small cubes runs the same goroutines; the plain pass compares every network")
			}
			res := run(t, configFor(c, modelFile(t, c, format)), classify.Inputs{Signal: sig, Background: bg, Points: pts}, gpu.NewCPU(), nil)
			checkGolden(t, c, res, all)
		})
	}
}

// TestBadModel: a missing model, a text file, a folder, or a model that
// does not match the data's channels or the depth asked are refused
// before anything is read or written, naming the file and the problem.
func TestBadModel(t *testing.T) {
	c := netGolden(t)[0]
	sig, bg := cropVolumes(t)
	pts := candidates(t)
	dir := t.TempDir()
	text := filepath.Join(dir, "resnet50_tv.h5")
	os.WriteFile(text, []byte("these are not weights\n"), 0o644)
	model := modelFile(t, c, keras.Legacy)
	for _, tc := range []struct {
		name  string
		model string
		bg    bool
		depth int
		want  []string
	}{
		{"missing", filepath.Join(dir, "nope.h5"), true, c.Depth, []string{"nope.h5", "no such file"}},
		{"text", text, true, c.Depth, []string{text, "not a Keras weight file"}},
		{"folder", dir, true, c.Depth, []string{dir, "folder"}},
		{"channels", model, false, c.Depth, []string{model, "conv1", "2 input channel", "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := configFor(c, tc.model)
			cfg.NetworkDepth = tc.depth
			in := classify.Inputs{Signal: sig, Points: pts}
			if tc.bg {
				in.Background = bg
			}
			_, err := classify.Open(cfg, in)
			if err == nil {
				t.Fatal("opened")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v: want it to say %q", err, w)
				}
			}
		})
	}
}

// TestDepthFromFile: the network depth is read from the model file in
// each of the formats classify reads (an 18-layer network in tf.keras
// 2 HDF5 and Keras 3 .weights.h5, a 50-layer one in a .keras: the file
// TestClassifyGolden reads, as a .keras takes half a minute to write);
// a depth asked that the file contradicts is refused naming the file,
// both depths and the way out, before any voxel is read; the depth the
// file holds, asked, is accepted.
func TestDepthFromFile(t *testing.T) {
	sig, bg := cropVolumes(t)
	pts := candidates(t)
	for _, c := range netGolden(t)[:2] {
		if raceEnabled && testing.Short() && c.Depth != 18 {
			// make test's race pass: writing and reading the 50-layer
			// .keras under the race detector takes minutes; the plain
			// pass runs it.
			continue
		}
		formats := []keras.Format{keras.Legacy, keras.Keras3Weights}
		if c.Depth != 18 {
			formats = []keras.Format{keras.Keras3Model}
		}
		for _, format := range formats {
			t.Run(fmt.Sprintf("%s/%s", c.Tag, format), func(t *testing.T) {
				model := modelFile(t, c, format)
				in := classify.Inputs{Signal: sig, Background: bg, Points: pts}
				cfg := configFor(c, model)
				for _, asked := range []int{0, c.Depth} {
					cfg.NetworkDepth = asked
					s, err := classify.Open(cfg, in)
					if err != nil {
						t.Fatalf("depth asked %d: %v", asked, err)
					}
					if s.Net.Arch.Depth != c.Depth {
						t.Errorf("depth asked %d: a %d-layer network built, the file holds %d", asked, s.Net.Arch.Depth, c.Depth)
					}
				}
				other := 50
				if c.Depth == 50 {
					other = 34
				}
				cfg.NetworkDepth = other
				_, err := classify.Open(cfg, in)
				if err == nil {
					t.Fatalf("depth %d asked of a ResNet-%d: opened", other, c.Depth)
				}
				for _, w := range []string{model, fmt.Sprintf("ResNet-%d", c.Depth), fmt.Sprintf("asked is %d", other), "auto", fmt.Sprintf("set it to %d", c.Depth)} {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%v: want it to say %q", err, w)
					}
				}
			})
		}
	}
}
