package detect

import (
	"errors"
	"fmt"
	"math"

	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// Config holds the detection parameters as the user gives them: lengths in
// microns, fractions, counts. The zero value is not useful; start from
// DefaultConfig. StartPlane/EndPlane select a range of input planes, so a
// sub-range can run on its own.
type Config struct {
	// VoxelSize is z, y, x in microns.
	VoxelSize [3]float64
	// SomaDiameter in microns.
	SomaDiameter float64
	// BallXY, BallZ: the ball filter's size in microns; BallOverlap the
	// fraction of the ball that must be thresholded.
	BallXY, BallZ, BallOverlap float64
	// LogSigma: the Gaussian's σ as a fraction of the soma diameter.
	LogSigma float64
	// Threshold: standard deviations above the plane mean.
	Threshold float64
	// TileSize (in soma diameters, 0: off) and TiledThreshold (standard
	// deviations above the tile mean) add cellfinder's tiled threshold.
	TileSize, TiledThreshold float64
	// SomaSpread scales the soma diameter to the largest single cell.
	SomaSpread float64
	// MaxCluster: structures of this many cubic microns or more are
	// artifacts.
	MaxCluster float64
	// The ball filter used to split clusters, and its iterations.
	SplitBallXY, SplitBallZ, SplitOverlap float64
	SplitIterations                       int
	// StartPlane and EndPlane select input planes [StartPlane, EndPlane);
	// EndPlane 0 means the last plane.
	StartPlane, EndPlane int
	// BatchSize is planes per batch; 0 lets the planner choose.
	BatchSize int
	// PinMemory page-locks the host staging buffers (CUDA only).
	PinMemory bool
	// PinnedCap caps pinned memory in bytes (0: none).
	PinnedCap int64
	// Memory, when set, counts the host arrays a run allocates, so that
	// a test can hold the run's peak against the plan's PeakRAM (with
	// gpu.CPUBackend.CountHost it counts the device buffers too).
	Memory *plan.Tracker `json:"-"`
}

// DefaultConfig returns cellfinder's defaults.
func DefaultConfig() Config {
	return Config{
		VoxelSize:    [3]float64{5, 2, 2},
		SomaDiameter: 16,
		BallXY:       6, BallZ: 15, BallOverlap: 0.6,
		LogSigma:       0.2,
		Threshold:      10,
		TiledThreshold: 10,
		SomaSpread:     1.4,
		MaxCluster:     100000,
		SplitBallXY:    6, SplitBallZ: 15, SplitOverlap: 0.8,
		SplitIterations: 10,
	}
}

// Params are a Config converted to voxels for one volume.
type Params struct {
	Shape [3]int
	DType volume.DType
	// Start and End are the input planes [Start, End) read.
	Start, End int
	// SomaPx is the soma diameter in pixels.
	SomaPx int
	// Ball is the detection ball filter, Split the one that splits
	// clusters.
	Ball, Split Ball
	// Sigma and Radius of the Gaussian.
	Sigma  float64
	Radius int
	// Clip is dtype max − 2; the threshold and centre markers of cellfinder
	// are max − 1 and max.
	Clip int
	NSD  float64
	// LocalTilePx (0: off) and LocalNSD: the tiled threshold.
	LocalTilePx int
	LocalNSD    float64
	// BrainTile is the in-brain tile side (2 × SomaPx).
	BrainTile int
	// MaxCellVolume and MaxCluster in voxels.
	MaxCellVolume   float64
	MaxCluster      int
	SplitIterations int
}

// Ball is a ball filter in voxels.
type Ball struct {
	XY, Z   int
	Overlap float64
}

// MidZ is the index of the middle plane in a window (floor(Z/2)).
func (b Ball) MidZ() int { return b.Z / 2 }

// roundPy rounds half to even, as Python's round does (cellfinder converts
// microns to voxels with it).
func roundPy(x float64) int { return int(math.RoundToEven(x)) }

// Validate checks the parameters that do not depend on the volume, as
// Params does: voxel sizes, lengths, fractions, and ball sizes that round to
// zero voxels.
func (c Config) Validate() error {
	info := volume.Info{Shape: [3]int{1 << 20, 1 << 20, 1 << 20}, DType: volume.Uint16}
	_, err := c.Params(info)
	return err
}

// Params validates c against a volume and converts it to voxels, with
// cellfinder's formulas: in-plane pixel size = mean of y and x; xy lengths
// = round(µm / pixel size); z lengths = round(µm / z size); max cluster =
// µm³ / voxel volume; max cell volume = 4/3·π·(spread·soma px/2)³.
func (c Config) Params(info volume.Info) (Params, error) {
	var p Params
	for i, v := range c.VoxelSize {
		if !(v > 0) || math.IsInf(v, 0) {
			return p, fmt.Errorf("voxel size %v: the %s size is %g; every voxel size must be a positive number of microns (z,y,x)", c.VoxelSize, "zyx"[i:i+1], v)
		}
	}
	if info.DType != volume.Uint8 && info.DType != volume.Uint16 {
		return p, fmt.Errorf("cell detection needs unsigned integer data of 8 or 16 bits (uint8 or uint16), this volume is %s: convert it first, e.g. arr.clip(0, 65535).astype('<u2') (cellfinder clips to [0, max-2] of the unsigned type and marks thresholded voxels and centres with its two largest values, which a signed, 32-bit or float volume does not have)", info.DType)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"soma diameter", c.SomaDiameter}, {"ball xy size", c.BallXY}, {"ball z size", c.BallZ},
		{"split ball xy size", c.SplitBallXY}, {"split ball z size", c.SplitBallZ},
		{"soma spread factor", c.SomaSpread}, {"max cluster size", c.MaxCluster}} {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return p, fmt.Errorf("%s is %g: it must be positive", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"ball overlap fraction", c.BallOverlap}, {"split ball overlap fraction", c.SplitOverlap}} {
		if !(f.v >= 0 && f.v <= 1) {
			return p, fmt.Errorf("%s is %g: it must be between 0 and 1", f.name, f.v)
		}
	}
	if !(c.LogSigma >= 0) || !(c.Threshold >= 0) || c.TileSize < 0 || c.SplitIterations < 0 {
		return p, errors.New("log sigma, threshold, tile size and split iterations must not be negative")
	}
	px := (c.VoxelSize[1] + c.VoxelSize[2]) / 2
	p.Shape, p.DType = info.Shape, info.DType
	p.SomaPx = roundPy(c.SomaDiameter / px)
	if p.SomaPx < 1 {
		return p, fmt.Errorf("the soma diameter of %g µm is less than one %g µm pixel", c.SomaDiameter, px)
	}
	var err error
	if p.Ball, err = ball("ball", c.BallXY, c.BallZ, c.BallOverlap, px, c.VoxelSize[0]); err != nil {
		return p, err
	}
	if p.Split, err = ball("split ball", c.SplitBallXY, c.SplitBallZ, c.SplitOverlap, px, c.VoxelSize[0]); err != nil {
		return p, err
	}
	p.Sigma = c.LogSigma * float64(p.SomaPx)
	p.Radius = roundPy(4 * p.Sigma)
	p.Clip = int(info.DType.MaxValue()) - 2
	p.NSD = c.Threshold
	if c.TileSize > 0 {
		p.LocalTilePx = roundPy(float64(p.SomaPx) * c.TileSize)
		p.LocalNSD = c.TiledThreshold
	}
	p.BrainTile = 2 * p.SomaPx
	r := c.SomaSpread * float64(p.SomaPx) / 2
	p.MaxCellVolume = 4.0 / 3.0 * math.Pi * r * r * r
	p.MaxCluster = roundPy(c.MaxCluster / (c.VoxelSize[0] * c.VoxelSize[1] * c.VoxelSize[2]))
	p.SplitIterations = c.SplitIterations
	return p, p.setRange(c, info)
}

