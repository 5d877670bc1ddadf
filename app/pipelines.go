package main

import (
	"github.com/voxlab/voxlab/processing/pipeline"

	// The pipelines voxlab offers: each registers its spec.
	_ "github.com/voxlab/voxlab/processing/detect"
	_ "github.com/voxlab/voxlab/processing/dezing"
	_ "github.com/voxlab/voxlab/processing/distance"
)

// The registered pipelines become commands (and panel forms) when the
// binary starts.
func init() {
	for _, s := range pipeline.All() {
		registerSpec(s)
	}
}
