package lightsheet

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"

	"github.com/voxlab/voxlab/processing/volume"
)

// Voxel is the brain's voxel size, z, y, x in microns (a typical
// light-sheet acquisition, and cellfinder's default).
var Voxel = [3]float64{5, 2, 2}

// Levels of the synthetic light sheet, in counts.
const (
	brainBackground = 110.0  // outside the tissue
	brainTissue     = 420.0  // autofluorescence inside it
	somaSigmaXY     = 3.5    // soma profile SD in plane, µm
	somaSigmaZ      = 4.5    // and along z (the light-sheet PSF is longer axially)
	somaMinBright   = 900.0  // soma peak above the tissue, counts
	somaMaxBright   = 2200.0 //
	somaSpacing     = 26.0   // least distance between two somata, µm
	cellsPerMPx     = 2600.0 // somata per million in-plane pixels per 60 planes
)

// Brain is a synthetic light-sheet brain: a two-lobed tissue region over a
// dark background with smooth autofluorescence, shot noise, and bright
// somata of about 16 µm at known voxel positions inside it. Planes are
// rendered on demand and deterministically from the seed, so a Brain is
// also a lazily read volume.Source of any size.
type Brain struct {
	info  volume.Info
	seed  int64
	cells []brainCell
	// byZ lists, per plane, the cells that reach it.
	byZ [][]int32
	// inside is each pixel's signed distance into the tissue outline
	// (pixels, negative outside), shared by all planes.
	inside []float32
	auto   []float32 // autofluorescence pattern, 0..1
}

type brainCell struct {
	z, y, x int
	bright  float64
}

// The demo's two sizes (planes, rows, columns).
var (
	SmallShape = [3]int{60, 256, 256}
	LargeShape = [3]int{100, 2048, 2048}
)

// New lays out a brain of any shape (planes, rows, columns).
func New(shape [3]int, seed int64) *Brain {
	b := &Brain{
		info: volume.Info{Shape: shape, DType: volume.Uint16, VoxelSize: Voxel},
		seed: seed,
	}
	b.outline()
	b.placeCells()
	return b
}

// outline computes the tissue's signed inside distance: the union of two
// hemispheres and a smaller cerebellum, ellipses whose edge is smooth, so
// the tissue never touches the plane's border (where a zero-padded median
// would make a dark rim).
func (b *Brain) outline() {
	ny, nx := b.info.Shape[1], b.info.Shape[2]
	b.inside = make([]float32, ny*nx)
	b.auto = make([]float32, ny*nx)
	s := float64(min(ny, nx))
	type ell struct{ cy, cx, ry, rx float64 }
	lobes := []ell{
		{0.42 * float64(ny), 0.36 * float64(nx), 0.30 * float64(ny), 0.22 * float64(nx)},
		{0.42 * float64(ny), 0.64 * float64(nx), 0.30 * float64(ny), 0.22 * float64(nx)},
		{0.74 * float64(ny), 0.50 * float64(nx), 0.16 * float64(ny), 0.25 * float64(nx)},
	}
	rng := rand.New(rand.NewPCG(uint64(b.seed), 0x0b7a1))
	var ph [6]float64
	for i := range ph {
		ph[i] = rng.Float64() * 2 * math.Pi
	}
	for y := 0; y < ny; y++ {
		for x := 0; x < nx; x++ {
			best := math.Inf(-1)
			for _, e := range lobes {
				dy, dx := (float64(y)-e.cy)/e.ry, (float64(x)-e.cx)/e.rx
				best = max(best, (1-math.Sqrt(dy*dy+dx*dx))*min(e.ry, e.rx))
			}
			b.inside[y*nx+x] = float32(best)
			u, v := float64(y)/s, float64(x)/s
			a := 0.5 + 0.2*math.Sin(7*u+ph[0])*math.Cos(5*v+ph[1]) + 0.15*math.Sin(13*(u+v)+ph[2]) + 0.15*math.Cos(11*u-9*v+ph[3])
			b.auto[y*nx+x] = float32(min(max(a, 0), 1))
		}
	}
}

