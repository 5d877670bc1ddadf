package convert

import (
	"strings"

	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
)

// files is what a run reads and writes, for the check that no output is
// an input (iocheck): OUT's file (without its :/dataset), or the folder
// of a Zarr store or of TIFF planes, checked as a folder whose contents
// the run owns: no input may lie inside it.
func files(r pipeline.Request) iocheck.Paths {
	p := iocheck.Paths{Inputs: []iocheck.Input{{Name: "input", Path: r.Arg(0)}}}
	out := r.Arg(1)
	if out == "" {
		return p
	}
	path, _ := volume.SplitSpec(out)
	kind := iocheck.File
	if f := volume.FormatFor(path); f != nil && f.Folders || strings.HasSuffix(path, "/") || f != nil && f.Name == "tiff-dir" {
		kind = iocheck.Folder
	}
	p.Outputs = []iocheck.Output{{Name: "output", Path: strings.TrimRight(path, "/"), Kind: kind}}
	return p
}
