package detect

import "math"

// kernelUpscale is the resolution at which cellfinder draws its binary
// ball before averaging it down into a fuzzy kernel.
const kernelUpscale = 7

// Kernel is a fuzzy ball kernel stored exactly: each weight counts the
// voxels of a binary sphere drawn at 7x resolution that fall in that voxel
// (cellfinder averages them, weight/343; counting keeps sums exact, so
// every backend and batch size agrees to the voxel).
type Kernel struct {
	Z, Y, X int
	// W holds the counts, [z][y][x].
	W []int32
	// Total is the sum of W.
	Total int64
}

// BallKernel makes the kernel of a ball of xy pixels and z planes: a
// sphere of radius 7·xy/2 (in upscaled voxels, on every axis) centred at
// floor(shape/2) of a (7·xy, 7·xy, 7·z) grid, binned by 7 on each axis.
func BallKernel(xy, z int) Kernel {
	k := Kernel{Z: z, Y: xy, X: xy, W: make([]int32, z*xy*xy)}
	nx, nz := kernelUpscale*xy, kernelUpscale*z
	cx, cz := float64(nx/2), float64(nz/2)
	r := float64(nx) / 2
	for iz := 0; iz < nz; iz++ {
		tz := (float64(iz) - cz) / r
		for iy := 0; iy < nx; iy++ {
			ty := (float64(iy) - cx) / r
			for ix := 0; ix < nx; ix++ {
				tx := (float64(ix) - cx) / r
				// Summed x, y, z as make_sphere accumulates its axes.
				d := tx * tx
				d += ty * ty
				d += tz * tz
				if d <= 1 {
					k.W[((iz/kernelUpscale)*xy+iy/kernelUpscale)*xy+ix/kernelUpscale]++
					k.Total++
				}
			}
		}
	}
	return k
}

// Threshold returns the largest weighted count that is not a centre for an
// overlap fraction: a voxel is a centre when its count exceeds
// overlap × total (cellfinder: sum > overlap·sum(kernel)).
func (k Kernel) Threshold(overlap float64) int64 {
	return int64(math.Floor(overlap * float64(k.Total)))
}

// ballParams returns the ball filter's parameters for a ring of ring planes of
// h x w.
func ballParams(b Ball, k Kernel, h, w, ring int) BallParams {
	return BallParams{
		H: h, W: w, KZ: k.Z, KY: k.Y, KX: k.X,
		Threshold: k.Threshold(b.Overlap),
		Ring:      ring,
		MidZ:      b.MidZ(), OffY: (k.Y - 1) / 2, OffX: (k.X - 1) / 2,
	}
}