// placeCells scatters somata inside the tissue, at least somaSpacing
// apart, a tile's width inside the outline (cellfinder's in-brain tiles
// are 32 µm) and away from the first and last planes (a ball filter of
// 15 µm never centres there).
func (b *Brain) placeCells() {
	nz, ny, nx := b.info.Shape[0], b.info.Shape[1], b.info.Shape[2]
	rng := rand.New(rand.NewPCG(uint64(b.seed), 0xce115))
	want := int(cellsPerMPx * float64(ny*nx) / 1e6 * float64(nz) / 60)
	margin := 3
	if nz <= 2*margin {
		margin = 0
	}
	// A grid of buckets of the spacing size keeps the neighbour search
	// local.
	cell := somaSpacing
	gz, gy, gx := int(float64(nz)*Voxel[0]/cell)+1, int(float64(ny)*Voxel[1]/cell)+1, int(float64(nx)*Voxel[2]/cell)+1
	grid := make(map[int][]int32)
	key := func(z, y, x int) int { return (z*gy+y)*gx + x }
	_ = gz
	for tries := 0; len(b.cells) < want && tries < 30*want+100; tries++ {
		c := brainCell{z: margin + rng.IntN(max(nz-2*margin, 1)), y: rng.IntN(ny), x: rng.IntN(nx)}
		c.bright = somaMinBright + rng.Float64()*(somaMaxBright-somaMinBright)
		if b.inside[c.y*nx+c.x] < 24 {
			continue
		}
		pz, py, px := float64(c.z)*Voxel[0], float64(c.y)*Voxel[1], float64(c.x)*Voxel[2]
		kz, ky, kx := int(pz/cell), int(py/cell), int(px/cell)
		ok := true
		for a := kz - 1; a <= kz+1 && ok; a++ {
			for bb := ky - 1; bb <= ky+1 && ok; bb++ {
				for d := kx - 1; d <= kx+1 && ok; d++ {
					for _, j := range grid[key(a, bb, d)] {
						o := b.cells[j]
						dz, dy, dx := pz-float64(o.z)*Voxel[0], py-float64(o.y)*Voxel[1], px-float64(o.x)*Voxel[2]
						if dz*dz+dy*dy+dx*dx < cell*cell {
							ok = false
							break
						}
					}
				}
			}
		}
		if !ok {
			continue
		}
		grid[key(kz, ky, kx)] = append(grid[key(kz, ky, kx)], int32(len(b.cells)))
		b.cells = append(b.cells, c)
	}
	sort.Slice(b.cells, func(i, j int) bool {
		ci, cj := b.cells[i], b.cells[j]
		if ci.z != cj.z {
			return ci.z < cj.z
		}
		if ci.y != cj.y {
			return ci.y < cj.y
		}
		return ci.x < cj.x
	})
	b.byZ = make([][]int32, nz)
	reach := int(math.Ceil(4 * somaSigmaZ / Voxel[0]))
	for i, c := range b.cells {
		for z := max(c.z-reach, 0); z <= min(c.z+reach, nz-1); z++ {
			b.byZ[z] = append(b.byZ[z], int32(i))
		}
	}
}

// Info describes the volume.
func (b *Brain) Info() volume.Info { return b.info }

// Cells returns the true soma centres, z, y, x in voxels, sorted.
func (b *Brain) Cells() [][3]int {
	out := make([][3]int, len(b.cells))
	for i, c := range b.cells {
		out[i] = [3]int{c.z, c.y, c.x}
	}
	return out
}

// Plane renders plane z into dst (rows x cols values).
func (b *Brain) Plane(z int, dst []uint16) {
	ny, nx := b.info.Shape[1], b.info.Shape[2]
	f := make([]float32, ny*nx)
	// The sheet's intensity drifts slowly from plane to plane.
	gain := 1 + 0.08*math.Sin(float64(z)/9+float64(b.seed%7))
	for i, d := range b.inside {
		t := 1 / (1 + math.Exp(-float64(d)/6))
		f[i] = float32(brainBackground + t*gain*(brainTissue*(0.7+0.6*float64(b.auto[i]))-brainBackground))
	}
	rxy := int(math.Ceil(4 * somaSigmaXY / Voxel[1]))
	for _, j := range b.byZ[z] {
		c := b.cells[j]
		dz := float64(z-c.z) * Voxel[0]
		az := c.bright * math.Exp(-dz*dz/(2*somaSigmaZ*somaSigmaZ))
		for y := max(c.y-rxy, 0); y <= min(c.y+rxy, ny-1); y++ {
			dy := float64(y-c.y) * Voxel[1]
			for x := max(c.x-rxy, 0); x <= min(c.x+rxy, nx-1); x++ {
				dx := float64(x-c.x) * Voxel[2]
				f[y*nx+x] += float32(az * math.Exp(-(dy*dy+dx*dx)/(2*somaSigmaXY*somaSigmaXY)))
			}
		}
	}
	// Shot noise (Gaussian approximation of Poisson) plus read noise.
	rng := rand.New(rand.NewPCG(uint64(b.seed), uint64(z)+1))
	for i, v := range f {
		n := float64(v) + rng.NormFloat64()*(math.Sqrt(float64(v))+3)
		dst[i] = uint16(min(max(math.Round(n), 0), 65535))
	}
}

// ReadSlab renders planes [z0, z1) into dst, in parallel.
func (b *Brain) ReadSlab(z0, z1 int, dst []byte) error {
	if err := volume.CheckSlab(b.info, z0, z1, len(dst)); err != nil {
		return err
	}
	n := b.info.PlaneLen()
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for z := z0; z < z1; z++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(z int) {
			defer wg.Done()
			defer func() { <-sem }()
			plane := make([]uint16, n)
			b.Plane(z, plane)
			out := dst[(z-z0)*2*n : (z-z0+1)*2*n]
			for i, v := range plane {
				binary.LittleEndian.PutUint16(out[2*i:], v)
			}
		}(z)
	}
	wg.Wait()
	return nil
}

// Close does nothing.
func (b *Brain) Close() error { return nil }

// Volume wraps the brain as a lazily rendered volume.
func (b *Brain) Volume() *volume.Volume { return volume.New("demo brain", b) }
