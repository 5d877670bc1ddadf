package detect

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/voxlab/voxlab/processing/plan"
)

// maxSplitVoxels bounds the padded bounding box a cluster is split in
// (cellfinder has no bound, and users report splitting taking 10–15 GB);
// a larger cluster keeps its single centre and a warning is given.
const maxSplitVoxels = 1 << 25

// splitter splits clusters by repeated ball filtering on the host, on one
// core, with the CPU kernel (filterBall) whatever the pipeline's backend: its
// small, short-lived arrays are host memory, counted in mem, not in the
// pipeline's device memory.
type splitter struct {
	ball Ball
	k    BallParams
	kern Kernel
	iter int
	mem  *plan.Tracker
}

// newSplitter returns a splitter whose buffers are counted in mem (nil:
// not counted).
func newSplitter(p *Params, mem *plan.Tracker) *splitter {
	k := BallKernel(p.Split.XY, p.Split.Z)
	return &splitter{ball: p.Split, kern: k, k: ballParams(p.Split, k, 0, 0, 0),
		iter: p.SplitIterations, mem: mem}
}

// splitBox returns the shape of the box a cluster spanning n voxels
// along z, y, x (its bounding box) is split in: padded so the ball fits
// around every voxel.
func splitBox(k *BallParams, nz, ny, nx int) (int, int, int) {
	return nz + k.KZ - 1, ny + k.KY - 1, nx + k.KX - 1
}

// splitBytes bounds the memory of splitting one cluster of a volume of
// p's shape: a ring of KZ mask planes of the padded box and one plane of
// centre flags (split streams the box through them), the two label
// planes of its structures and its voxel lists. A box plane has at most
// the padded plane's pixels, and at most maxSplitVoxels/KZ.
func splitBytes(p *Params) int64 {
	k := BallKernel(p.Split.XY, p.Split.Z)
	kp := ballParams(p.Split, k, 0, 0, 0)
	_, ny, nx := splitBox(&kp, p.Planes(), p.Shape[1], p.Shape[2])
	pl := min(int64(ny)*int64(nx), maxSplitVoxels/int64(kp.KZ))
	return pl*int64(kp.KZ+1) + labelPlanesBytes(1, 1)*pl + splitStructureBytes(p)
}

// splitStructureBytes bounds the voxel lists and union-find arrays of a
// split's structures, per voxel of the largest cluster split (under the
// max cluster size; a round's centres lie where most of the ball fits
// inside the cluster, so there are about as many): the round's voxel list
// and the centres' lists, each up to twice its length as lists grow, a
// label per voxel at worst (parent, list header and last plane), and the
// label planes' sets.
func splitStructureBytes(p *Params) int64 {
	perVoxel := 2*pointBytes + 2*pointBytes + 2*(listBytes+8) + 2*2*4
	return perVoxel * int64(p.MaxCluster)
}

