package d2d

import (
	"runtime"

	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
)

// Plan plans a run: one phase of replicates, as many at once (the
// block, --batch-size) as the budget and the cores allow. It holds a
// metric's cost matrix twice (as read and sorted by pc1), every
// replicate's results until OUT is written, and per replicate running
// the simplex's tableau and its ranks.
func (a *analysis) Plan(d pipeline.Device) (*plan.Plan, error) {
	k := replicateSize(a.cfg.Fraction, a.rows)
	w, n := int64(k/a.cfg.Pool), int64(a.cols)
	const f64 = 8
	results := int64(len(a.costs)*a.cfg.Replicates) * f64 * (4*w*n + w + 2*n + int64(k))
	ph := plan.Phase{
		Name: "replicates", Units: len(a.costs) * a.cfg.Replicates, Unit: "replicates",
		Block: a.batch, MinBlock: 1, MaxBlock: runtime.GOMAXPROCS(0),
		Arrays: []plan.Array{
			{Name: "cost matrix (read and sorted by pc1)", Where: plan.Host, Fixed: 2 * f64 * int64(a.rows) * n},
			{Name: "results of every replicate", Where: plan.Host, Fixed: results},
			// The simplex: flows and basis flags of W × N cells, the
			// tree's lists and potentials; ranks; the KL fit's vectors.
			{Name: "replicate workspace", Where: plan.Host, PerUnit: (f64+1)*w*n + 6*f64*(w+n) + f64*int64(a.rows) + 8*f64*n},
		},
	}
	return plan.Make("d2d", []plan.Phase{ph}, d.Budget)
}
