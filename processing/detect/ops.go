package detect

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/ndimage"
)

// Ops are the device operations of cell detection, one implementation per
// gpu backend (cpu_*.go; cuda_ops.go in the cuda build). Both compute
// bit-identical results: float32 arithmetic is done in the same order with
// every product and sum rounded on its own (no fused multiply-add), and
// every reduction is sequential in a fixed order or exact (integers,
// min/max).
type Ops interface {
	// Plane runs the per-plane 2D stage of cellfinder's detection on one
	// plane of src (uint8 or uint16, at byte offset srcOff): clip,
	// in-brain tiles, 3x3 median, normalise, Gaussian, Laplacian, negate,
	// threshold at mean + n·SD (and per local tile when asked). It writes
	// the threshold mask (1 above, 0 elsewhere; H·W bytes) into mask at
	// maskOff and the in-brain flags of the tiles (BrainTilesY·BrainTilesX
	// bytes) into tiles at tilesOff. work holds WorkLayout(p).Size bytes,
	// prepared once with the Gaussian's weights (prepareWork); after the
	// call its A plane holds the median and its E plane the negated
	// Laplacian.
	Plane(src *gpu.Buffer, srcOff int64, work, mask *gpu.Buffer, maskOff int64, tiles *gpu.Buffer, tilesOff int64, p *PlaneParams) error
	// Ball runs the 3D ball filter for p.Count consecutive middle planes
	// of a ring of p.Ring mask planes (H·W bytes each), writing one plane
	// of centre flags (1 centre, 0 not) per middle plane into dst.
	// weights holds the KZ·KY·KX int32 kernel weights, [dz][dy][dx].
	// tiles is the ring of in-brain tile flags (used when p.UseTiles).
	Ball(dst, masks, tiles, weights *gpu.Buffer, p *BallParams) error
}

// cudaOpsFor returns the CUDA operations for a CUDA backend (ok false
// for any other backend); set by cuda_ops.go in the cuda build, nil in
// the default build.
var cudaOpsFor func(be gpu.Backend) (ops Ops, ok bool, err error)

// opsFor returns the operations of detection for be.
func opsFor(be gpu.Backend) (Ops, error) {
	return gpu.PickOps("detect", be, func(c *gpu.CPUBackend) Ops { return cpuOps{c} }, cudaOpsFor)
}

// PlaneParams describes the 2D stage of one plane.
type PlaneParams struct {
	H, W int
	// ElemBytes is the size of a source element: 1 (uint8) or 2 (uint16).
	ElemBytes int
	// Clip is the largest source value kept (cellfinder: dtype max − 2).
	Clip int
	// Sigma and Radius of the Gaussian (radius = round(4σ)).
	Sigma  float64
	Radius int
	// NSD: a pixel passes when E > mean(E) + NSD·SD(E) of the plane.
	NSD float64
	// LocalTile is the tiled-threshold tile size in pixels (0: off); a
	// pixel must also pass E > mean + LocalNSD·SD of its tile.
	LocalTile int
	LocalNSD  float64
	// BrainTile is the side of the in-brain tiles (2 × soma diameter px).
	BrainTile int
}

// Validate checks the parameters.
func (p *PlaneParams) Validate() error {
	switch {
	case p.H < 1 || p.W < 1:
		return fmt.Errorf("detect: plane %dx%d", p.H, p.W)
	case p.ElemBytes != 1 && p.ElemBytes != 2:
		return fmt.Errorf("detect: %d-byte elements: want uint8 or uint16", p.ElemBytes)
	case p.Radius < 0 || p.Sigma < 0:
		return fmt.Errorf("detect: Gaussian σ %g radius %d", p.Sigma, p.Radius)
	case p.BrainTile < 1:
		return fmt.Errorf("detect: in-brain tile size %d", p.BrainTile)
	case p.LocalTile < 0:
		return fmt.Errorf("detect: local tile size %d", p.LocalTile)
	}
	return nil
}

