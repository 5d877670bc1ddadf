package distance

import "github.com/voxlab/voxlab/processing/iocheck"

// Paths are what a distance run reads and writes, for iocheck.Check: the
// ground-truth and submitted maps and the mask when given; OUT_DIR, a
// folder replaced as a whole (a rerun leaves no file of the previous
// one), so that no input may lie inside it.
func Paths(gt, sub, outDir, mask string) iocheck.Paths {
	return iocheck.Paths{
		Inputs: []iocheck.Input{
			{Name: "ground truth", Path: gt},
			{Name: "submitted maps", Path: sub},
			{Name: "mask (--mask)", Path: mask},
		},
		Outputs: []iocheck.Output{{Name: "output folder", Path: outDir, Kind: iocheck.Folder}},
	}
}
