package resnet

import (
	"fmt"
	"math"
)

// Conv is a convolution ready to run: its zero padding (of the
// ZeroPadding3D layer before it), kernel and stride, its weights as a
// (kernel volume x input channels) x output channels matrix — Keras's
// (kH, kW, kD, in, out) kernel read row-major — and the batch
// normalisation after it folded to a scale and shift per output plane
// (z index): out[.., z, c] = Scale[z]·conv[.., z, c] + Shift[z].
type Conv struct {
	// Name is the convolution's layer name; BN the batch normalisation's.
	Name, BN string
	Kernel   [3]int
	Stride   [3]int
	Pad      [3]int
	// In and Out are the input (before padding) and output shapes:
	// height, width, depth, channels.
	In, Out [4]int
	// W holds K x Out[3] values, K = Kernel volume x In[3].
	W            []float32
	Scale, Shift []float32
}

// K returns the length of one row of the convolution's im2col matrix.
func (c *Conv) K() int { return c.Kernel[0] * c.Kernel[1] * c.Kernel[2] * c.In[3] }

// Pointwise reports whether the convolution is 1x1x1 without padding:
// its input rows (positions) are its matrix rows, subsampled by the
// stride.
func (c *Conv) Pointwise() bool {
	return c.Kernel == [3]int{1, 1, 1} && c.Pad == [3]int{}
}

// Block is a residual block: A, B (and C in a bottleneck block) on the
// residual path, Shortcut the projection of the first block of a unit
// (nil: the block adds its input).
type Block struct {
	Name              string
	A, B, C, Shortcut *Conv
}

// Last returns the block's last convolution on the residual path.
func (b *Block) Last() *Conv {
	if b.C != nil {
		return b.C
	}
	return b.B
}

// Net is a network ready to run.
type Net struct {
	Arch  Arch
	Conv1 *Conv
	// Pool is the max pool after conv1: its kernel, stride and output.
	PoolKernel, PoolStride [3]int
	PoolOut                [4]int
	Blocks                 []Block
	// Features is the width of the global average pool; Dense holds
	// Features x Classes weights, Bias Classes.
	Features    int
	Dense, Bias []float32
}

// Build checks w against arch (Weights.Check) and folds it into a Net.
func Build(arch Arch, w Weights) (*Net, error) {
	if err := arch.Validate(); err != nil {
		return nil, err
	}
	if err := w.Check(arch); err != nil {
		return nil, err
	}
	return build(arch, w), nil
}

// Shape returns arch's network without its weights (every W, Scale,
// Shift, Dense and Bias empty): the layers' sizes, strides and padding
// a memory plan reads.
func Shape(arch Arch) (*Net, error) {
	if err := arch.Validate(); err != nil {
		return nil, err
	}
	return build(arch, nil), nil
}

// build folds w (checked; nil: no weights) into arch's Net.
func build(arch Arch, w Weights) *Net {
	layers := arch.Layers()
	byName := map[string]Layer{}
	pad := map[string][3]int{} // conv name → padding before it
	var prevPad [3]int
	for _, l := range layers {
		byName[l.Name] = l
		switch l.Class {
		case ClassPadding:
			prevPad = l.Pad
		case ClassConv:
			pad[l.Name] = prevPad
			prevPad = [3]int{}
		default:
			prevPad = [3]int{}
		}
	}
	conv := func(name, bn string) *Conv {
		l := byName[name]
		in := l.In
		p := pad[name]
		for i := range 3 {
			in[i] -= 2 * p[i]
		}
		c := &Conv{Name: name, BN: bn, Kernel: l.Kernel, Stride: l.Stride, Pad: p, In: in, Out: l.Out,
			W: w[name]["kernel"].Data}
		c.Scale, c.Shift = foldBN(w[bn])
		return c
	}
	n := &Net{Arch: arch, Conv1: conv("conv1", "conv1_bn")}
	pool := byName["max_pool"]
	n.PoolKernel, n.PoolStride, n.PoolOut = pool.Kernel, pool.Stride, pool.Out
	for unit, nb := range arch.Blocks() {
		for block := range nb {
			p := fmt.Sprintf("resunit%d_block%d_", unit+2, block)
			b := Block{Name: p[:len(p)-1], A: conv(p+"conv_a", p+"bn_a"), B: conv(p+"conv_b", p+"bn_b")}
			if arch.Bottleneck() {
				b.C = conv(p+"conv_c", p+"bn_c")
			}
			if block == 0 {
				b.Shortcut = conv(p+"shortcut_conv", p+"shortcut_bn")
			}
			n.Blocks = append(n.Blocks, b)
		}
	}
	fc := byName["fully_connected"]
	n.Features = fc.In[3]
	n.Dense, n.Bias = w["fully_connected"]["kernel"].Data, w["fully_connected"]["bias"].Data
	return n
}

// foldBN turns a batch normalisation's variables into the scale and shift
// of its inference: y = (x − mean)·γ/√(var + ε) + β = x·s + t with
// s = γ/√(var + ε) and t = β − mean·s, per z index (Keras computes the
// same: inv = rsqrt(var + ε)·γ; y = x·inv + (β − mean·inv)).
func foldBN(v map[string]Tensor) (scale, shift []float32) {
	g, b := v["gamma"].Data, v["beta"].Data
	m, s2 := v["moving_mean"].Data, v["moving_variance"].Data
	scale, shift = make([]float32, len(g)), make([]float32, len(g))
	for i := range g {
		inv := float32(1/math.Sqrt(float64(s2[i])+Epsilon)) * g[i]
		scale[i] = inv
		shift[i] = b[i] - m[i]*inv
	}
	return scale, shift
}

// Convs returns every convolution of the network in model order.
func (n *Net) Convs() []*Conv {
	out := []*Conv{n.Conv1}
	for i := range n.Blocks {
		b := &n.Blocks[i]
		for _, c := range []*Conv{b.A, b.B, b.C, b.Shortcut} {
			if c != nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// WeightBytes returns the bytes of the network's float32 parameters as
// they run: convolution matrices, folded scales and shifts, the dense
// layer.
func (n *Net) WeightBytes() int64 {
	var b int64
	for _, c := range n.Convs() {
		b += int64(len(c.W) + len(c.Scale) + len(c.Shift))
	}
	b += int64(len(n.Dense) + len(n.Bias))
	return 4 * b
}

// Positions returns the number of positions (height x width x depth) of
// a shape.
func Positions(s [4]int) int { return s[0] * s[1] * s[2] }
