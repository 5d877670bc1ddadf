package train

import (
	"math"

	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// patches returns the im2col matrix (rows x K) of the unit's convolution
// over the n cubes of in; a 1x1x1 convolution of stride 1 reads its input as is.
func (u *unit) patches(in []float32, n int) []float32 {
	c := u.conv
	rows := n * resnet.Positions(c.Out)
	if c.Pointwise() && c.Stride == [3]int{1, 1, 1} {
		return in[:rows*c.K()]
	}
	col := classify.Reuse(&u.s.col, rows*c.K())
	classify.Im2col(col, in, c, 0, rows)
	return col
}

// forward runs the unit on the n cubes of in and returns its output
// (before any ReLU): the convolution, then the batch normalisation — in
// training with the batch's statistics, the moving statistics updated as
// Keras 3 does; in inference with the moving statistics.
func (u *unit) forward(in []float32, n, workers int, training bool) []float32 {
	c := u.conv
	rows := n * resnet.Positions(c.Out)
	cout := c.Out[3]
	u.in = in
	classify.Reuse(&u.z, rows*cout)
	u.matMul(0, rows, cout, c.K(), u.patches(in, n), c.K(), c.W, u.z, workers)
	d := c.Out[2]
	if !training {
		return u.normalise(u.mean, inverseStd(u.variance), rows, cout)
	}
	sum, sq := make([]float64, d), make([]float64, d)
	for r := range rows {
		z := r % d
		for _, v := range u.z[r*cout : (r+1)*cout] {
			sum[z] += float64(v)
		}
	}
	count := float64(rows / d * cout)
	u.bMean, u.bInvStd = make([]float32, d), make([]float32, d)
	for z := range d {
		u.bMean[z] = float32(sum[z] / count)
	}
	for r := range rows {
		z := r % d
		mu := float64(u.bMean[z])
		for _, v := range u.z[r*cout : (r+1)*cout] {
			e := float64(v) - mu
			sq[z] += e * e
		}
	}
	for z := range d {
		variance := float32(sq[z] / count) // biased, as ops.moments
		u.bInvStd[z] = inverseStd([]float32{variance})[0]
		u.mean[z] = u.mean[z]*Momentum + u.bMean[z]*(1-Momentum)
		u.variance[z] = u.variance[z]*Momentum + variance*(1-Momentum)
	}
	return u.normalise(u.bMean, u.bInvStd, rows, cout)
}

// inverseStd returns 1/√(v + ε) of each variance.
func inverseStd(v []float32) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(1 / math.Sqrt(float64(x)+resnet.Epsilon))
	}
	return out
}

// normalise returns u.z normalised by mean and inverse standard deviation
// per z plane, scaled by γ and shifted by β as Keras's
// batch_normalization computes it: x·(inv·γ) + (β − mean·inv·γ).
func (u *unit) normalise(mean, invStd []float32, rows, cout int) []float32 {
	d := u.conv.Out[2]
	out := classify.Reuse(&u.out, len(u.z))
	for r := range rows {
		z := r % d
		s := invStd[z] * u.gamma[z]
		t := u.beta[z] - mean[z]*s
		o := out[r*cout : (r+1)*cout]
		for j, v := range u.z[r*cout : (r+1)*cout] {
			o[j] = v*s + t
		}
	}
	return out
}

func relu(x []float32) []float32 {
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
	}
	return x
}

// forward runs the network on the n cubes of x (channels last, cube
// after cube), in training or inference mode, keeping what backward needs, and returns
// the probabilities (n x classes).
func (m *Model) forward(x []float32, n int, training bool) []float32 {
	m.n = n
	m.stemAct = relu(m.stem.forward(x, n, m.Workers, training))
	m.maxPool(n)
	h := m.pooled
	for i := range m.blocks {
		b := &m.blocks[i]
		b.in = h
		b.actA = relu(b.a.forward(h, n, m.Workers, training))
		var main []float32
		if b.c != nil {
			b.actB = relu(b.b.forward(b.actA, n, m.Workers, training))
			main = b.c.forward(b.actB, n, m.Workers, training)
		} else {
			main = b.b.forward(b.actA, n, m.Workers, training)
		}
		short := h
		if b.short != nil {
			short = b.short.forward(h, n, m.Workers, training)
		}
		for j := range main {
			main[j] += short[j]
		}
		b.out = relu(main)
		h = b.out
	}
	return m.head(h, n)
}

// maxPool pools conv1's output into m.pooled, keeping each output's
// argmax (the window's first maximum in (y, x, z) order).
func (m *Model) maxPool(n int) {
	net := m.net
	in, out := net.Conv1.Out, net.PoolOut
	k, s := net.PoolKernel, net.PoolStride
	w, d, ch := in[1], in[2], in[3]
	cubeIn, cubeOut := resnet.Positions(in)*ch, resnet.Positions(out)*ch
	classify.Reuse(&m.pooled, n*cubeOut)
	if cap(m.argmax) < n*cubeOut {
		m.argmax = make([]int32, n*cubeOut)
	}
	m.argmax = m.argmax[:n*cubeOut]
	for b := range n {
		src := m.stemAct[b*cubeIn : (b+1)*cubeIn]
		for y := range out[0] {
			for x := range out[1] {
				for z := range out[2] {
					o := b*cubeOut + ((y*out[1]+x)*out[2]+z)*ch
					for c := range ch {
						best, at := float32(math.Inf(-1)), 0
						for a := range k[0] {
							for e := range k[1] {
								for f := range k[2] {
									i := (((y*s[0]+a)*w+x*s[1]+e)*d+z*s[2]+f)*ch + c
									if src[i] > best {
										best, at = src[i], i
									}
								}
							}
						}
						m.pooled[o+c] = best
						m.argmax[o+c] = int32(b*cubeIn + at)
					}
				}
			}
		}
	}
}

// head runs the global average pool, the dense layer and the softmax on
// the last block's output h.
func (m *Model) head(h []float32, n int) []float32 {
	last := m.net.Blocks[len(m.net.Blocks)-1].Last().Out
	p, nf := resnet.Positions(last), last[3]
	m.feat = make([]float32, n*nf)
	m.probs = make([]float32, n*resnet.Classes)
	for b := range n {
		f := m.feat[b*nf : (b+1)*nf]
		acc := make([]float64, nf)
		for q := range p {
			for c, v := range h[(b*p+q)*nf : (b*p+q+1)*nf] {
				acc[c] += float64(v)
			}
		}
		for c := range f {
			f[c] = float32(acc[c] / float64(p))
		}
		var logits [resnet.Classes]float64
		for k := range logits {
			s := float64(m.bias[k])
			for c, v := range f {
				s += float64(v) * float64(m.dense[c*resnet.Classes+k])
			}
			logits[k] = s
		}
		mx := math.Max(logits[0], logits[1])
		e0, e1 := math.Exp(logits[0]-mx), math.Exp(logits[1]-mx)
		m.probs[2*b] = float32(e0 / (e0 + e1))
		m.probs[2*b+1] = float32(e1 / (e0 + e1))
	}
	return m.probs
}
