package train

import (
	"fmt"

	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// StepResult is what one training step measured on its batch, before the
// update: the mean loss and the probabilities (n x classes).
type StepResult struct {
	Loss  float64
	Probs []float32
}

// Step runs one training step on the n cubes of x (each
// classify.CubeLen(Arch) values, channels last) with labels (0 non-cell,
// 1 cell): the forward pass in training mode (the moving statistics
// updated), the loss, the backward pass and one Adam update at learning
// rate lr, as Keras 3's Model.train_step does.
func (m *Model) Step(x []float32, labels []int, lr float64) (StepResult, error) {
	n := len(labels)
	if n == 0 || len(x) != n*classify.CubeLen(m.Arch) {
		return StepResult{}, fmt.Errorf("train: %d values for %d cubes of %d", len(x), n, classify.CubeLen(m.Arch))
	}
	for i, l := range labels {
		if l < 0 || l >= resnet.Classes {
			return StepResult{}, fmt.Errorf("train: label %d of cube %d: classes are 0 (non-cell) and 1 (cell)", l, i)
		}
	}
	m.stem.s.err = nil
	probs := m.forward(x, n, true)
	loss, dlogits := lossGrad(probs, labels, n)
	m.backward(dlogits, n)
	if err := m.stem.s.err; err != nil {
		// A product failed on the device: the moving statistics were
		// updated from its garbage, so the model is not to be used on.
		return StepResult{}, err
	}
	vars, grads := m.trainables()
	m.adam.update(lr, vars, grads, m.Workers)
	return StepResult{Loss: loss, Probs: append([]float32(nil), probs...)}, nil
}

// backward sets every trainable variable's gradient from the logits'.
func (m *Model) backward(dlogits []float32, n int) {
	last := m.net.Blocks[len(m.net.Blocks)-1].Last().Out
	p, nf := resnet.Positions(last), last[3]
	m.gDense = make([]float32, nf*resnet.Classes)
	m.gBias = make([]float32, resnet.Classes)
	dh := classify.Reuse(&m.dh, n*p*nf) // every element set below
	for b := range n {
		g := dlogits[b*resnet.Classes : (b+1)*resnet.Classes]
		f := m.feat[b*nf : (b+1)*nf]
		for k, gk := range g {
			m.gBias[k] += gk
		}
		for c, v := range f {
			df := float32(0)
			for k, gk := range g {
				m.gDense[c*resnet.Classes+k] += v * gk
				df += gk * m.dense[c*resnet.Classes+k]
			}
			df /= float32(p)
			for q := range p {
				dh[(b*p+q)*nf+c] = df
			}
		}
	}
	for i := len(m.blocks) - 1; i >= 0; i-- {
		dh = m.blocks[i].backward(dh, n, m.Workers)
	}
	dstem := classify.Reuse(&m.dstem, len(m.stemAct))
	clear(dstem)
	for i, at := range m.argmax {
		dstem[at] += dh[i]
	}
	reluBack(dstem, m.stemAct)
	m.stem.backward(dstem, n, m.Workers, false)
}

// backward takes the gradient of the block's output and returns that of
// its input.
func (b *block) backward(dout []float32, n, workers int) []float32 {
	reluBack(dout, b.out)
	var dA []float32
	if b.c != nil {
		dB := b.c.backward(dout, n, workers, true)
		reluBack(dB, b.actB)
		dA = b.b.backward(dB, n, workers, true)
	} else {
		dA = b.b.backward(dout, n, workers, true)
	}
	reluBack(dA, b.actA)
	dx := b.a.backward(dA, n, workers, true)
	ds := dout
	if b.short != nil {
		ds = b.short.backward(dout, n, workers, true)
	}
	for i := range dx {
		dx[i] += ds[i]
	}
	return dx
}

// trainables returns the trainable variables and their gradients, in
// model order.
func (m *Model) trainables() (vars, grads [][]float32) {
	for _, u := range m.units() {
		vars = append(vars, u.conv.W, u.gamma, u.beta)
		grads = append(grads, u.gW, u.gGamma, u.gBeta)
	}
	return append(vars, m.dense, m.bias), append(grads, m.gDense, m.gBias)
}
