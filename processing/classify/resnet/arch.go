package resnet

import (
	"fmt"
	"slices"
)

// Depths lists the network depths cellfinder builds.
var Depths = []int{18, 34, 50, 101, 152}

// unitBlocks is the number of residual blocks in each of the four units.
var unitBlocks = map[int][4]int{
	18: {2, 2, 2, 2}, 34: {3, 4, 6, 3}, 50: {3, 4, 6, 3}, 101: {3, 4, 23, 3}, 152: {3, 6, 36, 3},
}

// Constants of cellfinder's network (resnet.py's defaults).
const (
	// StartingFeatures is the width of conv1 and of the first unit.
	StartingFeatures = 64
	// Epsilon of every batch normalisation.
	Epsilon = 1e-5
	// Classes is the number of output classes: 0 non-cell, 1 cell.
	Classes = 2
)

// Arch is one network: its depth and the shape of its input cubes.
type Arch struct {
	// Depth is 18, 34, 50, 101 or 152 layers.
	Depth int
	// Input is the cube shape: height (y), width (x), depth (z) and
	// channels (1: signal; 2: signal and background).
	Input [4]int
}

// DefaultInput is cellfinder's cube: 50 y x 50 x x 20 z, two channels.
var DefaultInput = [4]int{50, 50, 20, 2}

// Bottleneck reports whether the blocks are bottleneck blocks (50 layers
// and more).
func (a Arch) Bottleneck() bool { return a.Depth >= 50 }

// Blocks returns the number of blocks in each unit.
func (a Arch) Blocks() [4]int { return unitBlocks[a.Depth] }

// Validate checks the depth, the channels and that the cube is large
// enough for every layer to have an output.
func (a Arch) Validate() error {
	if !slices.Contains(Depths, a.Depth) {
		return fmt.Errorf("network depth %d: cellfinder's ResNet has 18, 34, 50, 101 or 152 layers", a.Depth)
	}
	if a.Input[3] != 1 && a.Input[3] != 2 {
		return fmt.Errorf("%d input channels: the network takes 1 (signal) or 2 (signal and background)", a.Input[3])
	}
	for i, n := range a.Input[:3] {
		if n < 1 {
			return fmt.Errorf("cube size %dx%dx%d: the %s size must be positive", a.Input[0], a.Input[1], a.Input[2], [3]string{"height", "width", "depth"}[i])
		}
	}
	for _, l := range a.Layers() {
		for _, s := range l.Out[:3] {
			if s < 1 {
				return fmt.Errorf("a cube of %dx%dx%d (height x width x depth) is too small for the network: layer %s would have an empty output; cellfinder's cubes are 50x50x20", a.Input[0], a.Input[1], a.Input[2], l.Name)
			}
		}
	}
	return nil
}

// Keras class names of the layers.
const (
	ClassInput     = "InputLayer"
	ClassPadding   = "ZeroPadding3D"
	ClassConv      = "Conv3D"
	ClassBN        = "BatchNormalization"
	ClassAct       = "Activation"
	ClassMaxPool   = "MaxPooling3D"
	ClassAdd       = "Add"
	ClassAvgPool   = "GlobalAveragePooling3D"
	ClassDense     = "Dense"
	InputLayerName = "input_layer"
)

// Layer is one Keras layer of the model, in the order of the model's
// layers (Keras's topological order, which for this network is the
// order resnet.py creates them in; see Layers).
type Layer struct {
	Name  string
	Class string
	// In and Out are the layer's input and output shapes (height, width,
	// depth, channels); Out of a Dense layer is (1, 1, 1, classes).
	In, Out [4]int
	// Kernel, Stride and Pad of a convolution or pool (Pad: the zero
	// padding on each side, of a ZeroPadding3D layer).
	Kernel, Stride, Pad [3]int
	// Weights the layer holds, in Keras's order.
	Weights []Weight
}

// Weight is one variable of a layer: its Keras name and shape.
type Weight struct {
	Name  string
	Shape []int
}

// Names of the variables, in the order Keras lists them.
var (
	ConvWeights  = []string{"kernel"}
	BNWeights    = []string{"gamma", "beta", "moving_mean", "moving_variance"}
	DenseWeights = []string{"kernel", "bias"}
)

// WeightNames returns the variable names of a layer class ("" none).
func WeightNames(class string) []string {
	switch class {
	case ClassConv:
		return ConvWeights
	case ClassBN:
		return BNWeights
	case ClassDense:
		return DenseWeights
	}
	return nil
}

// builder appends layers, following the shape through them.
type builder struct {
	layers []Layer
	shape  [4]int
}

func (b *builder) add(l Layer) [4]int {
	l.In = b.shape
	if l.Out == [4]int{} {
		l.Out = l.In
	}
	b.layers = append(b.layers, l)
	b.shape = l.Out
	return l.Out
}

