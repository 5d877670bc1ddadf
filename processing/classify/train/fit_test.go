package train

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/volume"
)

// writeSynthCubes writes n cubes of a synthetic task as cellfinder's
// training cubes (one float32 TIFF per channel, z y x): cells carry a
// bright blob at the centre of the signal, non-cells only noise. It
// returns the training YAML naming both folders.
func writeSynthCubes(t *testing.T, dir string, arch resnet.Arch, n int) string {
	t.Helper()
	h, w, d := arch.Input[0], arch.Input[1], arch.Input[2]
	yaml := "data:\n"
	for _, typ := range []string{"cell", "no_cell"} {
		sub := filepath.Join(dir, typ)
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for k := range n {
			for ch := range arch.Input[3] {
				plane := make([]float32, d*h*w)
				for i := range plane {
					z, y, x := i/(h*w), i/w%h, i%w
					v := 200 + 50*synth.Uniform(fmt.Sprintf("%s%d", typ, k), ch, i)
					dz, dy, dx := float64(z-d/2), float64(y-h/2), float64(x-w/2)
					if typ == "cell" && ch == 0 {
						v += 300 * max(0, 1-(dy*dy+dx*dx+4*dz*dz)/25)
					}
					plane[i] = float32(v)
				}
				name := filepath.Join(sub, fmt.Sprintf("pCellz%dy%dx%dCh%d.tif", k, 10*k, 7*k, ch))
				wr, err := volume.CreateTIFF(name, volume.Info{Shape: [3]int{d, h, w}, DType: volume.Float32, VoxelSize: [3]float64{5, 1, 1}})
				if err != nil {
					t.Fatal(err)
				}
				for z := range d {
					if err := wr.WriteSlab(z, f32bytes(plane[z*h*w:(z+1)*h*w])); err != nil {
						t.Fatal(err)
					}
				}
				if err := wr.Commit(); err != nil {
					t.Fatal(err)
				}
			}
		}
		yaml += fmt.Sprintf("- cube_dir: %s\n  type: %s\n  signal_channel: 0\n  bg_channel: 1\n", sub, typ)
	}
	p := filepath.Join(dir, "training.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFitLowersValidationLoss trains a new 18-layer network a few epochs
// on the synthetic task from cubes on disk (read through ReadYAML,
// ListSamples and LoadCube) and asks that the validation loss fall.
func TestFitLowersValidationLoss(t *testing.T) {
	arch := resnet.Arch{Depth: 18, Input: [4]int{20, 20, 8, 2}}
	y := writeSynthCubes(t, t.TempDir(), arch, 12)
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
	if last := logs[len(logs)-1].ValLoss; !(last < before) {
		t.Errorf("validation loss %.4f before training, %.4f after %d epochs", before, last, cfg.Epochs)
	}
}

func f32bytes(v []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
}
