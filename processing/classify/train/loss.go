package train

import (
	"math"

	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// lossGrad returns the batch's mean categorical cross-entropy (Keras's
// categorical_crossentropy of probabilities: renormalised, clipped to
// [ClipEpsilon, 1 − ClipEpsilon]) against the one-hot labels, and its
// gradient with respect to the logits (n x classes) through the
// softmax, the renormalisation and the clip.
func lossGrad(probs []float32, labels []int, n int) (float64, []float32) {
	const eps = ClipEpsilon
	grad := make([]float32, n*resnet.Classes)
	loss := 0.0
	for b := range n {
		p := probs[b*resnet.Classes : (b+1)*resnet.Classes]
		var s float64
		for _, v := range p {
			s += float64(v)
		}
		var q, dq [resnet.Classes]float64
		for i, v := range p {
			q[i] = float64(v) / s
			c := min(max(q[i], eps), 1-eps)
			if i == labels[b] {
				loss -= math.Log(c)
				if q[i] >= eps && q[i] <= 1-eps {
					dq[i] = -1 / (c * float64(n))
				}
			}
		}
		// q = p/s: dp_i = (dq_i − Σ dq_j q_j)/s; softmax:
		// dlogit_i = p_i (dp_i − Σ dp_j p_j).
		var dot float64
		for i := range q {
			dot += dq[i] * q[i]
		}
		var dp [resnet.Classes]float64
		var dot2 float64
		for i := range dp {
			dp[i] = (dq[i] - dot) / s
			dot2 += dp[i] * float64(p[i])
		}
		for i := range dp {
			grad[b*resnet.Classes+i] = float32(float64(p[i]) * (dp[i] - dot2))
		}
	}
	return loss / float64(n), grad
}