// BrainTiles returns the number of in-brain tiles along y and x:
// ceil(H/tile), ceil(W/tile) (partial edge tiles are never in the brain).
func (p *PlaneParams) BrainTiles() (ny, nx int) {
	return ceilDiv(p.H, p.BrainTile), ceilDiv(p.W, p.BrainTile)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// localTiles is the geometry of cellfinder's tiled threshold: tiles of
// 2·Stride pixels overlapping by half, starting at Off (rem/2) on an axis
// that has at least two tiles; an axis with fewer is one tile spanning it.
// Sums are kept per segment (Stride pixels, or the whole axis), a tile
// being two segments per tiled axis.
type localTiles struct {
	On                   bool
	Stride               int
	DoY, DoX             bool
	TilesY, TilesX       int
	SegsY, SegsX         int
	OffY, OffX           int
	ShiftY, ShiftX       int // (Stride − rem)/2: pixel p lies in tile (p+Shift)/Stride − 1
	SegLenY, SegLenX     int
	SegStartY, SegStartX int
}

// localTiles returns the tiled-threshold geometry (On false when the option
// is off or the plane is too small for two tiles on either axis).
func (p *PlaneParams) localTiles() localTiles {
	var t localTiles
	s := p.LocalTile / 2
	if p.LocalTile < 2 || s < 1 {
		return t
	}
	t.Stride = s
	t.TilesY, t.TilesX = max(p.H/s-1, 1), max(p.W/s-1, 1)
	t.DoY, t.DoX = t.TilesY >= 2, t.TilesX >= 2
	if !t.DoY && !t.DoX {
		return localTiles{}
	}
	t.On = true
	axis := func(do bool, n int, tiles int) (segs, off, shift, segLen int) {
		if !do {
			return 1, 0, 0, n
		}
		rem := n % s
		return tiles + 1, rem / 2, (s - rem) / 2, s
	}
	t.SegsY, t.OffY, t.ShiftY, t.SegLenY = axis(t.DoY, p.H, t.TilesY)
	t.SegsX, t.OffX, t.ShiftX, t.SegLenX = axis(t.DoX, p.W, t.TilesX)
	return t
}

// tileOf returns the local tile along one axis of pixel i: cellfinder
// stretches the tile thresholds over the plane, the first and last tiles
// covering two strides and the others one.
func (t *localTiles) tileOf(i int, do bool, shift, tiles int) int {
	if !do {
		return 0
	}
	return min(max((i+shift)/t.Stride-1, 0), tiles-1)
}

// Layout gives the byte offsets of the regions of the work buffer of
// Ops.Plane.
type Layout struct {
	// A (median), T (scratch) and E (negated Laplacian): float32 planes.
	A, T, E int64
	// Rows: per row int32 min, int32 max, float64 sum, float64 sum of squares.
	Rows int64
	// Stats: float64 values, see the stat* indices.
	Stats int64
	// Gauss: Radius+1 float32 weights, centre first.
	Gauss int64
	// Seg: float64 sum and sum of squares per local-tile segment; LocalThr:
	// float64 threshold per local tile.
	Seg, LocalThr int64
	Size          int64
}

// Indices into the Stats region.
const (
	statMin = iota
	statMax
	statMean
	statSD
	statThreshold
	statBrainThreshold
	nStats = 8
)

// rowBytes is the size of one row's entry in the Rows region.
const rowBytes = 24

// WorkLayout returns the layout of Ops.Plane's work buffer.
func WorkLayout(p *PlaneParams) Layout {
	plane := align8(int64(p.H) * int64(p.W) * 4)
	var l Layout
	l.A, l.T, l.E = 0, plane, 2*plane
	l.Rows = 3 * plane
	l.Stats = l.Rows + int64(p.H)*rowBytes
	l.Gauss = l.Stats + nStats*8
	l.Seg = l.Gauss + align8(int64(p.Radius+1)*4)
	lt := p.localTiles()
	l.LocalThr = l.Seg + int64(lt.SegsY*lt.SegsX)*16
	l.Size = l.LocalThr + int64(lt.TilesY*lt.TilesX)*8
	return l
}

func align8(n int64) int64 { return (n + 7) &^ 7 }

// gaussWeights returns the weights w[0..radius] of a normalised
// Gaussian of σ sigma truncated at radius (w[0] the centre), as SciPy's
// gaussian_filter1d makes them (ndimage.GaussianWeights), in float32.
func gaussWeights(sigma float64, radius int) []float32 {
	f := ndimage.GaussianWeights(sigma, radius)
	w := make([]float32, len(f))
	for i, v := range f {
		w[i] = float32(v)
	}
	return w
}

// prepareWork writes the Gaussian weights Ops.Plane reads into a
// work buffer. Call it once after allocating the buffer (and again when σ
// or the radius change): uploading them with every plane would make each
// plane wait for the previous one on a GPU.
func prepareWork(be gpu.Backend, work *gpu.Buffer, p *PlaneParams) error {
	w := gaussWeights(p.Sigma, p.Radius)
	b := make([]byte, 4*len(w))
	for i, v := range w {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	if err := be.Upload(work, WorkLayout(p).Gauss, b); err != nil {
		return fmt.Errorf("detect: prepare work buffer: %w", err)
	}
	return nil
}

// reflectIndex maps index i into [0, n) the way SciPy's mode 'reflect' does
// (ndimage.Reflect).
func reflectIndex(i, n int) int { return ndimage.Reflect(i, n) }

// BallParams describes one call of the 3D ball filter.
type BallParams struct {
	H, W       int
	KZ, KY, KX int
	// Threshold: a voxel is a centre when the sum of the weights of the
	// thresholded voxels under the kernel exceeds it.
	Threshold int64
	// Ring is the number of planes in the mask (and tile) rings; window i
	// (i < Count) starts at slot (First+i) mod Ring and its middle plane is
	// slot (First+i+MidZ) mod Ring.
	Ring, First, Count int
	// MidZ = floor(KZ/2); OffY = (KY−1)/2 and OffX = (KX−1)/2: the offset
	// of the centre inside the kernel, as cellfinder places it.
	MidZ, OffY, OffX int
	// UseTiles: a centre must also lie in an in-brain tile of its plane.
	UseTiles                 bool
	TileSize, TilesY, TilesX int
}

// Validate checks the parameters.
func (p *BallParams) Validate() error {
	switch {
	case p.H < 1 || p.W < 1:
		return fmt.Errorf("ball filter: plane %dx%d", p.H, p.W)
	case p.KZ < 1 || p.KY < 1 || p.KX < 1:
		return fmt.Errorf("ball filter: kernel %dx%dx%d", p.KZ, p.KY, p.KX)
	case p.Ring < p.KZ+p.Count-1 && p.Count > 0:
		return fmt.Errorf("ball filter: a ring of %d planes cannot hold %d windows of %d", p.Ring, p.Count, p.KZ)
	case p.Count < 0 || p.First < 0:
		return fmt.Errorf("ball filter: %d windows from slot %d", p.Count, p.First)
	case p.UseTiles && (p.TileSize < 1 || p.TilesY < 1 || p.TilesX < 1):
		return fmt.Errorf("ball filter: tiles %dx%d of %d", p.TilesY, p.TilesX, p.TileSize)
	}
	return nil
}

// rangeCheck reports an error naming op when off is negative or b (a
// live buffer of the backend at hand) holds fewer than off+n bytes.
type rangeCheck func(op string, b *gpu.Buffer, off int64, n int) error

// checkPlane validates Ops.Plane's parameters and buffer ranges, for
// every backend.
func checkPlane(check rangeCheck, src *gpu.Buffer, srcOff int64, work, mask *gpu.Buffer, maskOff int64, tiles *gpu.Buffer, tilesOff int64, p *PlaneParams) error {
	if err := p.Validate(); err != nil {
		return err
	}
	n := p.H * p.W
	ty, tx := p.BrainTiles()
	for _, r := range []struct {
		op  string
		b   *gpu.Buffer
		off int64
		n   int
	}{
		{"detect plane: read", src, srcOff, n * p.ElemBytes},
		{"detect plane: work in", work, 0, int(WorkLayout(p).Size)},
		{"detect plane: mask to", mask, maskOff, n},
		{"detect plane: tiles to", tiles, tilesOff, ty * tx},
	} {
		if err := check(r.op, r.b, r.off, r.n); err != nil {
			return err
		}
	}
	if p.ElemBytes == 2 && srcOff%2 != 0 {
		return fmt.Errorf("detect plane: uint16 source at odd byte offset %d", srcOff)
	}
	return nil
}

// checkBall validates Ops.Ball's parameters and buffer sizes.
func checkBall(check rangeCheck, dst, masks, tiles, weights *gpu.Buffer, p *BallParams) error {
	if err := p.Validate(); err != nil {
		return err
	}
	plane := p.H * p.W
	if err := check("ball filter: centres to", dst, 0, p.Count*plane); err != nil {
		return err
	}
	if err := check("ball filter: masks in", masks, 0, p.Ring*plane); err != nil {
		return err
	}
	if err := check("ball filter: weights in", weights, 0, 4*p.KZ*p.KY*p.KX); err != nil {
		return err
	}
	if p.UseTiles {
		return check("ball filter: tiles in", tiles, 0, p.Ring*p.TilesY*p.TilesX)
	}
	return nil
}
