package train

import (
	"fmt"
	"runtime"
	"slices"

	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// Constants of Keras 3's BatchNormalization and Adam defaults, which
// cellfinder's resnet.py and build_model keep (its bn_epsilon is
// resnet.Epsilon).
const (
	Momentum    = 0.99
	Beta1       = 0.9
	Beta2       = 0.999
	AdamEpsilon = 1e-7
	// ClipEpsilon is Keras's backend.epsilon(), the clip of
	// categorical_crossentropy's probabilities.
	ClipEpsilon = 1e-7
)

// unit is a convolution and the batch normalisation after it, with its
// variables, gradients and what the forward pass keeps for the backward.
type unit struct {
	conv *resnet.Conv // structure; conv.W is the kernel (K x out)
	// gamma, beta, mean and variance per output z plane.
	gamma, beta, mean, variance []float32
	gW, gGamma, gBeta           []float32
	// Kept by forward: the input, the convolution's output, and the
	// batch's mean and 1/√(var + ε) per z plane.
	in, z          []float32
	bMean, bInvStd []float32
	// Buffers kept from step to step (reslice): the unit's output, and
	// the gradients of its patches and of its input, which the unit
	// before it reads.
	out, dcol, dx []float32
	s             *scratch // shared by every unit of the model
}

// scratch holds what a unit needs only while it runs: its patches (the
// backward pass computes them again rather than keep them), their
// transpose, the kernel's transpose, the gradient of the convolution's
// output and MatMul's packed copies (forward, kernel gradient, patches'
// gradient). Units run one at a time, so one set, each buffer grown to
// the largest unit's need, serves the whole model: held per unit they
// were more than the kernels and the activations together.
type scratch struct {
	col, colT, dz, wT []float32
	mm                [3]classify.MatMulBuffers
	// products computes the three products (nil: the CPU engine's
	// MatMul, as SetProducts(nil)); err is the first error they returned
	// in the step that runs.
	products Products
	err      error
}

// block is a residual block's units and kept activations.
type block struct {
	a, b, c, short *unit
	in, actA, actB []float32 // block input; ReLU outputs after a and b
	out            []float32 // the block's output, after its ReLU
}

// Model is cellfinder's ResNet in training form (its batch
// normalisations not folded), with Adam's state.
type Model struct {
	Arch    resnet.Arch
	net     *resnet.Net
	stem    *unit
	blocks  []block
	dense   []float32 // features x classes
	bias    []float32
	gDense  []float32
	gBias   []float32
	Workers int

	// Kept by forward.
	stemAct []float32 // conv1's ReLU output
	dstem   []float32
	dh      []float32 // the last block's output gradient
	argmax  []int32   // max pool: index of each output's input
	pooled  []float32 // the max pool's output
	feat    []float32 // batch x features
	probs   []float32 // batch x classes
	n       int

	adam  adam
	state *State
	cubes cubeReader // Fit's and Evaluate's cube reads
}

// New returns a model of arch holding a copy of w (checked against
// arch by resnet.Build).
func New(arch resnet.Arch, w resnet.Weights) (*Model, error) {
	own := resnet.Weights{}
	for l, vars := range w {
		for v, t := range vars {
			own.Set(l, v, resnet.Tensor{Shape: slices.Clone(t.Shape), Data: slices.Clone(t.Data)})
		}
	}
	net, err := resnet.Build(arch, own)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	s := &scratch{}
	mk := func(c *resnet.Conv) *unit {
		if c == nil {
			return nil
		}
		bn := own[c.BN]
		return &unit{conv: c, gamma: bn["gamma"].Data, beta: bn["beta"].Data,
			mean: bn["moving_mean"].Data, variance: bn["moving_variance"].Data, s: s}
	}
	m := &Model{Arch: arch, net: net, stem: mk(net.Conv1), Workers: runtime.GOMAXPROCS(0),
		dense: net.Dense, bias: net.Bias}
	for i := range net.Blocks {
		b := &net.Blocks[i]
		m.blocks = append(m.blocks, block{a: mk(b.A), b: mk(b.B), c: mk(b.C), short: mk(b.Shortcut)})
	}
	return m, nil
}

// units returns every unit in model order.
func (m *Model) units() []*unit {
	out := []*unit{m.stem}
	for i := range m.blocks {
		b := &m.blocks[i]
		for _, u := range []*unit{b.a, b.b, b.c, b.short} {
			if u != nil {
				out = append(out, u)
			}
		}
	}
	return out
}

// Weights returns the model's variables in Keras's layout (a copy), by
// layer and variable name, as a weight file holds them.
func (m *Model) Weights() resnet.Weights { return m.weights(slices.Clone[[]float32]) }

// view returns the model's variables as Weights does but holding the
// model's own arrays, not a copy: for writing a file between steps
// without a second set of weights in memory.
func (m *Model) view() resnet.Weights { return m.weights(func(d []float32) []float32 { return d }) }

// weights returns the model's variables by layer and variable name, each
// array passed through data.
func (m *Model) weights(data func([]float32) []float32) resnet.Weights {
	w := resnet.Weights{}
	for _, l := range m.Arch.Weighted() {
		for _, v := range l.Weights {
			w.Set(l.Name, v.Name, resnet.Tensor{Shape: slices.Clone(v.Shape)})
		}
	}
	put := func(layer, v string, d []float32) {
		t := w[layer][v]
		t.Data = data(d)
		w[layer][v] = t
	}
	for _, u := range m.units() {
		put(u.conv.Name, "kernel", u.conv.W)
		put(u.conv.BN, "gamma", u.gamma)
		put(u.conv.BN, "beta", u.beta)
		put(u.conv.BN, "moving_mean", u.mean)
		put(u.conv.BN, "moving_variance", u.variance)
	}
	put("fully_connected", "kernel", m.dense)
	put("fully_connected", "bias", m.bias)
	return w
}
