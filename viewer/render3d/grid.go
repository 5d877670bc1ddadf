package render3d

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/voxlab/voxlab/processing/volume"
)

// Grid is a volume in memory: exactly one of U16 and F32 holds its
// voxels, in C order (z, y, x).
type Grid struct {
	// Shape is (z, y, x).
	Shape [3]int
	// Spacing is the physical size of a voxel along z, y and x.
	Spacing [3]float64
	// Factor is the downsampling factor from the volume it was built
	// from (1: full resolution).
	Factor int
	// Full is the shape of the volume it was built from (zero: Shape).
	Full [3]int
	U16  []uint16
	F32  []float32

	mu      sync.Mutex
	proj    map[projKey][]float32
	sheared *shearImage
	bricks  []float32
}

// NewGridU16 wraps data (C order, shape z, y, x) with unit spacing.
func NewGridU16(shape [3]int, data []uint16) *Grid {
	return &Grid{Shape: shape, Spacing: [3]float64{1, 1, 1}, Factor: 1, U16: data}
}

// NewGridF32 wraps data (C order, shape z, y, x) with unit spacing.
func NewGridF32(shape [3]int, data []float32) *Grid {
	return &Grid{Shape: shape, Spacing: [3]float64{1, 1, 1}, Factor: 1, F32: data}
}

// Len returns the number of voxels.
func (g *Grid) Len() int { return g.Shape[0] * g.Shape[1] * g.Shape[2] }

// Bytes returns the memory its voxels take.
func (g *Grid) Bytes() int64 {
	if g.U16 != nil {
		return int64(len(g.U16)) * 2
	}
	return int64(len(g.F32)) * 4
}

// Extent returns the physical size of the grid along x, y, z (world
// order).
func (g *Grid) Extent() Vec {
	return Vec{float64(g.Shape[2]) * g.Spacing[2], float64(g.Shape[1]) * g.Spacing[1], float64(g.Shape[0]) * g.Spacing[0]}
}

// at returns voxel (z, y, x) as float32.
func (g *Grid) at(z, y, x int) float32 {
	i := (z*g.Shape[1]+y)*g.Shape[2] + x
	if g.U16 != nil {
		return float32(g.U16[i])
	}
	return g.F32[i]
}

// FactorFor returns the smallest downsampling factor that keeps a grid
// of shape (at bytes per voxel) within budget bytes; 0 when even one
// voxel does not fit.
func FactorFor(shape [3]int, voxelBytes int, budget int64) int {
	for f := 1; ; f++ {
		n := int64(voxelBytes)
		for _, s := range shape {
			n *= int64((s + f - 1) / f)
		}
		if n <= budget {
			return f
		}
		if f > shape[0] && f > shape[1] && f > shape[2] {
			return 0
		}
	}
}

// gridType returns whether a grid of vol holds uint16 (integer data
// that fits it) and its bytes per voxel.
func gridType(dt volume.DType) (u16 bool, size int) {
	if dt == volume.Uint8 || dt == volume.Uint16 {
		return true, 2
	}
	return false, 4
}

// MaxPlaneBytes bounds the plane a Builder reads at once: a volume of
// larger planes is refused.
const MaxPlaneBytes = 256 << 20

// readSlabBytes bounds the planes read at once by Build.
const readSlabBytes = 32 << 20

// Build reads vol once, slab of planes by slab, and returns one grid
// per budget, each downsampled by FactorFor (block mean; uint8 and
// uint16 data are kept as uint16, rounded, other types as float32).
// progress (nil: none) is told the planes read so far of the total;
// a cancelled ctx abandons the read. Memory beyond the grids is one
// slab and one plane of sums per grid.
func Build(ctx context.Context, vol *volume.Volume, budgets []int64, progress func(done, total int)) ([]*Grid, error) {
	b, err := NewBuilder(vol, 0, vol.Shape[0], budgets)
	if err != nil {
		return nil, err
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		done, err := b.Step()
		if err != nil {
			return nil, err
		}
		if progress != nil {
			progress(b.Done(), b.Total())
		}
		if done {
			return b.Grids(), nil
		}
	}
}

// Builder builds grids from planes [z0, z0+nz) of a volume one slab at
// a time (Step), so that the goroutine that owns the volume's source
// can read other things between slabs.
type Builder struct {
	vol    *volume.Volume
	z0, nz int
	z      int // planes read so far
	u16    bool
	slab   int
	buf    []byte
	row    []float64
	accs   []*acc
}

// acc sums one grid's current output plane.
type acc struct {
	g     *Grid
	f     int
	sum   []float64
	count []int32
	oz    int
}

