package resnet

import (
	"fmt"
	"slices"
	"strings"
)

// Tensor is a weight array in Keras's layout, row-major.
type Tensor struct {
	Shape []int
	Data  []float32
}

// Weights are the variables of a model by layer name and variable name
// ("conv1" → "kernel"), as a weight file holds them.
type Weights map[string]map[string]Tensor

// Set stores a variable.
func (w Weights) Set(layer, name string, t Tensor) {
	if w[layer] == nil {
		w[layer] = map[string]Tensor{}
	}
	w[layer][name] = t
}

func shapeText(s []int) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, "x")
}

// DetectDepth returns the network depth whose layers the weights hold:
// the bottleneck layers say 50 or more, and the last block of unit 4
// (resunit4_blockN) says which. 0 when the names fit no depth.
func (w Weights) DetectDepth() int {
	for _, d := range Depths {
		a := Arch{Depth: d, Input: DefaultInput}
		ok := true
		for _, l := range a.Weighted() {
			if _, has := w[l.Name]; !has {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		// Every layer of depth d is there: no layer of a deeper network
		// may be (a 34-layer file holds all of 18's layers).
		extra := false
		names := map[string]bool{}
		for _, l := range a.Weighted() {
			names[l.Name] = true
		}
		for name := range w {
			if !names[name] {
				extra = true
				break
			}
		}
		if !extra {
			return d
		}
	}
	return 0
}

// Check holds the weights against arch: every weighted layer must be
// there with every variable of its shape, and no layer of another
// network may be. The error names the first layer that does not fit and
// what it says about the file (its depth, channels or cube size).
func (w Weights) Check(arch Arch) error {
	layers := arch.Weighted()
	want := map[string]bool{}
	for _, l := range layers {
		want[l.Name] = true
	}
	depthNote := func() string {
		if d := w.DetectDepth(); d != 0 && d != arch.Depth {
			return fmt.Sprintf(": it holds a %d-layer network, not %d (set the network depth to %d)", d, arch.Depth, d)
		}
		return ""
	}
	for _, l := range layers {
		vars, ok := w[l.Name]
		if !ok {
			return fmt.Errorf("layer %s of the %d-layer network is missing%s", l.Name, arch.Depth, depthNote())
		}
		for _, v := range l.Weights {
			t, ok := vars[v.Name]
			if !ok {
				return fmt.Errorf("layer %s has no %s", l.Name, v.Name)
			}
			if n := product(t.Shape); n != len(t.Data) {
				return fmt.Errorf("layer %s: %s has shape %s but %d values", l.Name, v.Name, shapeText(t.Shape), len(t.Data))
			}
			if !slices.Equal(t.Shape, v.Shape) {
				note := depthNote()
				if note == "" {
					note = mismatchNote(arch, l, v, t.Shape)
				}
				return fmt.Errorf("layer %s: %s is %s, the network needs %s%s", l.Name, v.Name, shapeText(t.Shape), shapeText(v.Shape), note)
			}
		}
	}
	var extra []string
	for name := range w {
		if !want[name] {
			extra = append(extra, name)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		return fmt.Errorf("layer %s is not in the %d-layer network%s", extra[0], arch.Depth, depthNote())
	}
	return nil
}

// mismatchNote explains a weight of the wrong shape in the user's terms.
func mismatchNote(arch Arch, l Layer, v Weight, got []int) string {
	switch {
	case l.Name == "conv1" && v.Name == "kernel" && len(got) == 5 && got[3] != arch.Input[3]:
		return fmt.Sprintf(" (the model was trained on %d input channel(s); the data gives %d: signal%s)",
			got[3], arch.Input[3], map[bool]string{true: " and background", false: " only"}[arch.Input[3] == 2])
	case l.Class == ClassBN && len(got) == 1:
		return fmt.Sprintf(" (batch normalisation holds one value per z plane of its input: the model was trained on cubes of another depth than %d; set the cube size it was trained with)", arch.Input[2])
	case l.Class == ClassDense && v.Name == "kernel" && len(got) == 2 && got[0] != v.Shape[0]:
		return " (a network of another depth)"
	}
	return ""
}

func product(s []int) int {
	n := 1
	for _, v := range s {
		n *= v
	}
	return n
}