// split returns the centres of the cells of a cluster, following
// cellfinder's split_cells: the cluster's voxels are drawn into their
// bounding box padded so the ball fits around every voxel, the ball filter
// is run and its centres become the next round's voxels (an erosion),
// up to iter rounds or until none is left; the round with the most
// structures wins (the first of equals), its structures' centres moved
// back into the box. With at most one structure in every round the
// cluster's own centre is kept. ok is false when the box was too large to
// split. The box is never held whole: each round streams its planes
// through a ring of ball-z mask planes, drawn from the round's voxels.
func (s *splitter) split(pts []point) (centres []point, ok bool, err error) {
	z, y, x := centre(pts)
	own := []point{{int32(z), int32(y), int32(x)}}
	lo, hi := bounds(pts)
	k := s.k
	padZ, padY, padX := int32(k.MidZ), int32(k.OffY), int32(k.OffX)
	nz, ny, nx := splitBox(&k, int(hi.z-lo.z)+1, int(hi.y-lo.y)+1, int(hi.x-lo.x)+1)
	if int64(nz)*int64(ny)*int64(nx) > maxSplitVoxels {
		return own, false, nil
	}
	plane := int64(ny * nx)
	ring := s.mem.Bytes("split mask ring", int64(k.KZ)*plane)
	defer s.mem.Free("split mask ring", ring)
	out := s.mem.Bytes("split centres", plane)
	defer s.mem.Free("split centres", out)
	k.H, k.W, k.Ring, k.Count = ny, nx, k.KZ, 1
	// The round's voxels in box coordinates, sorted by plane.
	vox := make([]point, len(pts))
	for i, p := range pts {
		vox[i] = point{p.z - lo.z + padZ, p.y - lo.y + padY, p.x - lo.x + padX}
	}
	s.mem.Add("split voxels", int64(cap(vox))*pointBytes)
	defer func() { s.mem.Add("split voxels", -int64(cap(vox))*pointBytes) }()
	best, bestN := own, 1
	d := newDetector(ny, nx, s.mem, "split structure labels")
	defer d.release()
	for it := 0; it < s.iter; it++ {
		structs, err := s.round(d, vox, ring, out, &k, nz)
		if err != nil {
			return nil, false, fmt.Errorf("split a cluster of %d voxels: %w", len(pts), err)
		}
		if len(structs) > bestN {
			bestN = len(structs)
			best = best[:0:0]
			for _, st := range structs {
				cz, cy, cx := centre(st)
				best = append(best, point{
					lo.z + int32(clampInt(cz-int(padZ), 0, int(hi.z-lo.z))),
					lo.y + int32(clampInt(cy-int(padY), 0, int(hi.y-lo.y))),
					lo.x + int32(clampInt(cx-int(padX), 0, int(hi.x-lo.x))),
				})
			}
		}
		if len(structs) == 0 {
			break
		}
		// The centres are the next round's voxels.
		c := cap(vox)
		vox = vox[:0]
		for _, st := range structs {
			vox = append(vox, st...)
		}
		s.mem.Add("split voxels", int64(cap(vox)-c)*pointBytes)
	}
	return best, true, nil
}

// round runs one round of a split: the ball filter over the nz planes of
// the box holding vox, streamed through the ring of KZ mask planes (box
// plane j in slot j mod KZ), one window per call, and the structures of
// its centres (box plane MidZ + i for window i).
func (s *splitter) round(d *detector, vox []point, m, out []byte, k *BallParams, nz int) ([][]point, error) {
	slices.SortFunc(vox, func(a, b point) int { return cmp.Compare(a.z, b.z) })
	plane := k.H * k.W
	next := 0
	draw := func(j int) {
		slot := m[(j%k.KZ)*plane : (j%k.KZ+1)*plane]
		clear(slot)
		for ; next < len(vox) && int(vox[next].z) == j; next++ {
			slot[int(vox[next].y)*k.W+int(vox[next].x)] = 1
		}
	}
	for j := 0; j < k.KZ-1; j++ {
		draw(j)
	}
	d.reset()
	var structs [][]point
	for i := 0; i+k.KZ <= nz; i++ {
		draw(i + k.KZ - 1)
		k.First = i % k.KZ
		if err := filterBall(out, m, nil, s.kern.W, k, 1, nil); err != nil {
			return nil, err
		}
		structs = append(structs, d.plane(k.MidZ+i, out)...)
	}
	return append(structs, d.flush()...), nil
}

func clampInt(v, lo, hi int) int { return min(max(v, lo), hi) }

// bounds returns the corners of the smallest box holding pts (not
// empty), both inclusive.
func bounds(pts []point) (lo, hi point) {
	lo, hi = pts[0], pts[0]
	for _, p := range pts {
		lo = point{min(lo.z, p.z), min(lo.y, p.y), min(lo.x, p.x)}
		hi = point{max(hi.z, p.z), max(hi.y, p.y), max(hi.x, p.x)}
	}
	return lo, hi
}
