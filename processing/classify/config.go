package classify

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/plan"
)

// Config holds the classification parameters as the user gives them
// (cellfinder's names in brackets). Start from DefaultConfig.
type Config struct {
	// Model is the weight file: Keras 2 HDF5 weights (cellfinder's
	// resnet50_tv.h5), a Keras 3 .weights.h5 or a .keras model
	// [--trained-model, --model-weights].
	Model string
	// VoxelSize of the data, z, y, x in microns [--voxel-sizes].
	VoxelSize [3]float64
	// NetworkVoxelSize is the voxel size the network was trained at, z,
	// y, x in microns [--network-voxel-sizes; default 5, 1, 1].
	NetworkVoxelSize [3]float64
	// CubeSize is the network's cube: height (y), width (x) and depth
	// (z) in network voxels [--cube-height 50, --cube-width 50,
	// --cube-depth 20].
	CubeSize [3]int
	// NetworkDepth is 18, 34, 50, 101 or 152 layers [--network-depth,
	// default 50]; 0 (the default here) takes the depth the model file
	// holds, and a depth given is checked against it.
	NetworkDepth int
	// BatchSize is cubes per batch [--batch-size, default 64]; 0 lets
	// the planner choose, up to 64.
	BatchSize int
	// PinMemory page-locks the staging buffers of the cubes (CUDA)
	// [--pin-memory].
	PinMemory bool
	// PinnedCap caps pinned memory in bytes (0: gpu.DefaultPinnedCap).
	PinnedCap int64
	// NormalizeChannels normalises each channel to its mean and sample
	// standard deviation over sampled planes before classification, for
	// models trained on normalised cubes; NormSamplingPlanes is the
	// fewest planes to sample: every plane of a volume of no more, else
	// every (planes / NormSamplingPlanes)-th [normalize_channels,
	// normalization_n_sampling_planes 50; SamplingStep].
	NormalizeChannels  bool
	NormSamplingPlanes int
	// Precision of the matrix products on CUDA: fp32 (default), tf32 or
	// fp16 (tensor cores). The CPU computes in float32.
	Precision string
	// Memory, when set, counts the host arrays a run allocates, so that a
	// test can hold the run's peak against the plan.
	Memory *plan.Tracker `json:"-"`
}

// Defaults of cellfinder's classification.
const (
	DefaultBatch = 64
	// DefaultNormSamplingPlanes is cellfinder's
	// normalization_n_sampling_planes.
	DefaultNormSamplingPlanes = 50
)

// DefaultConfig returns cellfinder's defaults (the data's voxel size and
// the model must still be given).
func DefaultConfig() Config {
	return Config{
		NetworkVoxelSize:   [3]float64{5, 1, 1},
		CubeSize:           [3]int{50, 50, 20},
		NormSamplingPlanes: DefaultNormSamplingPlanes,
		Precision:          "fp32",
	}
}

// Precisions lists the Precision values.
var Precisions = []string{"fp32", "tf32", "fp16"}

// Validate checks what does not depend on the data or the model.
func (c Config) Validate() error {
	for i, v := range c.VoxelSize {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("voxel size %v: the %s size is %g; give the data's voxel size in microns as z,y,x", c.VoxelSize, "zyx"[i:i+1], v)
		}
	}
	for i, v := range c.NetworkVoxelSize {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("network voxel size %v: the %s size is %g; it must be positive microns (cellfinder's networks: 5,1,1)", c.NetworkVoxelSize, "zyx"[i:i+1], v)
		}
	}
	for i, v := range c.CubeSize {
		if v < 1 {
			return fmt.Errorf("cube size %v: the %s is %d; give height,width,depth in network voxels (cellfinder: 50,50,20)", c.CubeSize, [3]string{"height", "width", "depth"}[i], v)
		}
	}
	if c.NetworkDepth != 0 && !slices.Contains(resnet.Depths, c.NetworkDepth) {
		return fmt.Errorf("network depth %d: cellfinder's ResNet has 18, 34, 50, 101 or 152 layers", c.NetworkDepth)
	}
	if c.BatchSize < 0 {
		return fmt.Errorf("batch size %d: must be positive (0: chosen by the planner)", c.BatchSize)
	}
	if c.NormalizeChannels && c.NormSamplingPlanes < 1 {
		return fmt.Errorf("normalisation sampling planes %d: the fewest planes the mean and standard deviation sample; must be 1 or more (cellfinder: 50)", c.NormSamplingPlanes)
	}
	if c.Precision != "" && !slices.Contains(Precisions, c.Precision) {
		return fmt.Errorf("precision %q: use fp32, tf32 or fp16", c.Precision)
	}
	if c.Model == "" {
		return errors.New("no model: give the weight file of the classification network (cellfinder's resnet50_tv.h5, or a .keras / .weights.h5 its training wrote)")
	}
	return nil
}

// netZYX returns the network cube as z, y, x.
func (c Config) netZYX() [3]int { return [3]int{c.CubeSize[2], c.CubeSize[0], c.CubeSize[1]} }

// arch returns the network of depth for channels.
func (c Config) arch(depth, channels int) resnet.Arch {
	return resnet.Arch{Depth: depth, Input: [4]int{c.CubeSize[0], c.CubeSize[1], c.CubeSize[2], channels}}
}
