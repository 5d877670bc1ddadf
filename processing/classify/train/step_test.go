package train

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// stepGolden is testdata/train_golden.json (gen_train_golden.py).
type stepGolden struct {
	Depth        int         `json:"depth"`
	Input        [4]int      `json:"input"`
	Labels       []int       `json:"labels"`
	LearningRate float64     `json:"learning_rate"`
	Loss         []float64   `json:"loss"`
	Probs        [][]float64 `json:"probs"`
	Tensors      []struct {
		Layer       string    `json:"layer"`
		Var         string    `json:"var"`
		N           int       `json:"n"`
		Values      []float64 `json:"values"`
		DeltaSum    *float64  `json:"delta_sum"`
		DeltaAbsSum *float64  `json:"delta_abs_sum"`
	} `json:"tensors"`
}

// goldenCubes makes the generator's cubes: synth.uniform values of
// "train_cubeB", channels last.
func goldenCubes(arch resnet.Arch, n int) []float32 {
	l := arch.Input[0] * arch.Input[1] * arch.Input[2] * arch.Input[3]
	x := make([]float32, n*l)
	for b := range n {
		for i := range l {
			x[b*l+i] = float32(synth.Uniform("train_cube"+string(rune('0'+b)), 0, i))
		}
	}
	return x
}

// TestStepGolden holds one training step (and the loss and probabilities
// of a second) from synth's weights against the torch reference of
// Keras 3's semantics: every moving statistic and every updated variable
// of up to 4096 values, 512 hashed values of each larger one with the
// absolute sum of its update, each within 1e-4 relative, and the sum of
// the update within 1e-4 of the absolute sum.
func TestStepGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/train_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g stepGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	arch := resnet.Arch{Depth: g.Depth, Input: g.Input}
	w0 := synth.Weights(arch, nil)
	m, err := New(arch, w0)
	if err != nil {
		t.Fatal(err)
	}
	x := goldenCubes(arch, len(g.Labels))
	r1, err := m.Step(x, g.Labels, g.LearningRate)
	if err != nil {
		t.Fatal(err)
	}
	w1 := m.Weights()
	r2, err := m.Step(x, g.Labels, g.LearningRate)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range []StepResult{r1, r2} {
		t.Logf("step %d: loss %.9g (reference %.9g)", i+1, r.Loss, g.Loss[i])
		within(t, "loss", r.Loss, g.Loss[i], 1e-4)
		for j, p := range r.Probs {
			within(t, "probability", float64(p), g.Probs[i][j], 1e-4)
		}
	}
	worst := 0.0
	for _, e := range g.Tensors {
		got := w1[e.Layer][e.Var].Data
		old := w0[e.Layer][e.Var].Data
		if len(got) != e.N {
			t.Fatalf("%s/%s: %d values, reference %d", e.Layer, e.Var, len(got), e.N)
		}
		index := sampleIndex(e.Layer, e.Var, e.N, len(e.Values))
		for k, want := range e.Values {
			i := index[k]
			worst = max(worst, relErr(float64(got[i]), want))
			within(t, e.Layer+"/"+e.Var, float64(got[i]), want, 1e-4)
			if e.Var == "moving_variance" {
				// The batch's part of the moving average, (new −
				// 0.99·old)/0.01: the biased variance against the
				// unbiased is a factor N/(N−1) here, 1 + 1/2047 in
				// the last unit, lost in the average itself. (A
				// batch mean near 0 has no relative precision.)
				// Besides 1e-4 relative, the float32 moving variance's
				// own rounding (half an ulp of it, over 0.01) bounds
				// what the batch part can hold (a plane of conv1 that
				// reads only padding has a variance of 0).
				o := float64(old[i])
				bg, bw := (float64(got[i])-Momentum*o)/(1-Momentum), (want-Momentum*o)/(1-Momentum)
				if d := math.Abs(bg - bw); d > 1e-4*math.Abs(bw)+math.Abs(want)*0x1p-24/(1-Momentum) {
					t.Errorf("%s/%s: batch variance %.9g, reference %.9g", e.Layer, e.Var, bg, bw)
				}
			}
		}
		if e.DeltaSum != nil {
			var s, a float64
			for i, v := range got {
				d := float64(v) - float64(old[i])
				s += d
				a += math.Abs(d)
			}
			// A sum of updates of both signs cancels: its error is
			// relative to the sum of their magnitudes.
			if d := math.Abs(s - *e.DeltaSum); d > 1e-4**e.DeltaAbsSum {
				t.Errorf("%s/%s: the update's sum %.9g, reference %.9g (%.3g of the absolute sum)", e.Layer, e.Var, s, *e.DeltaSum, d / *e.DeltaAbsSum)
			}
			within(t, e.Layer+"/"+e.Var+" update's absolute sum", a, *e.DeltaAbsSum, 1e-4)
		}
	}
	t.Logf("largest relative difference of a variable: %.3g", worst)
}

// sampleIndex returns the indices of the values the generator keeps of
// a variable of n values (all when k == n): SplitMix64 of
// FNV1a64(layer/var) + 7·2^48 + j, modulo n.
func sampleIndex(layer, v string, n, k int) []int {
	out := make([]int, k)
	base := synth.FNV1a64(layer+"/"+v) + 7<<48
	for j := range out {
		if k == n {
			out[j] = j
			continue
		}
		out[j] = int(synth.SplitMix64(base+uint64(j)) % uint64(n))
	}
	return out
}

func relErr(got, want float64) float64 {
	return math.Abs(got-want) / math.Max(math.Abs(want), 1e-30)
}

func within(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if relErr(got, want) > rel {
		t.Errorf("%s: %.9g, reference %.9g (relative difference %.3g)", what, got, want, relErr(got, want))
	}
}
