package classify

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/classify/keras"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
)

// normGolden is testdata/norm_golden.json (gen_norm_golden.py).
type normGolden struct {
	Tag   string     `json:"tag"`
	Depth int        `json:"depth"`
	Input [4]int     `json:"input"`
	Voxel [3]float64 `json:"voxel"`
	Seed  uint64     `json:"seed"`
	Crops []struct {
		Name   string       `json:"name"`
		Shape  [3]int       `json:"shape"`
		Somata [][3]int     `json:"somata"`
		Points [][3]float64 `json:"points"`
		Norms  []struct {
			Planes int           `json:"normalization_n_sampling_planes"`
			Norm   [2][2]float64 `json:"norm"`
		} `json:"norms"`
		PCell []float64 `json:"p_cell"`
	} `json:"crops"`
}

// TestSamplingStep: the step between sampled planes is cellfinder's for
// the examples its dataset_mean_std and classify documents: 125 planes
// and 50 asked, every second (62 or 63 planes); 200 and 50, every fourth;
// 10 and 4, every second; a volume of no more planes than asked, every
// plane.
func TestSamplingStep(t *testing.T) {
	for _, c := range []struct{ nz, n, step int }{{125, 50, 2}, {200, 50, 4}, {10, 4, 2}, {30, 50, 1}, {50, 50, 1}, {51, 50, 1}, {30, 1, 30}} {
		if got := SamplingStep(c.nz, c.n); got != c.step {
			t.Errorf("%d planes, at least %d sampled: step %d, cellfinder's %d", c.nz, c.n, got, c.step)
		}
	}
}

// TestNormalisationGolden: on a crop of 30 planes and one of 125, each
// channel's mean and standard deviation equal those of cellfinder's
// dataset_mean_std (reimplemented in gen_norm_golden.py) for
// normalization_n_sampling_planes above, at and below the number of
// planes, and 1; with cellfinder's 50, classification with normalised
// channels gives the torch reference's probabilities on cubes normalised
// as cellfinder normalises them (checkGolden: within 1e-3, the same
// classes, the same candidates unknown). Under -race -short a plane
// count that samples the same planes as one already checked on that crop
// (30 and 29 after 50 on 30 planes, 126 after 125) is left to the plain
// pass, which checks them all (TestSamplingStep holds the steps).
func TestNormalisationGolden(t *testing.T) {
	var g normGolden
	readJSON(t, "norm_golden.json", &g)
	cal, err := synth.ReadCalibration(filepath.Join("testdata", "calib_"+g.Tag+"_norm.json"))
	if err != nil {
		t.Fatal(err)
	}
	arch := resnet.Arch{Depth: g.Depth, Input: g.Input}
	m := &keras.Model{Path: g.Tag, Format: "in memory", Weights: synth.Weights(arch, cal), Depth: g.Depth}
	if len(g.Crops) != 2 {
		t.Fatalf("%d crops in the golden file", len(g.Crops))
	}
	for _, c := range g.Crops {
		t.Run(c.Name, func(t *testing.T) {
			s, b := synth.Crop(c.Shape, c.Somata, g.Seed)
			info := volume.Info{Shape: c.Shape, DType: volume.Uint16}
			vol := func(name string, d []uint16) *volume.Volume {
				mv, err := volume.NewMemory(info, u16Bytes(d))
				if err != nil {
					t.Fatal(err)
				}
				return volume.New(name, mv)
			}
			pts := make([]points.Point, len(c.Points))
			for i, p := range c.Points {
				pts[i] = points.Point{Z: p[0], Y: p[1], X: p[2]}
			}
			in := Inputs{Signal: vol("signal", s), Background: vol("background", b), Points: pts}
			cfg := DefaultConfig()
			cfg.Model, cfg.VoxelSize, cfg.NetworkDepth = g.Tag, g.Voxel, g.Depth
			cfg.CubeSize = [3]int{g.Input[0], g.Input[1], g.Input[2]}
			cfg.NormalizeChannels = true
			steps := map[int]bool{}
			for _, n := range c.Norms {
				step := SamplingStep(c.Shape[0], n.Planes)
				if raceShort() && steps[step] {
					continue
				}
				steps[step] = true
				cfg.NormSamplingPlanes = n.Planes
				ses, err := OpenModel(cfg, in, m)
				if err != nil {
					t.Fatal(err)
				}
				if err := ses.Normalise(context.Background(), nil); err != nil {
					t.Fatal(err)
				}
				for ch := range 2 {
					got, want := ses.norm[ch], n.Norm[ch]
					if !near(got.Mean, want[0], 1e-12*want[0]) || !near(got.Std, want[1], 1e-12*want[1]) {
						t.Errorf("%d planes asked: channel %d mean, sd %.15g, %.15g; cellfinder's %.15g, %.15g", n.Planes, ch, got.Mean, got.Std, want[0], want[1])
					}
					if wantPlanes := (c.Shape[0] + step - 1) / step; got.Planes != wantPlanes {
						t.Errorf("%d planes asked: %d sampled, want %d", n.Planes, got.Planes, wantPlanes)
					}
				}
			}
			cfg.NormSamplingPlanes = DefaultNormSamplingPlanes
			res := classify(t, cfg, in, gpu.NewCPU(), m)
			checkGolden(t, netConfig{Tag: fmt.Sprintf("%s %s normalised", c.Name, g.Tag), PCell: c.PCell, F32: math.NaN()}, res)
		})
	}
}
