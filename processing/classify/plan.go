package classify

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/task"
	"github.com/voxlab/voxlab/processing/volume"
)

// classifiedBytes is the size of one result.
const classifiedBytes = int64(unsafe.Sizeof(Classified{}))

// ringPlanes returns the planes the plane ring holds: two cuboids' depth
// (cellfinder buffers as many), so that a batch may span planes beyond
// one cuboid.
func (s *Session) ringPlanes() int { return min(2*s.Geo.Crop[0], s.Geo.Shape[0]) }

// readerBytes is the memory the sources' readers hold of their own.
func readerBytes(vs ...*volume.Volume) int64 {
	var n int64
	for _, v := range vs {
		if v == nil {
			continue
		}
		if r, ok := v.Source().(interface{ ReadBufferBytes() int64 }); ok {
			n += r.ReadBufferBytes()
		}
		n += volume.CacheBytes(v.Source())
	}
	return n
}

// cudaWorkspace is set by the cuda build: the device bytes its network
// needs besides the weights and activations, per batch cube and fixed.
var cudaWorkspace func(s *Session) (perCube, fixed int64)

// Phases describe everything a run keeps resident at once, by where it
// lives, for processing/plan; the unit is a cube and the block the batch.
// backend is "cpu" or "cuda"; workers the CPU backend's goroutines.
func (s *Session) Phases(backend string, workers int) []plan.Phase {
	return s.phases(backend, workers, len(s.Order))
}

// phases are Phases for a run of cubes candidates.
func (s *Session) phases(backend string, workers, cubes int) []plan.Phase {
	net := s.Net
	cube := int64(4 * CubeLen(net.Arch))
	x, t1, t2, sc := activationSizes(net)
	acts := 4 * int64(2*x+t1+t2+sc)
	var planeBytes int64
	for _, v := range []*volume.Volume{s.In.Signal, s.In.Background} {
		if v != nil {
			planeBytes += v.Info.PlaneBytes()
		}
	}
	arrays := []plan.Array{
		{Name: "network weights", Where: plan.Device, Fixed: net.WeightBytes()},
		{Name: "activations", Where: plan.Device, PerUnit: acts},
		{Name: "cube batches (2: one classified, one extracted)", Where: plan.Device, PerUnit: 2 * cube},
		{Name: "plane ring (raw planes of every channel)", Where: plan.Host, Fixed: int64(s.ringPlanes()) * planeBytes},
		{Name: "probabilities (2 batches)", Where: plan.Host, PerUnit: 2 * 8},
		{Name: "results", Where: plan.Host, Fixed: int64(len(s.In.Points)) * (classifiedBytes + 24)},
	}
	if t := s.tmpBytes(); t > 0 {
		arrays = append(arrays, plan.Array{Name: "cuboid before rescaling (per extraction worker)", Where: plan.Host, Fixed: int64(extractWorkers(workers)) * t})
	}
	if r := readerBytes(s.In.Signal, s.In.Background); r > 0 {
		arrays = append(arrays, plan.Array{Name: "input reader buffers", Where: plan.Host, Fixed: r})
	}
	if backend == "cpu" {
		arrays = append(arrays,
			plan.Array{Name: "im2col scratch and conv1 output (per worker)", Where: plan.Device, Fixed: int64(workers) * CPUScratchBytes(net)},
			plan.Array{Name: "network weights (packed for the CPU)", Where: plan.Device, Fixed: packedBytes(net)})
	} else {
		staging := plan.Host
		if s.Cfg.PinMemory {
			staging = plan.Pinned
		}
		arrays = append(arrays,
			plan.Array{Name: "staging (2 batches of cubes)", Where: staging, PerUnit: 2 * cube},
			plan.Array{Name: "network weights (host copy)", Where: plan.Host, Fixed: net.WeightBytes()})
		if cudaWorkspace != nil {
			per, fixed := cudaWorkspace(s)
			arrays = append(arrays, plan.Array{Name: "im2col workspace", Where: plan.Device, PerUnit: per, Fixed: fixed})
		}
	}
	phases := []plan.Phase{{
		Name: "cubes", Unit: "cubes", Units: max(cubes, 1), Block: s.Cfg.BatchSize, MinBlock: 1, MaxBlock: DefaultBatch,
		Arrays: arrays,
	}}
	if s.Cfg.NormalizeChannels {
		// Before the cubes: the model is loaded, one plane read at a time.
		norm := plan.Phase{Name: "normalise", Unit: "planes", Units: 1, Arrays: []plan.Array{
			{Name: "network weights (as read)", Where: plan.Host, Fixed: net.WeightBytes()},
			{Name: "normalisation plane", Where: plan.Host, Fixed: s.In.Signal.Info.PlaneBytes()},
			{Name: "results", Where: plan.Host, Fixed: int64(len(s.In.Points)) * (classifiedBytes + 24)},
		}}
		phases = append([]plan.Phase{norm}, phases...)
	}
	return phases
}

// tmpBytes returns the bytes of one cuboid before rescaling (0 without).
func (s *Session) tmpBytes() int64 {
	if !s.Geo.Rescale {
		return 0
	}
	g := s.Geo
	return 4 * int64(g.Crop[0]*g.Crop[1]*g.Crop[2]*g.Channels)
}

// extractWorkers is the number of goroutines that cut cubes out of the
// plane ring.
func extractWorkers(workers int) int { return max(1, min(workers, runtime.GOMAXPROCS(0))) }

// MakePlan plans a run on backend ("cpu" or "cuda") with workers CPU
// goroutines: the batch is cfg.BatchSize, or the largest up to 64 that
// fits the budget.
func (s *Session) MakePlan(b plan.Budget, backend string, workers int) (*plan.Plan, error) {
	return s.makePlan(b, backend, workers, len(s.Order))
}

// TaskPlan plans task t alone: its run of candidates (TaskCandidates).
func (s *Session) TaskPlan(b plan.Budget, backend string, workers int, t task.Task) (*plan.Plan, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	lo, hi := s.TaskCandidates(t)
	return s.makePlan(b, backend, workers, hi-lo)
}

func (s *Session) makePlan(b plan.Budget, backend string, workers, cubes int) (*plan.Plan, error) {
	p, err := plan.Make("classify", s.phases(backend, workers, cubes), b)
	if err != nil {
		return nil, fmt.Errorf("classify %s: %w", s.In.Signal.Name, err)
	}
	return p, nil
}

// packedBytes returns the bytes of the CPU's packed convolution weights.
func packedBytes(net *resnet.Net) int64 {
	var n int64
	for _, c := range net.Convs() {
		n += 4 * int64(len(c.W))
	}
	return n
}