func ball(name string, xyUM, zUM, overlap, px, zSize float64) (Ball, error) {
	b := Ball{XY: roundPy(xyUM / px), Z: roundPy(zUM / zSize), Overlap: overlap}
	if b.Z < 1 {
		return b, fmt.Errorf("the %s z size of %g µm rounds to 0 planes of %g µm: use a larger --ball-z (cellfinder needs cells to span several planes)", name, zUM, zSize)
	}
	if b.XY < 1 {
		return b, fmt.Errorf("the %s xy size of %g µm rounds to 0 pixels of %g µm", name, xyUM, px)
	}
	return b, nil
}

func (p *Params) setRange(c Config, info volume.Info) error {
	nz := info.Shape[0]
	p.Start, p.End = c.StartPlane, c.EndPlane
	if p.End == 0 {
		p.End = nz
	}
	if p.Start < 0 || p.End > nz || p.Start >= p.End {
		return fmt.Errorf("planes %d to %d: the volume has planes 0 to %d", p.Start, p.End, nz)
	}
	if n := p.End - p.Start; n < p.Ball.Z {
		return fmt.Errorf("%d planes to process but the ball filter spans %d (ball z %d planes): a volume needs at least ball-z planes", n, p.Ball.Z, p.Ball.Z)
	}
	if info.Shape[1] < p.Ball.XY || info.Shape[2] < p.Ball.XY {
		return fmt.Errorf("planes of %dx%d are smaller than the %d-pixel ball", info.Shape[1], info.Shape[2], p.Ball.XY)
	}
	return nil
}

// Planes returns the number of input planes processed.
func (p *Params) Planes() int { return p.End - p.Start }

// PlaneParams returns the 2D stage's parameters.
func (p *Params) PlaneParams() PlaneParams {
	return PlaneParams{
		H: p.Shape[1], W: p.Shape[2], ElemBytes: p.DType.Size(), Clip: p.Clip,
		Sigma: p.Sigma, Radius: p.Radius, NSD: p.NSD,
		LocalTile: p.LocalTilePx, LocalNSD: p.LocalNSD, BrainTile: p.BrainTile,
	}
}
