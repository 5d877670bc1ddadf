package d2d

import (
	"fmt"
	"math"

	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/pipeline"
)

func init() { pipeline.Register(Spec) }

// Spec is `voxlab d2d COST OUT`: the challenge's
// distribution-to-distribution analysis of one submission, from its
// cost matrices against the ground truth (voxlab distance's output), the
// ground truth's metadata and the submitted populations. It does not
// split: a run is seconds to minutes on one core per replicate.
var Spec = &pipeline.Spec{
	Name:    "d2d",
	Title:   "Distribution to distribution",
	Order:   35,
	Summary: "how well a submission's populations match the ground truth's: EMD and KL over a map-to-map cost (the cryo-EM challenge's distribution-to-distribution)",
	Usage: "COST OUT --metadata GT.csv --populations POP [--metrics l2,corr] [--replicates 30] [--pool 5] [--fraction 0.9]\n" +
		"       [--kl-iterations 100000] [--kl-tolerance 1e-4] [--batch-size N|auto]",
	Examples: []string{
		"voxlab d2d distances/ d2d/ --metadata gt/metadata.csv --populations submission/populations.txt",
		"voxlab d2d distances/l2.npy d2d-l2/ --metadata metadata.csv --populations populations.txt --replicates 3 --pool 2",
	},
	ArgsHelp: "COST OUT",
	Args: []pipeline.Param{
		{Name: "cost", Kind: pipeline.Input, Label: "Cost matrices",
			Help: "a cost matrix NPY (ground-truth maps × submitted maps), or voxlab distance's output folder (each metric's <metric>.npy)"},
		{Name: "out", Kind: pipeline.Output, Folder: true, Label: "Output folder", Default: "d2d",
			Help: "per metric <metric>_*.npy (replicates first) and <metric>_transport.png, and summary.json"},
	},
	Params: []pipeline.Param{
		{Name: "metadata", Kind: pipeline.Input, Label: "Ground-truth metadata",
			Help: "the ground truth's metadata CSV: columns populations and pc1, a row per ground-truth map in the cost matrix's row order"},
		{Name: "populations", Kind: pipeline.Input, Label: "Submitted populations",
			Help: "the submission's populations, one per submitted map, summing to 1: numbers in a text file, or an NPY"},
		{Name: "metrics", Kind: pipeline.Text,
			Help: "comma-separated metrics of a distance output folder to analyse (default: every <metric>.npy in it)"},
		{Name: "replicates", Kind: pipeline.Int, Default: 30, Help: "replicates (n_replicates); replicate r draws its maps with seed r",
			Check: atLeast(1)},
		{Name: "pool", Kind: pipeline.Int, Default: 5, Label: "Maps per window", Help: "ground-truth maps pooled per window along pc1 (n_pool_microstate)",
			Check: atLeast(1)},
		{Name: "fraction", Kind: pipeline.Float, Default: 0.9, Label: "Replicate fraction",
			Help: "share of the ground-truth maps each replicate draws (replicate_fraction)",
			Check: func(v any) error {
				if f := v.(float64); !(f > 0 && f <= 1) {
					return fmt.Errorf("%g: want a fraction in (0, 1]", f)
				}
				return nil
			}},
		{Name: "kl-iterations", Kind: pipeline.Int, Default: 100000, Advanced: true, Label: "KL iterations",
			Help: "most iterations of the KL fit of q (optimal_q_kl.n_iter)", Check: atLeast(1)},
		{Name: "kl-tolerance", Kind: pipeline.Float, Default: 1e-4, Advanced: true, Label: "KL tolerance",
			Help: "the KL fit stops when every gradient entry is this close to 1 or 0 (optimal_q_kl.break_atol)",
			Check: func(v any) error {
				if f := v.(float64); !(f >= 0) || math.IsInf(f, 0) {
					return fmt.Errorf("%g: want a tolerance ≥ 0", f)
				}
				return nil
			}},
	},
	Batch:   pipeline.Batch{Flag: "batch-size", Unit: "replicates", Label: "Replicates at once"},
	Live:    pipeline.Live{Kind: pipeline.LiveMatrices, Title: "Transport"},
	Files:   files,
	Open:    open,
	Example: example,
}

func atLeast(n int) func(any) error {
	return func(v any) error {
		if v.(int) < n {
			return fmt.Errorf("%d: want at least %d", v.(int), n)
		}
		return nil
	}
}

// files is what a run reads (the cost matrices, the metadata, the
// populations) and writes: OUT, a folder replaced as a whole.
func files(r pipeline.Request) iocheck.Paths {
	return iocheck.Paths{
		Inputs: []iocheck.Input{
			{Name: "cost matrices", Path: r.Arg(0)},
			{Name: "ground-truth metadata (--metadata)", Path: r.Values.String("metadata")},
			{Name: "submitted populations (--populations)", Path: r.Values.String("populations")},
		},
		Outputs: []iocheck.Output{{Name: "output folder", Path: r.Arg(1), Kind: iocheck.Folder}},
	}
}
