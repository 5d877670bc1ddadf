package resnet

import (
	"testing"
)

// TestShapes: the default cube through each depth gives the shapes
// worked out by hand from resnet.py (conv1 25x25x12, pool 12x12x6, then
// 6x6x3, 3x3x2, 2x2x1), and the layer and weight counts of each depth.
func TestShapes(t *testing.T) {
	for _, c := range []struct {
		depth, convs, bns, features int
	}{
		// convs: conv1 + 2 per basic block (3 per bottleneck block) + 4 shortcuts.
		{18, 1 + 2*8 + 4, 1 + 2*8 + 4, 512},
		{34, 1 + 2*16 + 4, 1 + 2*16 + 4, 512},
		{50, 1 + 3*16 + 4, 1 + 3*16 + 4, 2048},
		{101, 1 + 3*33 + 4, 1 + 3*33 + 4, 2048},
		{152, 1 + 3*48 + 4, 1 + 3*48 + 4, 2048},
	} {
		a := Arch{Depth: c.depth, Input: DefaultInput}
		if err := a.Validate(); err != nil {
			t.Fatal(err)
		}
		convs, bns := 0, 0
		byName := map[string]Layer{}
		for _, l := range a.Layers() {
			byName[l.Name] = l
			switch l.Class {
			case ClassConv:
				convs++
			case ClassBN:
				bns++
			}
		}
		if convs != c.convs || bns != c.bns {
			t.Errorf("depth %d: %d convolutions, %d batch norms; want %d, %d", c.depth, convs, bns, c.convs, c.bns)
		}
		for name, want := range map[string][4]int{
			"conv1": {25, 25, 12, 64}, "max_pool": {12, 12, 6, 64},
			"resunit3_block0_add": {6, 6, 3, 0}, "resunit4_block0_add": {3, 3, 2, 0},
			"resunit5_block0_add": {2, 2, 1, 0}, "fully_connected": {1, 1, 1, 2},
		} {
			got := byName[name].Out
			if want[3] == 0 {
				got[3] = 0
			}
			if got != want {
				t.Errorf("depth %d: %s output %v, want %v", c.depth, name, got, want)
			}
		}
		if got := byName["fully_connected"].In[3]; got != c.features {
			t.Errorf("depth %d: %d features before the dense layer, want %d", c.depth, got, c.features)
		}
		if got := byName["conv1_bn"].Weights[0].Shape; len(got) != 1 || got[0] != 12 {
			t.Errorf("conv1_bn gamma shape %v, want [12] (one per z plane)", got)
		}
	}
}

func TestKeras3Paths(t *testing.T) {
	for class, want := range map[string]string{
		"Conv3D": "conv3d", "BatchNormalization": "batch_normalization", "ZeroPadding3D": "zero_padding3d",
		"MaxPooling3D": "max_pooling3d", "GlobalAveragePooling3D": "global_average_pooling3d",
		"InputLayer": "input_layer", "Dense": "dense", "Add": "add", "Activation": "activation",
	} {
		if got := SnakeCase(class); got != want {
			t.Errorf("SnakeCase(%s) = %s, want %s", class, got, want)
		}
	}
	a := Arch{Depth: 18, Input: DefaultInput}
	p := Keras3Paths(a.Layers())
	for name, want := range map[string]string{
		"conv1": "layers/conv3d", "conv1_bn": "layers/batch_normalization",
		"resunit2_block0_conv_a": "layers/conv3d_1", "resunit2_block0_conv_b": "layers/conv3d_2",
		"resunit2_block0_shortcut_conv": "layers/conv3d_3", "resunit2_block1_conv_a": "layers/conv3d_4",
		"fully_connected": "layers/dense", "max_pool": "layers/max_pooling3d",
	} {
		if p[name] != want {
			t.Errorf("%s at %s, want %s", name, p[name], want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, a := range []Arch{{Depth: 19, Input: DefaultInput}, {Depth: 18, Input: [4]int{50, 50, 20, 3}}, {Depth: 50, Input: [4]int{2, 2, 1, 2}}} {
		if err := a.Validate(); err == nil {
			t.Errorf("%+v validated", a)
		}
	}
}
