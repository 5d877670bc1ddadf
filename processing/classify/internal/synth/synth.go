// Package synth makes the deterministic test inputs of classification
// that the Python generators (processing/classify/testdata/*.py) make
// identically: network weights from a hash of the layer's name and the
// value's index, and a two-channel crop of a light-sheet volume with
// bright somata at given points. Everything is integer arithmetic, or
// float64 products, square roots and roundings, which IEEE 754 fixes
// exactly in both languages: the Go tests rebuild the very files and
// volumes the golden outputs were computed from, and only small files
// (the golden outputs, the calibrated batch normalisations) are
// committed.
package synth

import (
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// SplitMix64 is Steele, Lea and Flood's SplitMix64 finaliser (2014).
func SplitMix64(x uint64) uint64 {
	z := x + 0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// FNV1a64 hashes s (Fowler–Noll–Vo 1a, 64 bits).
func FNV1a64(s string) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 0x100000001b3
	}
	return h
}

// Uniform returns value i of variable v of layer in [-1, 1): the top 24
// bits of SplitMix64(FNV1a64(layer) + v·2^48 + i), as k/2^23 − 1.
func Uniform(layer string, v, i int) float64 {
	h := SplitMix64(FNV1a64(layer) + uint64(v)<<48 + uint64(i))
	return float64(h>>40)/(1<<23) - 1
}

// BN is a batch normalisation's four variables.
type BN struct {
	Gamma    []float32 `json:"gamma"`
	Beta     []float32 `json:"beta"`
	Mean     []float32 `json:"moving_mean"`
	Variance []float32 `json:"moving_variance"`
}

// Calibration is what the generator calibrated on its cubes (and commits
// as calib_*.json): every batch normalisation's variables, and the dense
// kernel's scale and bias, so that activations keep a sane scale and the
// probabilities spread over (0, 1).
type Calibration struct {
	BN    map[string]BN `json:"bn"`
	Dense struct {
		KernelScale float64   `json:"kernel_scale"`
		Bias        []float32 `json:"bias"`
	} `json:"dense"`
}

// ReadCalibration reads a calibration file the generator wrote.
func ReadCalibration(path string) (*Calibration, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Calibration
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, nil
}

// Weights returns the network's weights: each convolution and the dense
// kernel uniform in ±√(6/fan in) (He's scale; fan in = kernel volume x
// input channels), the dense bias zero, and each batch normalisation
// γ ∈ [0.5, 1.5], β and the mean in [−0.5, 0.5], the variance in
// [0.5, 1.5] — or, with a calibration c, its batch normalisations, its
// dense bias and the dense kernel times its scale.
func Weights(a resnet.Arch, c *Calibration) resnet.Weights {
	w := resnet.Weights{}
	var bn map[string]BN
	denseScale := 1.0
	if c != nil {
		bn, denseScale = c.BN, c.Dense.KernelScale
	}
	for _, l := range a.Weighted() {
		switch l.Class {
		case resnet.ClassConv:
			s := l.Weights[0].Shape
			fan := s[0] * s[1] * s[2] * s[3]
			w.Set(l.Name, "kernel", resnet.Tensor{Shape: s, Data: uniform(l.Name, 0, product(s), math.Sqrt(6/float64(fan)), 0)})
		case resnet.ClassDense:
			s := l.Weights[0].Shape
			w.Set(l.Name, "kernel", resnet.Tensor{Shape: s, Data: uniform(l.Name, 0, product(s), math.Sqrt(6/float64(s[0]))*denseScale, 0)})
			bias := make([]float32, product(l.Weights[1].Shape))
			if c != nil && len(c.Dense.Bias) == len(bias) {
				copy(bias, c.Dense.Bias)
			}
			w.Set(l.Name, "bias", resnet.Tensor{Shape: l.Weights[1].Shape, Data: bias})
		case resnet.ClassBN:
			n := l.Weights[0].Shape[0]
			p, ok := bn[l.Name]
			if !ok || len(p.Gamma) != n {
				p = BN{Gamma: uniform(l.Name, 0, n, 0.5, 1), Beta: uniform(l.Name, 1, n, 0.5, 0),
					Mean: uniform(l.Name, 2, n, 0.5, 0), Variance: uniform(l.Name, 3, n, 0.5, 1)}
			}
			for i, v := range [][]float32{p.Gamma, p.Beta, p.Mean, p.Variance} {
				w.Set(l.Name, resnet.BNWeights[i], resnet.Tensor{Shape: []int{n}, Data: v})
			}
		}
	}
	return w
}

// uniform returns n values scale·Uniform + offset, rounded to float32.
func uniform(layer string, v, n int, scale, offset float64) []float32 {
	out := make([]float32, n)
	base := FNV1a64(layer) + uint64(v)<<48
	for i := range out {
		u := float64(SplitMix64(base+uint64(i))>>40)/(1<<23) - 1
		out[i] = float32(u*scale + offset)
	}
	return out
}

func product(s []int) int {
	n := 1
	for _, v := range s {
		n *= v
	}
	return n
}
