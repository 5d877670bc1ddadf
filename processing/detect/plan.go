package detect

import (
	"fmt"
	"unsafe"

	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// Largest batch the planner picks on its own: the field tool's defaults
// are 1 plane on CUDA and 4 on the CPU; a few more planes per upload
// amortise launches and synchronisation on a GPU, and more buys nothing
// on the CPU, whose kernels are parallel within a plane.
const (
	autoBatchCPU  = 4
	autoBatchCUDA = 8
)

// stagingBuffers is the number of host staging buffers on a GPU: the
// batch being uploaded and the next one being read (two batches in
// flight). The CPU backend reads planes straight into its input buffer
// and needs none.
const stagingBuffers = 2

// centreSlots is the number of batches of centre planes in flight: the
// structures of one are built while the ball filter fills the other.
const centreSlots = 2

// candidateBytes is the size of one output candidate.
const candidateBytes = int64(unsafe.Sizeof(Candidate{}))

// Densities the plan assumes for what a run cannot know before it has
// run: the centre voxels of the structures still open (at most a
// sixteenth of a plane's voxels in each of two planes: denser centres
// mean a threshold far too low to be useful) and the candidates (50 per
// million pixels of a plane: the demo brain has 43, and whole mouse
// brains far fewer; the line grows with the planes, so a denser guess
// would soon outweigh the arrays a run is sized by).
const (
	openStructureShare     = 16
	candidatesPerMegapixel = 50
)

// Phases describes every array a detection run keeps resident at once,
// per batch plane and fixed, on the device and the host. backend is "cpu"
// or "cuda": on the CPU the planes are read straight into the input
// buffer (no staging) and the structures are built from the centre
// buffers themselves (no downloads), which are then two batches.
// reading is the memory the input's reader holds for decoding (its
// decoders and cache, volume.Readers.Arrays).
func Phases(p *Params, cfg Config, backend string, reading []plan.Array) []plan.Phase {
	h, w := p.Shape[1], p.Shape[2]
	hw := int64(h) * int64(w)
	pb := hw * int64(p.DType.Size())
	pp := p.PlaneParams()
	ty, tx := pp.BrainTiles()
	nt := int64(ty * tx)
	kz := int64(p.Ball.Z)
	k := BallKernel(p.Ball.XY, p.Ball.Z)
	cpu := backend == "cpu"
	centres := plan.Array{Name: "centre planes", Where: plan.Device, PerUnit: hw}
	if cpu {
		centres = plan.Array{Name: "centre planes (2 batches: one filled, one read by the structures)", Where: plan.Device, PerUnit: centreSlots * hw}
	}
	arrays := []plan.Array{
		{Name: "input batches (2, raw)", Where: plan.Device, PerUnit: 2 * pb},
		{Name: "2D filter work (3 float32 planes)", Where: plan.Device, Fixed: WorkLayout(&pp).Size},
		{Name: "threshold mask ring", Where: plan.Device, Fixed: (kz - 1) * hw, PerUnit: hw},
		{Name: "in-brain tile ring", Where: plan.Device, Fixed: (kz - 1) * nt, PerUnit: nt},
		centres,
		{Name: "ball kernel", Where: plan.Device, Fixed: int64(4 * len(k.W))},
		{Name: "structure labels (2 planes)", Where: plan.Host, Fixed: labelPlanesBytes(h, w)},
		{Name: "open structures (voxel lists, estimated)", Where: plan.Host, Fixed: openStructureBytes(hw)},
		{Name: "cluster splitting (at most)", Where: plan.Host, Fixed: splitBytes(p)},
		{Name: "candidates (output, estimated)", Where: plan.Host, Fixed: outputBytes(p)},
	}
	if !cpu {
		staging := plan.Host
		if cfg.PinMemory {
			staging = plan.Pinned
		}
		arrays = append(arrays,
			plan.Array{Name: "staging (2 batches)", Where: staging, PerUnit: stagingBuffers * pb},
			plan.Array{Name: "centre planes (downloaded, 2 batches)", Where: plan.Host, PerUnit: centreSlots * hw})
	}
	arrays = append(arrays, reading...)
	maxBlock := autoBatchCPU
	if backend == "cuda" {
		maxBlock = autoBatchCUDA
	}
	return []plan.Phase{{
		Name: "planes", Unit: "planes", Units: p.Planes(), Block: cfg.BatchSize, MinBlock: 1, MaxBlock: maxBlock,
		Arrays: arrays,
	}}
}

// openStructureBytes is the plan's allowance for the structures still
// open: the voxels (and their indices in the label planes) of a
// sixteenth of two planes.
func openStructureBytes(hw int64) int64 {
	return 2 * (hw / openStructureShare) * (pointBytes + 4)
}

// outputBytes is the plan's allowance for the candidates a run returns.
func outputBytes(p *Params) int64 {
	hw := int64(p.Shape[1]) * int64(p.Shape[2])
	n := int64(p.Planes()) * max(1, hw*candidatesPerMegapixel/1e6)
	return n * candidateBytes
}

// MakePlan plans a run of cfg on src: the batch is cfg.BatchSize, or the
// largest that fits the budget up to the backend's auto cap.
func MakePlan(src *volume.Volume, cfg Config, b plan.Budget, backend string) (*plan.Plan, error) {
	p, err := cfg.Params(src.Info)
	if err != nil {
		return nil, fmt.Errorf("detect %s: %w", src.Name, err)
	}
	return makePlan(&p, cfg, b, backend, volume.ReadersOf(src.Source()))
}

// makePlan plans the run at each level of the reader's memory, fastest
// first (volume.ReadOptions: a cache of the chunk layer a batch ends
// inside, so that the next batch finds it decoded, and every CPU
// decoding, down to one chunk at a time and no cache), and takes the
// first that fits; it refuses, naming the smallest budget that works,
// when not even the leanest does. Batches follow each other without
// sharing planes.
func makePlan(p *Params, cfg Config, b plan.Budget, backend string, rd volume.Readers) (*plan.Plan, error) {
	alts := make([][]plan.Phase, rd.Levels())
	for k := range alts {
		alts[k] = Phases(p, cfg, backend, rd.Arrays(k))
	}
	pl, err := plan.Choose("detect", alts, b, nil)
	if err != nil {
		return nil, err
	}
	pl.Reading = rd.Describe(pl.Choice)
	return pl, nil
}
