package distance

import (
	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/pipeline"
)

// files is what a distance run reads and writes (Spec.Files): the
// ground-truth and submitted maps and the mask when given; OUT_DIR, a
// folder replaced as a whole (a rerun leaves no file of the previous
// one), so that no input may lie inside it.
func files(r pipeline.Request) iocheck.Paths {
	return paths(r.Arg(0), r.Arg(1), r.Arg(2), r.Values.String("mask"))
}

func paths(gt, sub, outDir, mask string) iocheck.Paths {
	return iocheck.Paths{
		Inputs: []iocheck.Input{
			{Name: "ground truth", Path: gt},
			{Name: "submitted maps", Path: sub},
			{Name: "mask (--mask)", Path: mask},
		},
		Outputs: []iocheck.Output{{Name: "output folder", Path: outDir, Kind: iocheck.Folder}},
	}
}
