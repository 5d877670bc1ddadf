package detect

import (
	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/plan"
)

// Largest batch the planner picks on its own: the field tool's defaults
// are 1 plane on CUDA and 4 on the CPU; a few more planes per upload
// amortise launches and synchronisation on a GPU, and more buys nothing
// on the CPU, whose kernels are parallel within a plane.
const (
	autoBatchCPU  = 4
	autoBatchCUDA = 8
)

// stagingBuffers is the number of host staging buffers: the batch being
// uploaded and the next one being read (two batches in flight).
const stagingBuffers = 2

// Phases describes every array a detection run keeps resident, per batch
// plane and fixed, on the device and the host. backend is "cpu" or "cuda"
// (only the auto batch size depends on it).
func Phases(p *Params, cfg Config) []plan.Phase {
	h, w := p.Shape[1], p.Shape[2]
	hw := int64(h) * int64(w)
	pb := hw * int64(p.DType.Size())
	pp := p.PlaneParams()
	ty, tx := pp.BrainTiles()
	nt := int64(ty * tx)
	kz := int64(p.Ball.Z)
	k := BallKernel(p.Ball.XY, p.Ball.Z)
	staging := plan.Host
	if cfg.PinMemory {
		staging = plan.Pinned
	}
	return []plan.Phase{{
		Name: "planes", Unit: "planes", Units: p.Planes(), Block: cfg.BatchSize, MinBlock: 1,
		Arrays: []plan.Array{
			{Name: "input batches (2, raw)", Where: plan.Device, PerUnit: 2 * pb},
			{Name: "2D filter work (3 float32 planes)", Where: plan.Device, Fixed: gpu.DetectWorkLayout(&pp).Size},
			{Name: "threshold mask ring", Where: plan.Device, Fixed: (kz - 1) * hw, PerUnit: hw},
			{Name: "in-brain tile ring", Where: plan.Device, Fixed: (kz - 1) * nt, PerUnit: nt},
			{Name: "centre planes", Where: plan.Device, PerUnit: hw},
			{Name: "ball kernel", Where: plan.Device, Fixed: int64(4 * len(k.W))},
			{Name: "staging (2 batches)", Where: staging, PerUnit: stagingBuffers * pb},
			{Name: "centre planes (downloaded)", Where: plan.Host, PerUnit: hw},
			{Name: "structure labels (2 planes)", Where: plan.Host, Fixed: 2 * 4 * hw},
			{Name: "cluster splitting (at most)", Where: plan.Host, Fixed: splitBytes(p)},
		},
	}}
}

// splitBytes bounds the memory of splitting one cluster.
func splitBytes(p *Params) int64 {
	return 2*maxSplitVoxels + int64(4*p.Split.XY*p.Split.XY*p.Split.Z)
}

// MakePlan plans a run: the batch is cfg.BatchSize, or the largest that
// fits the budget up to the backend's auto cap.
func MakePlan(p *Params, cfg Config, b plan.Budget, backend string) (*plan.Plan, error) {
	phases := Phases(p, cfg)
	pl, err := plan.Make("detect", phases, b)
	if err != nil || cfg.BatchSize > 0 {
		return pl, err
	}
	limit := autoBatchCPU
	if backend == "cuda" {
		limit = autoBatchCUDA
	}
	if pl.Block() > limit {
		phases[0].Block = limit
		return plan.Make("detect", phases, b)
	}
	return pl, nil
}
