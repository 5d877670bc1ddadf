package convert

import (
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// maxSlabBytes caps the slab the planner picks by itself: larger slabs
// read no faster, and progress and cancellation come sooner.
const maxSlabBytes = 512 << 20

// readPlaneBytes is what one plane of the input takes in the read slab:
// the crop's rows and columns when the reader reads them alone, else
// whole planes, cropped in place.
func (j *conversion) readPlaneBytes() int64 {
	if j.boxRead || j.fullPlanes() {
		return int64(j.out.Shape[1]) * int64(j.out.Shape[2]) * int64(j.in.DType.Size())
	}
	return j.in.PlaneBytes()
}

// fullPlanes: the crop keeps whole planes.
func (j *conversion) fullPlanes() bool {
	return j.out.Shape[1] == j.in.Shape[1] && j.out.Shape[2] == j.in.Shape[2]
}

// cast: the output's type differs from the input's.
func (j *conversion) cast() bool { return j.out.DType != j.in.DType }

// phase is the memory a run holds: two read slabs (one read while the
// other is written), the cast slab, each level's sums and layer of
// chunks, the writer's buffers and the reader's cache.
func (j *conversion) phase() plan.Phase {
	a := j.aligns()
	ph := plan.Phase{Name: "convert", Units: j.out.Shape[0], Unit: "planes", Block: j.block, MinBlock: min(a[0], j.out.Shape[0])}
	rp := j.readPlaneBytes()
	ph.MaxBlock = max(ph.MinBlock, int(maxSlabBytes/max(rp, 1)))
	ph.Arrays = []plan.Array{{Name: "read slabs (2)", Where: plan.Host, PerUnit: 2 * rp}}
	if j.cast() {
		ph.Arrays = append(ph.Arrays, plan.Array{Name: "cast slab", Where: plan.Host, PerUnit: j.out.PlaneBytes()})
	}
	for l := 1; l < len(j.opts.Levels); l++ {
		li := j.opts.Levels[l]
		ph.Arrays = append(ph.Arrays, plan.Array{Name: "pyramid level sums and chunk layers", Where: plan.Host,
			Fixed: reducerBytes(li, j.mean) + int64(a[l])*li.PlaneBytes()})
	}
	if j.exp.Bytes != nil {
		ph.Arrays = append(ph.Arrays, plan.Array{Name: "writer buffers", Where: plan.Host, Fixed: j.exp.Bytes(j.out, j.opts)})
	}
	if c := volume.CacheBytes(j.in.Source()); c > 0 {
		ph.Arrays = append(ph.Arrays, plan.Array{Name: "reader cache", Where: plan.Host, Fixed: c})
	}
	return ph
}

// Plan plans the run: the largest slab of whole chunk layers that fits.
func (j *conversion) Plan(d pipeline.Device) (*plan.Plan, error) {
	ph := j.phase()
	p, err := plan.Make("convert", []plan.Phase{ph}, d.Budget)
	if err != nil || ph.Block > 0 {
		return p, err
	}
	a := ph.MinBlock
	if b := p.Block(); b%a != 0 && b < ph.Units {
		ph.Block = b / a * a
		return plan.Make("convert", []plan.Phase{ph}, d.Budget)
	}
	return p, nil
}
