package train

import (
	"math"
	"math/rand/v2"

	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// Init returns the weights of a new network (cellfinder's training from
// scratch, --network-depth): Keras's defaults for resnet.py's layers,
// seeded — each Conv3D and Dense kernel Glorot uniform in
// ±√(6/(fan in + fan out)) (fans of a convolution times its kernel
// volume; Glorot & Bengio 2010), the dense bias 0, and each
// BatchNormalization γ 1, β 0, moving mean 0, moving variance 1.
func Init(arch resnet.Arch, seed uint64) resnet.Weights {
	rng := rand.New(rand.NewPCG(seed, 0x1417))
	w := resnet.Weights{}
	glorot := func(shape []int) []float32 {
		rf := 1
		for _, s := range shape[:len(shape)-2] {
			rf *= s
		}
		fanIn, fanOut := shape[len(shape)-2]*rf, shape[len(shape)-1]*rf
		limit := math.Sqrt(6 / float64(fanIn+fanOut))
		n := 1
		for _, s := range shape {
			n *= s
		}
		out := make([]float32, n)
		for i := range out {
			out[i] = float32((2*rng.Float64() - 1) * limit)
		}
		return out
	}
	fill := func(n int, v float32) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	for _, l := range arch.Weighted() {
		for _, v := range l.Weights {
			var d []float32
			switch {
			case v.Name == "kernel":
				d = glorot(v.Shape)
			case v.Name == "gamma" || v.Name == "moving_variance":
				d = fill(v.Shape[0], 1)
			default: // beta, moving_mean, bias
				d = fill(v.Shape[0], 0)
			}
			w.Set(l.Name, v.Name, resnet.Tensor{Shape: v.Shape, Data: d})
		}
	}
	return w
}