// NewBuilder plans grids of planes [z0, z0+nz) of vol within budgets
// (see Build).
func NewBuilder(vol *volume.Volume, z0, nz int, budgets []int64) (*Builder, error) {
	u16, size := gridType(vol.DType)
	switch vol.DType {
	case volume.Uint8, volume.Uint16, volume.Float32, volume.Float64:
	default:
		return nil, fmt.Errorf("3D view of %s: %s voxels are not supported (uint8, uint16, float32, float64)", vol.Name, vol.DType)
	}
	if z0 < 0 || nz <= 0 || z0+nz > vol.Shape[0] {
		return nil, fmt.Errorf("3D view of %s: planes [%d, %d) outside [0, %d)", vol.Name, z0, z0+nz, vol.Shape[0])
	}
	// The grids are built from whole planes: one of a 65536² mosaic
	// (8 GiB) is never allocated.
	if pb := vol.PlaneBytes(); pb > MaxPlaneBytes {
		return nil, fmt.Errorf("3D view of %s: its planes of %d x %d %s (%d MiB each) are larger than the 3D view reads at once (%d MiB): open a pyramid level or a crop of it",
			vol.Name, vol.Shape[1], vol.Shape[2], vol.DType, pb>>20, MaxPlaneBytes>>20)
	}
	shape := [3]int{nz, vol.Shape[1], vol.Shape[2]}
	b := &Builder{vol: vol, z0: z0, nz: nz, u16: u16}
	for _, bud := range budgets {
		f := FactorFor(shape, size, bud)
		if f == 0 {
			return nil, fmt.Errorf("3D view of %s: a budget of %d bytes holds no voxel", vol.Name, bud)
		}
		sh := [3]int{(shape[0] + f - 1) / f, (shape[1] + f - 1) / f, (shape[2] + f - 1) / f}
		g := &Grid{Shape: sh, Factor: f, Full: shape}
		for k := range 3 {
			g.Spacing[k] = float64(f) * spacing(vol.VoxelSize[k])
		}
		n := sh[0] * sh[1] * sh[2]
		if u16 {
			g.U16 = make([]uint16, n)
		} else {
			g.F32 = make([]float32, n)
		}
		pl := sh[1] * sh[2]
		b.accs = append(b.accs, &acc{g: g, f: f, sum: make([]float64, pl), count: make([]int32, pl)})
	}
	b.slab = max(1, int(readSlabBytes/max(vol.PlaneBytes(), 1)))
	b.buf = make([]byte, int64(min(b.slab, nz))*vol.PlaneBytes())
	b.row = make([]float64, vol.Shape[2])
	return b, nil
}

// Done returns the planes read so far; Total the planes to read.
func (b *Builder) Done() int  { return b.z }
func (b *Builder) Total() int { return b.nz }

// Grids returns the grids, complete once Step reported done.
func (b *Builder) Grids() []*Grid {
	out := make([]*Grid, len(b.accs))
	for i, a := range b.accs {
		out[i] = a.g
	}
	return out
}

// Step reads and adds the next slab, and reports whether the grids are
// complete.
func (b *Builder) Step() (bool, error) {
	if b.z >= b.nz {
		return true, nil
	}
	vol := b.vol
	z1 := min(b.z+b.slab, b.nz)
	pb := vol.PlaneBytes()
	buf := b.buf[:int64(z1-b.z)*pb]
	if err := vol.ReadSlab(b.z0+b.z, b.z0+z1, buf); err != nil {
		return false, err
	}
	ny, nx := vol.Shape[1], vol.Shape[2]
	for z := b.z; z < z1; z++ {
		plane := buf[int64(z-b.z)*pb:][:pb]
		for y := range ny {
			toFloat(b.row, vol.DType, plane, y*nx)
			for _, a := range b.accs {
				if z/a.f != a.oz {
					b.flush(a)
					a.oz = z / a.f
				}
				base := (y / a.f) * a.g.Shape[2]
				for x, v := range b.row {
					// NaNs would poison a block; they count as absent.
					if v == v {
						a.sum[base+x/a.f] += v
						a.count[base+x/a.f]++
					}
				}
			}
		}
	}
	b.z = z1
	if b.z < b.nz {
		return false, nil
	}
	for _, a := range b.accs {
		b.flush(a)
	}
	b.buf, b.row = nil, nil
	return true, nil
}

// flush writes a's output plane of block means and clears its sums.
func (b *Builder) flush(a *acc) {
	g := a.g
	off := a.oz * g.Shape[1] * g.Shape[2]
	for j, s := range a.sum {
		m := s / float64(max(a.count[j], 1))
		if b.u16 {
			g.U16[off+j] = uint16(math.Min(math.Round(m), 65535))
		} else {
			g.F32[off+j] = float32(m)
		}
		a.sum[j], a.count[j] = 0, 0
	}
}

// spacing is a voxel size, 1 where the file gives none.
func spacing(s float64) float64 {
	if s > 0 {
		return s
	}
	return 1
}

// toFloat converts row y (starting at element off) of a plane to float64.
func toFloat(dst []float64, dt volume.DType, plane []byte, off int) {
	switch dt {
	case volume.Uint8:
		for i, v := range plane[off : off+len(dst)] {
			dst[i] = float64(v)
		}
	case volume.Uint16:
		for i, v := range volume.Uint16s(plane)[off : off+len(dst)] {
			dst[i] = float64(v)
		}
	case volume.Float32:
		for i, v := range volume.Float32s(plane)[off : off+len(dst)] {
			dst[i] = float64(v)
		}
	case volume.Float64:
		copy(dst, volume.Float64s(plane)[off:off+len(dst)])
	}
}

// errEmpty is returned for a grid without voxels.
var errEmpty = errors.New("render3d: empty grid")
