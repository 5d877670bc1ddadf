package keras

import (
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/volume"
)

// ReadKeras3Layers reads a Keras 3 weight file's layers named by layers
// (a .keras config's order): for the tests of fragments.
func ReadKeras3Layers(path string, layers []resnet.Layer) (*Model, error) {
	t, err := volume.OpenTree(path)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	m := &Model{Path: path, Weights: resnet.Weights{}}
	return m, readKeras3(t, "layers", 0, layers, m)
}
