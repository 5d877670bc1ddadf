package svd

import (
	"github.com/voxlab/voxlab/processing/internal/hostblas"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
)

// Plan plans a run: one phase of slabs of planes (every map's planes z0
// … z1 at a time), the largest slab that fits twice (one is read while
// the products run on the other) beside what stays resident — the
// largest set's Gram matrix with its centred copy and the
// eigendecomposition's (4 n² values), every set's eigenvectors (d ×
// rank each) until the distance matrix is made, OpenBLAS's buffers for
// the products' threads; with a B-factor or downsampling, the
// preprocessed maps of the largest set too.
func (a *analysis) Plan(d pipeline.Device) (*plan.Plan, error) {
	const f64 = 8
	m := a.subs[0].Stack.Map
	plane, units := int64(a.plane()), m.Shape[0]
	if a.pre.BoxDS > 0 {
		units = a.pre.BoxDS
	}
	n, vs := 0, int64(0)
	for _, s := range a.all() {
		n = max(n, s.Stack.N)
		vs += plane * int64(units) * int64(a.rank) * f64
	}
	arrays := []plan.Array{
		{Name: "Gram matrix, centred copy and eigenvectors (largest set)", Where: plan.Host, Fixed: 4 * int64(n) * int64(n) * f64},
		{Name: "eigenvectors of every set", Where: plan.Host, Fixed: vs},
		// Two slabs: the next is read while the products run on this one.
		{Name: "two slabs of every map as float64", Where: plan.Host, PerUnit: 2 * int64(n) * plane * f64},
		{Name: "a map's slab as read", Where: plan.Host, PerUnit: plane * int64(m.DType.Size())},
	}
	if w := hostblas.Workspace(workers(d)); w > 0 {
		arrays = append(arrays, plan.Array{Name: "BLAS buffers for its threads", Where: plan.Host, Fixed: w})
	}
	if a.mask != nil || a.maskArg != "" {
		arrays = append(arrays, plan.Array{Name: "mask", Where: plan.Host, Fixed: int64(m.Len()) * f64})
	}
	if a.pre.Active() {
		// Whole maps: one as read and its complex spectra (the FFT's
		// cube, a shifted copy, the cropped one), and the largest set's
		// preprocessed maps, which the slabs are then read from.
		arrays = append(arrays,
			plan.Array{Name: "map being preprocessed and its spectra", Where: plan.Host, Fixed: int64(m.Len()) * (2*f64 + 2*16)},
			plan.Array{Name: "preprocessed maps (largest set)", Where: plan.Host, Fixed: int64(n) * plane * int64(units) * f64})
	}
	ph := plan.Phase{Name: "slabs", Units: units, Unit: "planes", Block: a.planes, MinBlock: 1, Arrays: arrays}
	return plan.Make("svd", []plan.Phase{ph}, d.Budget)
}
