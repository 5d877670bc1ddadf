package main

import (
	"github.com/voxlab/voxlab/processing/pipeline"

	// The pipelines voxlab offers: each registers its spec.
	_ "github.com/voxlab/voxlab/processing/classify"
	_ "github.com/voxlab/voxlab/processing/classify/train"
	_ "github.com/voxlab/voxlab/processing/convert"
	_ "github.com/voxlab/voxlab/processing/d2d"
	_ "github.com/voxlab/voxlab/processing/detect"
	_ "github.com/voxlab/voxlab/processing/dezing"
	_ "github.com/voxlab/voxlab/processing/distance"
	_ "github.com/voxlab/voxlab/processing/reconstruct"
	_ "github.com/voxlab/voxlab/processing/svd"

	// What the pipelines read and write through registries, which the
	// binary links and their packages do not (docs/ARCHITECTURE.md):
	// HDF5 and NeXus, Zarr, and the drawing of heat maps.
	_ "github.com/voxlab/voxlab/processing/matrix/heatplot"
	_ "github.com/voxlab/voxlab/processing/volume/h5"
	_ "github.com/voxlab/voxlab/processing/volume/zarr"
)

// The registered pipelines become commands (and panel forms) when the
// binary starts. Adding a pipeline is its package, which registers its
// spec, and its import line above: nothing else in app/ or panel/.
func init() {
	for _, s := range pipeline.All() {
		addPipeline(s)
	}
}
