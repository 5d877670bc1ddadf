package classify

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/voxlab/voxlab/processing/points"
)

// TestCropMatchesGenerator: the Go crop is byte for byte the one the
// golden outputs were computed from.
func TestCropMatchesGenerator(t *testing.T) {
	var g extractGolden
	readJSON(t, "extract_golden.json", &g)
	cropVolumes(t)
	if got := sha(cropOnce.sig); got != g.SignalSHA {
		t.Errorf("signal sha256 %s, generator %s", got, g.SignalSHA)
	}
	if got := sha(cropOnce.bg); got != g.BackSHA {
		t.Errorf("background sha256 %s, generator %s", got, g.BackSHA)
	}
}

// TestExtractGolden cuts every candidate's cube out of the crop for each
// of the generator's voxel sizes (equal to the network's, xy at half its
// resolution, z too, fractional ratios; with and without normalisation)
// through the plane ring, and holds them against the reference
// extractor: the same candidates unknown; at the network's voxel size
// the same bytes; rescaled within 1 grey level at every sample (torch's
// trilinear interpolation) and the sums within float rounding. Under
// -race -short three of the six run through the plane ring's
// goroutines, between them every path: the network's voxel size (the
// same bytes), z rescaled ("z7.25") and x and y rescaled with
// normalisation ("xy2-norm4"); the plain pass runs every size.
func TestExtractGolden(t *testing.T) {
	raced := map[string]bool{"equal": true, "z7.25": true, "xy2-norm4": true}
	var g extractGolden
	readJSON(t, "extract_golden.json", &g)
	inGolden := 0
	for _, c := range g.Extract {
		if raced[c.Name] {
			inGolden++
		}
	}
	if inGolden != len(raced) {
		t.Fatalf("%d of the sizes run under -race -short, %v, are in the golden file", inGolden, raced)
	}
	pts := candidates(t)
	sig, bg := cropVolumes(t)
	for _, c := range g.Extract {
		t.Run(c.Name, func(t *testing.T) {
			if raceShort() && !raced[c.Name] {
				t.Skip("-race -short: the three sizes that run take the same paths; the plain pass runs this one")
			}
			cfg := DefaultConfig()
			cfg.VoxelSize = c.Voxel
			cfg.NormalizeChannels = c.NormSampling > 0
			cfg.NormSamplingPlanes = max(c.NormSampling, 1)
			s, err := OpenCubes(cfg, Inputs{Signal: sig, Background: bg, Points: pts})
			if err != nil {
				t.Fatal(err)
			}
			if s.Geo.Crop != c.Crop {
				t.Fatalf("crop %v, generator %v", s.Geo.Crop, c.Crop)
			}
			if err := s.Normalise(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			if cfg.NormalizeChannels {
				for ch := range 2 {
					if !near(s.norm[ch].Mean, c.Norm[ch][0], 1e-9*c.Norm[ch][0]) || !near(s.norm[ch].Std, c.Norm[ch][1], 1e-9*c.Norm[ch][1]) {
						t.Errorf("channel %d: mean, sd %v, generator %v", ch, s.norm[ch], c.Norm[ch])
					}
				}
			}
			if len(c.Cubes) != len(pts) {
				t.Fatalf("%d golden cubes for %d candidates", len(c.Cubes), len(pts))
			}
			for i, gc := range c.Cubes {
				if s.Inside[i] != (gc.Status == "ok") {
					t.Errorf("candidate %d %v: inside %v, generator %s", i, pts[i], s.Inside[i], gc.Status)
				}
			}
			seen, worst := 0, 0.0
			exact := !s.Geo.Rescale && !cfg.NormalizeChannels
			err = s.EachCube(context.Background(), nil, 2, 7, func(idx []int, cubes []float32) error {
				n := s.cubeLen()
				for k, i := range idx {
					seen++
					cube := cubes[k*n : (k+1)*n]
					gc := c.Cubes[i]
					if exact {
						if got := sha(float32Bytes(cube)); got != gc.SHA256 {
							return fmt.Errorf("candidate %d %v: cube sha256 %s, generator %s", i, pts[i], got, gc.SHA256)
						}
					}
					tol := 0.0
					switch {
					case s.Geo.Rescale && cfg.NormalizeChannels:
						tol = 1e-4
					case s.Geo.Rescale:
						tol = 1 // one grey level
					case cfg.NormalizeChannels:
						tol = 1e-5
					}
					for j, v := range samplesOf(cube, len(gc.Samples)) {
						worst = max(worst, math.Abs(v-gc.Samples[j]))
						if !near(v, gc.Samples[j], tol) {
							return fmt.Errorf("candidate %d %v: sample %d = %v, generator %v", i, pts[i], j, v, gc.Samples[j])
						}
					}
					s1, s2 := sums(cube)
					if !near(s1, gc.Sum, 1e-5*math.Abs(gc.Sum)+1e-3) || !near(s2, gc.SumSq, 1e-5*gc.SumSq+1e-3) {
						return fmt.Errorf("candidate %d: sums %v %v, generator %v %v", i, s1, s2, gc.Sum, gc.SumSq)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if seen != len(s.Order) {
				t.Errorf("%d cubes for %d candidates inside", seen, len(s.Order))
			}
			t.Logf("%d cubes, %d unknown; largest difference at the samples %.3g", seen, s.Unknown(), worst)
		})
	}
}

// TestStartRounding: cuboid starts follow Python's rounding (half to
// even on x and y, truncation of the int() coordinate on z), and a
// cuboid touching the last voxel is inside while one past it is not.
func TestStartRounding(t *testing.T) {
	g := Geometry{Shape: [3]int{30, 520, 680}, Net: [3]int{20, 50, 50}, Crop: [3]int{20, 25, 25}}
	for _, c := range []struct {
		p     [3]float64
		start [3]int
		ok    bool
	}{
		{[3]float64{10, 49, 49}, [3]int{0, 36, 36}, true},    // 36.5 → 36
		{[3]float64{10, 50, 51}, [3]int{0, 38, 38}, true},    // 37.5 → 38, 38.5 → 38
		{[3]float64{9, 100, 100}, [3]int{-1, 88, 88}, false}, // z leaves
		{[3]float64{15.7, 100.9, 12}, [3]int{5, 88, 0}, true},
		{[3]float64{15, 100, 11}, [3]int{5, 88, -2}, false},
		{[3]float64{15, 100, 667}, [3]int{5, 88, 654}, true},
		{[3]float64{15, 100, 668}, [3]int{5, 88, 656}, false},
		{[3]float64{math.NaN(), 1, 1}, [3]int{}, false},
	} {
		s, ok := g.Start(c.p)
		if ok != c.ok || (ok && s != c.start) {
			t.Errorf("Start(%v) = %v %v, want %v %v", c.p, s, ok, c.start, c.ok)
		}
	}
}

// TestLinearWeightsIdentity: at equal sizes trilinear interpolation is
// the identity (weights 1 and 0), and upsampling 25 → 50 samples as
// torch does: source index (o + 0.5)/2 − 0.5 clamped at 0.
func TestLinearWeightsIdentity(t *testing.T) {
	w := linearWeights(7, 7)
	for o := range 7 {
		if w.i0[o] != o || w.w0[o] != 1 || w.w1[o] != 0 {
			t.Fatalf("identity tap %d: %d %d %v %v", o, w.i0[o], w.i1[o], w.w0[o], w.w1[o])
		}
	}
	w = linearWeights(25, 50)
	for o, want := range map[int][4]float32{0: {0, 1, 1, 0}, 1: {0, 1, 0.75, 0.25}, 2: {0, 1, 0.25, 0.75}, 49: {24, 24, 0.75, 0.25}} {
		if float32(w.i0[o]) != want[0] || float32(w.i1[o]) != want[1] || w.w0[o] != want[2] || w.w1[o] != want[3] {
			t.Errorf("tap %d: %d %d %v %v, want %v", o, w.i0[o], w.i1[o], w.w0[o], w.w1[o], want)
		}
	}
}

var _ = points.Cell
