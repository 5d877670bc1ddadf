package detect

import (
	"fmt"

	"github.com/voxlab/voxlab/gpu"
)

// maxSplitVoxels bounds the padded bounding box a cluster is split in
// (cellfinder has no bound, and users report splitting taking 10–15 GB);
// a larger cluster keeps its single centre and a warning is given.
const maxSplitVoxels = 1 << 25

// splitter splits clusters by repeated ball filtering on the host. It
// uses its own single-threaded CPU backend so that its small, short-lived
// buffers do not count against the pipeline's device memory.
type splitter struct {
	ball Ball
	k    gpu.DetectBallParams
	kern Kernel
	iter int
	be   *gpu.CPUBackend
}

func newSplitter(p *Params) *splitter {
	k := BallKernel(p.Split.XY, p.Split.Z)
	return &splitter{ball: p.Split, kern: k, k: ballParams(p.Split, k, 0, 0, 0),
		iter: p.SplitIterations, be: gpu.NewCPUWorkers(1)}
}

// split returns the centres of the cells of a cluster, following
// cellfinder's split_cells: the cluster's voxels are drawn into their
// bounding box padded so the ball fits around every voxel, the ball filter
// is run and its centres become the next round's voxels (an erosion),
// up to iter rounds or until none is left; the round with the most
// structures wins (the first of equals), its structures' centres moved
// back into the box. With at most one structure in every round the
// cluster's own centre is kept. ok is false when the box was too large to
// split.
func (s *splitter) split(pts []point) (centres []point, ok bool, err error) {
	z, y, x := centre(pts)
	own := []point{{int32(z), int32(y), int32(x)}}
	lo, hi := pts[0], pts[0]
	for _, p := range pts {
		lo = point{min(lo.z, p.z), min(lo.y, p.y), min(lo.x, p.x)}
		hi = point{max(hi.z, p.z), max(hi.y, p.y), max(hi.x, p.x)}
	}
	k := s.k
	padZ, padY, padX := k.MidZ, k.OffY, k.OffX
	nz := int(hi.z-lo.z) + k.KZ
	ny := int(hi.y-lo.y) + k.KY
	nx := int(hi.x-lo.x) + k.KX
	if int64(nz)*int64(ny)*int64(nx) > maxSplitVoxels {
		return own, false, nil
	}
	plane := ny * nx
	vol, err := s.be.Alloc("split volume", int64(nz*plane))
	if err != nil {
		return nil, false, err
	}
	defer s.be.Free(vol)
	count := nz - k.KZ + 1
	out, err := s.be.Alloc("split centres", int64(count*plane))
	if err != nil {
		return nil, false, err
	}
	defer s.be.Free(out)
	w, err := s.be.Alloc("split kernel", int64(4*len(s.kern.W)))
	if err != nil {
		return nil, false, err
	}
	defer s.be.Free(w)
	copy(w.HostBytes(), int32Bytes(s.kern.W))
	m := vol.HostBytes()
	for _, p := range pts {
		m[(int(p.z-lo.z)+padZ)*plane+(int(p.y-lo.y)+padY)*nx+int(p.x-lo.x)+padX] = 1
	}
	k.H, k.W, k.Ring, k.First, k.Count = ny, nx, nz, 0, count
	best, bestN := own, 1
	for it := 0; it < s.iter; it++ {
		if err := s.be.DetectBall(out, vol, nil, w, &k); err != nil {
			return nil, false, fmt.Errorf("split a cluster of %d voxels: %w", len(pts), err)
		}
		d := newDetector(ny, nx)
		var structs [][]point
		flags := out.HostBytes()
		for i := 0; i < count; i++ {
			structs = append(structs, d.plane(padZ+i, flags[i*plane:(i+1)*plane])...)
		}
		structs = append(structs, d.flush()...)
		if len(structs) > bestN {
			bestN = len(structs)
			best = best[:0:0]
			for _, st := range structs {
				cz, cy, cx := centre(st)
				best = append(best, point{
					lo.z + int32(clampInt(cz-padZ, 0, int(hi.z-lo.z))),
					lo.y + int32(clampInt(cy-padY, 0, int(hi.y-lo.y))),
					lo.x + int32(clampInt(cx-padX, 0, int(hi.x-lo.x))),
				})
			}
		}
		if len(structs) == 0 {
			break
		}
		// The centres are the next round's voxels.
		clear(m)
		for i := 0; i < count; i++ {
			copy(m[(padZ+i)*plane:(padZ+i+1)*plane], flags[i*plane:(i+1)*plane])
		}
	}
	return best, true, nil
}

func clampInt(v, lo, hi int) int { return min(max(v, lo), hi) }
