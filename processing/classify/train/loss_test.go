package train

import (
	"math"
	"testing"
)

// TestLossClip holds lossGrad against the formulas by hand: an unclipped
// sample's loss −log p and logit gradient (p − t)/n, and a clipped one's
// loss −log 1e-7 with no gradient (the clip's derivative is zero
// outside [ε, 1 − ε]).
func TestLossClip(t *testing.T) {
	loss, g := lossGrad([]float32{0.25, 0.75, 1e-9, 1}, []int{1, 0}, 2)
	want := (-math.Log(0.75) - math.Log(ClipEpsilon)) / 2
	if math.Abs(loss-want) > 1e-6*want {
		t.Errorf("loss %.9g, want %.9g", loss, want)
	}
	for i, w := range []float64{0.125, -0.125, 0, 0} {
		if math.Abs(float64(g[i])-w) > 1e-7 {
			t.Errorf("gradient %d: %.9g, want %.9g", i, g[i], w)
		}
	}
}
