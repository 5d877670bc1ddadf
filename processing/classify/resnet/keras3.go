package resnet

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	snakeA = regexp.MustCompile(`(.)([A-Z][a-z]+)`)
	snakeB = regexp.MustCompile(`([a-z])([A-Z])`)
)

// SnakeCase converts a Keras class name as Keras 3's naming.to_snake_case
// does: "Conv3D" → "conv3d", "BatchNormalization" → "batch_normalization".
func SnakeCase(class string) string {
	s := snakeA.ReplaceAllString(class, "${1}_${2}")
	return strings.ToLower(snakeB.ReplaceAllString(s, "${1}_${2}"))
}

// Keras3Paths maps each layer name of layers (in model order) to the
// group Keras 3's weight files (model.weights.h5 in a .keras archive, or
// a .weights.h5) keep its variables under: "layers/" and the layer's
// class in snake case, numbered from the second of that class in model
// order ("layers/conv3d", "layers/conv3d_1", ...), as saving_lib's
// _save_container_state names the model's layers. The variables
// themselves are datasets vars/0, vars/1, ... in the layer's order.
func Keras3Paths(layers []Layer) map[string]string {
	used := map[string]int{}
	out := make(map[string]string, len(layers))
	for _, l := range layers {
		name := SnakeCase(l.Class)
		if n, ok := used[name]; ok {
			used[name] = n + 1
			name = fmt.Sprintf("%s_%d", name, n+1)
		} else {
			used[name] = 0
		}
		out[l.Name] = "layers/" + name
	}
	return out
}
