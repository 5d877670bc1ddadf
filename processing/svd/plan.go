package svd

import (
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
)

// Plan plans a run: one phase of slabs of planes (every map's planes z0
// … z1 at a time), the largest slab that fits beside what stays
// resident — the largest set's Gram matrix with its centred copy and
// the eigendecomposition's (4 n² values), and every set's eigenvectors
// (d × rank each) until the distance matrix is made.
func (a *analysis) Plan(d pipeline.Device) (*plan.Plan, error) {
	const f64 = 8
	m := a.subs[0].Stack.Map
	n, vs := 0, int64(0)
	for _, s := range a.all() {
		n = max(n, s.Stack.N)
		vs += int64(s.Stack.MapLen()) * int64(a.rank) * f64
	}
	plane := int64(m.Shape[1]) * int64(m.Shape[2])
	arrays := []plan.Array{
		{Name: "Gram matrix, centred copy and eigenvectors (largest set)", Where: plan.Host, Fixed: 4 * int64(n) * int64(n) * f64},
		{Name: "eigenvectors of every set", Where: plan.Host, Fixed: vs},
		{Name: "slab of every map (read and as float64)", Where: plan.Host, PerUnit: int64(n) * plane * (f64 + int64(m.DType.Size()))},
	}
	if a.mask != nil || a.maskArg != "" {
		arrays = append(arrays, plan.Array{Name: "mask", Where: plan.Host, Fixed: int64(m.Len()) * f64})
	}
	ph := plan.Phase{Name: "slabs", Units: m.Shape[0], Unit: "planes", Block: a.planes, MinBlock: 1, Arrays: arrays}
	return plan.Make("svd", []plan.Phase{ph}, d.Budget)
}
