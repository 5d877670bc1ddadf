package svd

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestPreprocessMatchesChallenge: the B-factor normalisation and the
// Fourier downsampling of single maps (even and odd boxes, to even and
// odd boxes) are the challenge's own bfactor_normalize_volumes and
// downsample_volume's to 1e-6 of the map's largest value. The maps are
// float64, but the challenge's B-factor scaling is float32 (torch's
// fftfreq in its default dtype), which bounds the agreement; the
// downsampling alone (of the same input) agrees to 1e-12.
func TestPreprocessMatchesChallenge(t *testing.T) {
	var g struct {
		Preprocessing struct {
			Maps []struct {
				Name      string
				Box       int
				BFactor   float64 `json:"bfactor"`
				VoxelSize float64 `json:"voxel_size"`
				BoxDS     int     `json:"box_ds"`
			}
		}
	}
	b, err := os.ReadFile("testdata/golden_svd.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Preprocessing.Maps) == 0 {
		t.Fatal("no preprocessing goldens")
	}
	for _, c := range g.Preprocessing.Maps {
		_, _, in := readMatrix(t, "pre_"+c.Name+"_in.npy")
		_, _, wantB := readMatrix(t, "pre_"+c.Name+"_bfactor.npy")
		_, _, wantD := readMatrix(t, "pre_"+c.Name+"_ds.npy")
		p := Preprocess{BFactor: c.BFactor, VoxelSize: c.VoxelSize}
		gotB, err := p.Apply(in, c.Box)
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, c.Name+" B-factor", gotB, wantB, 1e-6)
		gotD, err := Preprocess{BoxDS: c.BoxDS}.Apply(wantB, c.Box)
		if err != nil {
			t.Fatal(err)
		}
		closeTo(t, c.Name+" downsampled", gotD, wantD, 1e-12)
	}
}

func closeTo(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d voxels, the challenge's %d", what, len(got), len(want))
	}
	big := 0.0
	for _, w := range want {
		big = math.Max(big, math.Abs(w))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol*big {
			t.Errorf("%s: voxel %d = %.15g, the challenge's %.15g", what, i, got[i], want[i])
			return
		}
	}
}
