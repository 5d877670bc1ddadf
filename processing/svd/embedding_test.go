package svd

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"
)

// goldenEmbedding is golden_svd.json's embeddings: the challenge's
// compute_common_embedding and project_to_gt_embedding on numpy's SVDs.
type goldenEmbedding struct {
	Common struct {
		S         []float64              `json:"singular_values"`
		Embedding map[string][][]float64 `json:"embedding"`
		GT        [][]float64            `json:"gt_embedding"`
	} `json:"common"`
	InGT struct {
		Embedding map[string][][]float64 `json:"embedding"`
		GT        [][]float64            `json:"gt_embedding"`
	} `json:"in_gt"`
}

// signs is, per column, the sign that turns got's columns into want's
// (each component of an SVD is defined up to its sign).
func signs(got []float64, want [][]float64) []float64 {
	k := len(want[0])
	out := make([]float64, k)
	for c := range k {
		dot := 0.0
		for i := range want {
			dot += got[i*k+c] * want[i][c]
		}
		out[c] = math.Copysign(1, dot)
	}
	return out
}

// agree: got, its columns signed, is want to tol relative to want's
// largest value.
func agree(t *testing.T, what string, got []float64, want [][]float64, sign []float64, tol float64) {
	t.Helper()
	flat := slices.Concat(want...)
	if len(got) != len(flat) {
		t.Fatalf("%s: %d values, the challenge's %d", what, len(got), len(flat))
	}
	big := 0.0
	for _, w := range flat {
		big = math.Max(big, math.Abs(w))
	}
	k := len(want[0])
	for i, w := range flat {
		if g := got[i] * sign[i%k]; math.Abs(g-w) > tol*big {
			t.Errorf("%s [%d, %d] = %.12g, the challenge's %.12g", what, i/k, i%k, g, w)
			return
		}
	}
}

// TestEmbeddingsMatchChallenge: the common embedding (its singular
// values, every submission's coordinates and the ground truth's) and the
// projection onto the ground truth's subspace are the challenge's to
// 1e-8, each component up to its sign, one sign for all sets.
func TestEmbeddingsMatchChallenge(t *testing.T) {
	var g goldenEmbedding
	b, err := os.ReadFile("testdata/golden_svd.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	var subs []*Result
	for _, name := range sets[1:] {
		subs = append(subs, svdOf(t, name, 1000))
	}
	gt := svdOf(t, "challenge_gt", 1000)
	c, err := CommonEmbedding(subs, gt)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range g.Common.S {
		if math.Abs(c.S[i]-s) > 1e-9*g.Common.S[0] {
			t.Errorf("common S[%d] = %.15g, the challenge's %.15g", i, c.S[i], s)
		}
	}
	sign := signs(c.Embeddings[0], g.Common.Embedding[sets[1]])
	for i, name := range sets[1:] {
		agree(t, name+" in the common embedding", c.Embeddings[i], g.Common.Embedding[name], sign, 1e-8)
	}
	agree(t, "the ground truth in the common embedding", c.GT, g.Common.GT, sign, 1e-8)

	emb, own := InGT(subs, gt)
	sign = signs(own, g.InGT.GT)
	agree(t, "the ground truth in its own subspace", own, g.InGT.GT, sign, 1e-8)
	for i, name := range sets[1:] {
		agree(t, name+" in the ground truth's subspace", emb[i], g.InGT.Embedding[name], sign, 1e-8)
	}
}