func (b *builder) pad(name string, p int) {
	out := b.shape
	for i := range 3 {
		out[i] += 2 * p
	}
	b.add(Layer{Name: name, Class: ClassPadding, Pad: [3]int{p, p, p}, Out: out})
}

func (b *builder) conv(name string, features int, k, s [3]int) {
	out := b.shape
	for i := range 3 {
		out[i] = floorDiv(b.shape[i]-k[i], s[i]) + 1
	}
	out[3] = features
	b.add(Layer{Name: name, Class: ClassConv, Kernel: k, Stride: s, Out: out,
		Weights: []Weight{{"kernel", []int{k[0], k[1], k[2], b.shape[3], features}}}})
}

func (b *builder) bn(name string) {
	d := b.shape[2]
	ws := make([]Weight, len(BNWeights))
	for i, n := range BNWeights {
		ws[i] = Weight{n, []int{d}}
	}
	b.add(Layer{Name: name, Class: ClassBN, Weights: ws})
}

func (b *builder) act(name string) { b.add(Layer{Name: name, Class: ClassAct}) }

// Layers returns the model's layers in Keras's order. Keras 3 orders a
// functional model's layers by their depth from the output, ties broken
// by the order a depth-first walk from the output meets them
// (keras/src/ops/function.py, map_graph); the walk takes an Add's inputs
// in order, the residual path before the shortcut, so within each layer
// class the order is that in which resnet.py creates the layers, which
// is what Keras 3's weight files number layers by (Keras3Path).
func (a Arch) Layers() []Layer {
	b := &builder{shape: a.Input}
	b.add(Layer{Name: InputLayerName, Class: ClassInput})
	b.pad("conv1_padding", 3)
	b.conv("conv1", StartingFeatures, [3]int{7, 7, 3}, [3]int{2, 2, 2})
	b.bn("conv1_bn")
	b.act("conv1_activation")
	pool := b.shape
	for i, k := range [3]int{3, 3, 2} {
		pool[i] = floorDiv(b.shape[i]-k, 2) + 1
	}
	b.add(Layer{Name: "max_pool", Class: ClassMaxPool, Kernel: [3]int{3, 3, 2}, Stride: [3]int{2, 2, 2}, Out: pool})
	features := StartingFeatures
	for unit, n := range a.Blocks() {
		for block := range n {
			a.block(b, unit, block, features)
		}
		features *= 2
	}
	out := b.shape
	b.add(Layer{Name: "final_average_pool", Class: ClassAvgPool, Out: [4]int{1, 1, 1, out[3]}})
	b.add(Layer{Name: "fully_connected", Class: ClassDense, Out: [4]int{1, 1, 1, Classes},
		Weights: []Weight{{"kernel", []int{out[3], Classes}}, {"bias", []int{Classes}}}})
	return b.layers
}

// block appends residual block block of unit unit (0-based; resnet.py
// labels units from 2).
func (a Arch) block(b *builder, unit, block, features int) {
	s := 1
	if unit > 0 && block == 0 {
		s = 2
	}
	stride := [3]int{s, s, s}
	one, three := [3]int{1, 1, 1}, [3]int{3, 3, 3}
	p := fmt.Sprintf("resunit%d_block%d_", unit+2, block)
	in := b.shape
	if a.Bottleneck() {
		b.conv(p+"conv_a", features, one, stride)
	} else {
		b.pad(p+"pad_a", 1)
		b.conv(p+"conv_a", features, three, stride)
	}
	b.bn(p + "bn_a")
	b.act(p + "activation_a")
	b.pad(p+"pad_b", 1)
	b.conv(p+"conv_b", features, three, [3]int{1, 1, 1})
	b.bn(p + "bn_b")
	outFeatures := features
	if a.Bottleneck() {
		b.act(p + "activation_b")
		outFeatures = 4 * features
		b.conv(p+"conv_c", outFeatures, one, [3]int{1, 1, 1})
		b.bn(p + "bn_c")
	}
	main := b.shape
	if block == 0 {
		b.shape = in
		b.conv(p+"shortcut_conv", outFeatures, one, stride)
		b.bn(p + "shortcut_bn")
		if b.shape != main {
			// Cannot happen for valid cubes: both paths divide by the
			// stride the same way. Validate reports empty outputs.
			b.shape = main
		}
	}
	b.add(Layer{Name: p + "add", Class: ClassAdd})
	b.act(p + "activation_c")
}

// Weighted returns the layers that hold weights, in model order.
func (a Arch) Weighted() []Layer {
	var out []Layer
	for _, l := range a.Layers() {
		if len(l.Weights) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// floorDiv divides rounding down, as Keras's shape arithmetic does for a
// window larger than its input (an empty output).
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
