package classify

import (
	"fmt"
	"math"

	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// An independent reference of the network, written from resnet.py's
// description in float64 with direct (nested-loop) convolutions, reading
// the raw Keras weights (no folding): what Keras computes, to hold the
// im2col + sgemm engine against.

// tensor is a channels-last activation of one cube.
type tensor struct {
	s [4]int // height, width, depth, channels
	v []float64
}

func (t tensor) at(y, x, z, c int) float64 {
	return t.v[((y*t.s[1]+x)*t.s[2]+z)*t.s[3]+c]
}

func newTensor(s [4]int) tensor { return tensor{s, make([]float64, s[0]*s[1]*s[2]*s[3])} }

// naivePad is ZeroPadding3D(p).
func naivePad(t tensor, p int) tensor {
	o := newTensor([4]int{t.s[0] + 2*p, t.s[1] + 2*p, t.s[2] + 2*p, t.s[3]})
	for y := range t.s[0] {
		for x := range t.s[1] {
			for z := range t.s[2] {
				for c := range t.s[3] {
					o.v[(((y+p)*o.s[1]+x+p)*o.s[2]+z+p)*o.s[3]+c] = t.at(y, x, z, c)
				}
			}
		}
	}
	return o
}

// naiveConv is Conv3D with 'valid' padding, no bias, kernel (kH, kW, kD,
// in, out), stride s: a cross-correlation.
func naiveConv(t tensor, k resnet.Tensor, s int) tensor {
	kh, kw, kd, cin, cout := k.Shape[0], k.Shape[1], k.Shape[2], k.Shape[3], k.Shape[4]
	if cin != t.s[3] {
		panic(fmt.Sprintf("kernel of %d input channels on %d", cin, t.s[3]))
	}
	o := newTensor([4]int{(t.s[0]-kh)/s + 1, (t.s[1]-kw)/s + 1, (t.s[2]-kd)/s + 1, cout})
	for y := range o.s[0] {
		for x := range o.s[1] {
			for z := range o.s[2] {
				for f := range cout {
					sum := 0.0
					for a := range kh {
						for b := range kw {
							for c := range kd {
								for i := range cin {
									w := k.Data[(((a*kw+b)*kd+c)*cin+i)*cout+f]
									sum += t.at(y*s+a, x*s+b, z*s+c, i) * float64(w)
								}
							}
						}
					}
					o.v[((y*o.s[1]+x)*o.s[2]+z)*cout+f] = sum
				}
			}
		}
	}
	return o
}

// naiveBN is BatchNormalization(axis=3, epsilon=1e-5) at inference: on a
// channels-last 5-D tensor axis 3 is the depth, so index z takes
// parameter z.
func naiveBN(t tensor, v map[string]resnet.Tensor) tensor {
	o := newTensor(t.s)
	g, b, m, s2 := v["gamma"].Data, v["beta"].Data, v["moving_mean"].Data, v["moving_variance"].Data
	if len(g) != t.s[2] {
		panic("batch normalisation of the wrong depth")
	}
	for i, x := range t.v {
		z := (i / t.s[3]) % t.s[2]
		o.v[i] = (x-float64(m[z]))/math.Sqrt(float64(s2[z])+1e-5)*float64(g[z]) + float64(b[z])
	}
	return o
}

func naiveRelu(t tensor) tensor {
	o := newTensor(t.s)
	for i, x := range t.v {
		o.v[i] = math.Max(x, 0)
	}
	return o
}

func naiveAdd(a, b tensor) tensor {
	o := newTensor(a.s)
	for i := range a.v {
		o.v[i] = a.v[i] + b.v[i]
	}
	return o
}

// naiveMaxPool is MaxPooling3D(pool, strides=2, padding='valid').
func naiveMaxPool(t tensor, k [3]int) tensor {
	o := newTensor([4]int{(t.s[0]-k[0])/2 + 1, (t.s[1]-k[1])/2 + 1, (t.s[2]-k[2])/2 + 1, t.s[3]})
	for y := range o.s[0] {
		for x := range o.s[1] {
			for z := range o.s[2] {
				for c := range o.s[3] {
					m := math.Inf(-1)
					for a := range k[0] {
						for b := range k[1] {
							for e := range k[2] {
								m = math.Max(m, t.at(2*y+a, 2*x+b, 2*z+e, c))
							}
						}
					}
					o.v[((y*o.s[1]+x)*o.s[2]+z)*o.s[3]+c] = m
				}
			}
		}
	}
	return o
}

// naiveHead is the global average pool, the dense layer and softmax:
// the probability of each class.
func naiveHead(t tensor, kernel, bias resnet.Tensor) []float64 {
	nf := t.s[3]
	p := t.s[0] * t.s[1] * t.s[2]
	feat := make([]float64, nf)
	for i, x := range t.v {
		feat[i%nf] += x / float64(p)
	}
	logits := make([]float64, resnet.Classes)
	for k := range logits {
		logits[k] = float64(bias.Data[k])
		for c, f := range feat {
			logits[k] += f * float64(kernel.Data[c*resnet.Classes+k])
		}
	}
	m := math.Max(logits[0], logits[1])
	e0, e1 := math.Exp(logits[0]-m), math.Exp(logits[1]-m)
	return []float64{e0 / (e0 + e1), e1 / (e0 + e1)}
}

// naiveForward runs the network of depth on one cube (channels-last,
// shape in) as resnet.py builds it.
func naiveForward(depth int, in [4]int, cube []float32, w resnet.Weights) []float64 {
	t := newTensor(in)
	for i, v := range cube {
		t.v[i] = float64(v)
	}
	t = naivePad(t, 3)
	t = naiveConv(t, w["conv1"]["kernel"], 2)
	t = naiveRelu(naiveBN(t, w["conv1_bn"]))
	t = naiveMaxPool(t, [3]int{3, 3, 2})
	blocks := map[int][]int{18: {2, 2, 2, 2}, 34: {3, 4, 6, 3}, 50: {3, 4, 6, 3}, 101: {3, 4, 23, 3}, 152: {3, 6, 36, 3}}[depth]
	bottleneck := depth >= 50
	for unit, n := range blocks {
		for block := range n {
			stride := 1
			if unit > 0 && block == 0 {
				stride = 2
			}
			p := fmt.Sprintf("resunit%d_block%d_", unit+2, block)
			var y tensor
			if bottleneck {
				y = naiveConv(t, w[p+"conv_a"]["kernel"], stride)
			} else {
				y = naiveConv(naivePad(t, 1), w[p+"conv_a"]["kernel"], stride)
			}
			y = naiveRelu(naiveBN(y, w[p+"bn_a"]))
			y = naiveBN(naiveConv(naivePad(y, 1), w[p+"conv_b"]["kernel"], 1), w[p+"bn_b"])
			if bottleneck {
				y = naiveRelu(y)
				y = naiveBN(naiveConv(y, w[p+"conv_c"]["kernel"], 1), w[p+"bn_c"])
			}
			short := t
			if block == 0 {
				short = naiveBN(naiveConv(t, w[p+"shortcut_conv"]["kernel"], stride), w[p+"shortcut_bn"])
			}
			t = naiveRelu(naiveAdd(y, short))
		}
	}
	return naiveHead(t, w["fully_connected"]["kernel"], w["fully_connected"]["bias"])
}
