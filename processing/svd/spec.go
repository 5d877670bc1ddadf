package svd

import (
	"fmt"
	"path/filepath"

	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/pipeline"
)

func init() { pipeline.Register(Spec) }

// Spec is `voxlab svd SUBMISSIONS OUT [--gt GT]`: the challenge's SVD
// analysis of a folder of submissions (each a stack of maps) and,
// optionally, the ground truth. It does not split: the Gram matrices
// want every map of a set, and the sets are read twice, slab by slab.
var Spec = &pipeline.Spec{
	Name:    "svd",
	Title:   "SVD of map sets",
	Order:   36,
	Summary: "the subspace each submission's maps span and how much of each other's and the ground truth's variance they capture (the cryo-EM challenge's SVD)",
	Usage: "SUBMISSIONS OUT [--gt GT] [--rank 5] [--mask M.mrc] [--bfactor B] [--box-size-ds N] [--voxel-size Å]\n" +
		"       [--chunk-size PLANES|auto] [--host-memory SIZE]",
	Examples: []string{
		"voxlab svd submissions/ svd/ --gt gt/maps.npy --rank 5 --mask mask.mrc",
		"voxlab svd submissions/ svd/ --gt gt.npy --mask mask.mrc --bfactor 170 --box-size-ds 32 --voxel-size 2.146",
		"voxlab plan svd submissions/ svd/ --gt gt_flat.npy --host-memory 8GiB",
	},
	ArgsHelp: "SUBMISSIONS OUT",
	Args: []pipeline.Param{
		{Name: "subs", Kind: pipeline.Input, Label: "Submissions",
			Help: "a folder whose every NPY or MRCS stack (or folder of MRC files) is one submission's maps, or one such stack; a folder of MRC files alone is one submission, a map a file"},
		{Name: "out", Kind: pipeline.Output, Folder: true, Label: "Output folder", Default: "svd",
			Help: "svd_distance.npy and .png with labels.json, and per input a folder (its file's stem; gt) with singular_values.npy, eigenvectors.npy, u.npy"},
	},
	Params: []pipeline.Param{
		{Name: "gt", Kind: pipeline.Input, Optional: true, Label: "Ground-truth maps",
			Help: "the ground truth's maps, in the same forms (read slab by slab: any number of maps in the memory of their Gram matrix)"},
		{Name: "rank", Kind: pipeline.Int, Default: 5, Help: "singular vectors kept per set (svd_max_rank)",
			Check: func(v any) error {
				if v.(int) < 1 {
					return fmt.Errorf("%d: want at least 1", v.(int))
				}
				return nil
			}},
		{Name: "mask", Kind: pipeline.Input, Optional: true, Help: "a map of the same box the maps are multiplied by before the SVD"},
		{Name: "bfactor", Kind: pipeline.Float, Label: "B-factor", Unit: "Å²",
			Help: "normalise each map's spectrum by exp(−B·s²/4), as the challenge's bfactor_normalize_volumes (0: none; needs the voxel size)"},
		{Name: "box-size-ds", Kind: pipeline.Int, Label: "Downsampled box", Unit: "voxels",
			Help: "downsample each map in Fourier space to this box, as the challenge's downsample_volume (0: none)",
			Check: func(v any) error {
				if v.(int) < 0 {
					return fmt.Errorf("%d: want a box ≥ 0", v.(int))
				}
				return nil
			}},
		{Name: "voxel-size", Kind: pipeline.Float, Unit: "Å", Advanced: true,
			Help: "voxel size of the maps, for --bfactor (default: from the MRC headers)"},
	},
	Batch: pipeline.Batch{Flag: "chunk-size", Unit: "planes", Label: "Planes per slab"},
	Live: pipeline.Live{Kind: pipeline.LiveMatrices, Title: "SVD", Figures: func(args []string) []string {
		if len(args) < 2 {
			return nil
		}
		return []string{filepath.Join(args[1], "common_embedding.png"), filepath.Join(args[1], "gt_embedding.png")}
	}},
	Files:   files,
	Open:    open,
	Example: example,
}

func files(r pipeline.Request) iocheck.Paths {
	return iocheck.Paths{
		Inputs: []iocheck.Input{
			{Name: "submissions", Path: r.Arg(0)},
			{Name: "ground truth (--gt)", Path: r.Values.String("gt")},
			{Name: "mask (--mask)", Path: r.Values.String("mask")},
		},
		Outputs: []iocheck.Output{{Name: "output folder", Path: r.Arg(1), Kind: iocheck.Folder}},
	}
}
