package reconstruct

import (
	"context"
	"runtime"
	"unsafe"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/processing/zinger"
)

// Dezinging in the chain (--dezing): remove_outlier, the 3D median
// outlier filter of httomolibgpu's misc/corr.py that the dezing
// pipeline applies (processing/zinger's CPU kernel, the same bits), on
// the projections, the darks and the flats, each as its own stack,
// fused into the run: no intermediate file.
//
// The projections are filtered over (projection, detector row, column)
// as dezing filters them. A block of detector rows is read with
// Kernel/2 halo rows above and below (fewer only at the detector's
// edges), filtered whole and the halo discarded, so that every kept row
// sees the neighbourhood it has in the whole scan: the result does not
// depend on the block of rows.

// DezingParams are remove_outlier's settings: the side of the median
// cube (odd, 3 to 13) and the threshold in the data's units.
type DezingParams struct {
	Kernel int     `json:"kernel"`
	Dif    float64 `json:"dif"`
}

// halo is the rows a block needs on each side (0 without --dezing).
func (c Config) halo() int {
	if c.Dezing == nil {
		return 0
	}
	return c.Dezing.Kernel / 2
}

// dezingStack writes remove_outlier of the planes × rows × cols float32
// stack src into dst (same shape, not overlapping src).
func dezingStack(ctx context.Context, dst, src []float32, planes, rows, cols int, p DezingParams) error {
	return dezingPlanes(ctx, dst, src, planes, rows, cols, 0, planes, p)
}

// dezingPlanes writes remove_outlier of planes [z0, z0+n) of the stack
// src into dst (n planes). The kernel stops between rows once ctx is
// done (a CPU backend bound to ctx gives it the Work that does), so a
// cancel lands within a row, not a block.
func dezingPlanes(ctx context.Context, dst, src []float32, planes, rows, cols, z0, n int, p DezingParams) error {
	if len(src) == 0 || n == 0 {
		return ctx.Err()
	}
	mp := zinger.MedianParams{Float32: true, Planes: planes, Rows: rows, Cols: cols, Z0: z0, N: n, Kernel: p.Kernel, Dif: p.Dif}
	be := gpu.NewCPU()
	unbind := be.Bind(ctx, nil)
	defer unbind()
	workers := be.Workers()
	per := zinger.WorkerScratch(p.Kernel, cols)
	scratch := make([]uint32, workers*per)
	wk := be.Begin(int64(n) * int64(rows))
	zinger.Median(bitsOf(dst), bitsOf(src), scratch, mp, per, workers, wk)
	if err := wk.Err(); err != nil {
		return err
	}
	return ctx.Err()
}

// bitsOf views float32s as their bits, the median's float32 elements.
func bitsOf(f []float32) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(f))), len(f))
}

// dezingScratch is what dezingStack holds besides its input and output.
func dezingScratch(p DezingParams, cols int) int64 {
	return int64(runtime.GOMAXPROCS(0)) * int64(zinger.WorkerScratch(p.Kernel, cols)) * 4
}

// dezingRows filters a block read as rows [ry0, ry1) of every projection
// (raw, the scan's type) and returns rows [y0, y1) of the result as
// float32 bytes (projection, row, column), reusing j's buffers.
func (j *reconJob) dezingRows(ctx context.Context, raw []byte, ry0, ry1, y0, y1 int) ([]byte, error) {
	nr, nc := ry1-ry0, j.cols
	n := j.nproj * nr * nc
	j.dzIn, j.dzOut = grow(j.dzIn, n), grow(j.dzOut, n)
	volume.ToFloat32(j.dzIn, raw[:n*j.s.proj.DType.Size()], j.s.proj.DType)
	if err := dezingStack(ctx, j.dzOut, j.dzIn, j.nproj, nr, nc, *j.cfg.Dezing); err != nil {
		return nil, err
	}
	kept := y1 - y0
	for p := 0; p < j.nproj; p++ {
		// In place: row block p of the kept rows lies at or before its source.
		copy(j.dzOut[p*kept*nc:(p+1)*kept*nc], j.dzOut[(p*nr+y0-ry0)*nc:(p*nr+y1-ry0)*nc])
	}
	return volume.Bytes(j.dzOut[:j.nproj*kept*nc]), nil
}

// grow returns s with length n, reallocated only when too short.
func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// dezingedMean is the per-pixel mean of v's frames after remove_outlier
// of the whole stack (read at once: darks and flats are few frames).
func dezingedMean(ctx context.Context, p *job.Progress, v *volume.Volume, rows, cols int, dz DezingParams) ([]float32, error) {
	n, frame := v.Shape[0], rows*cols
	raw := make([]byte, int64(n)*int64(frame)*int64(v.DType.Size()))
	if err := v.ReadSlab(0, n, raw); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in, out := make([]float32, n*frame), make([]float32, n*frame)
	volume.ToFloat32(in, raw, v.DType)
	if err := dezingStack(ctx, out, in, n, rows, cols, dz); err != nil {
		return nil, err
	}
	mean := make([]float32, frame)
	for i := range mean {
		var s float64
		for z := 0; z < n; z++ {
			s += float64(out[z*frame+i])
		}
		mean[i] = float32(s / float64(n))
	}
	p.Add(int64(n))
	return mean, nil
}

// projWindow reads whole projections for --paganin with --dezing: the
// kernel's projections around each one (clamped to the scan, as
// mode='nearest'), each read once and kept in a ring of Kernel frames,
// so that projection z is dezinged over its neighbours as a block of
// rows is.
type projWindow struct {
	j     *reconJob
	raw   []byte
	ring  [][]float32
	held  []int // the projection in each slot of ring (-1: none)
	block []float32
}

func newProjWindow(j *reconJob) *projWindow {
	k, frame := j.cfg.Dezing.Kernel, j.rows*j.cols
	w := &projWindow{j: j, raw: make([]byte, j.s.proj.PlaneBytes()), block: make([]float32, k*frame)}
	for i := 0; i < k; i++ {
		w.ring, w.held = append(w.ring, make([]float32, frame)), append(w.held, -1)
	}
	return w
}

// dezinged writes projection z, dezinged, into dst (one frame).
func (w *projWindow) dezinged(ctx context.Context, dst []float32, z int) error {
	j, k := w.j, len(w.ring)
	frame, h := j.rows*j.cols, k/2
	for d := 0; d < k; d++ {
		p := min(max(z-h+d, 0), j.nproj-1)
		slot := p % k
		if w.held[slot] != p {
			if err := j.s.proj.ReadSlab(p, p+1, w.raw); err != nil {
				return err
			}
			volume.ToFloat32(w.ring[slot], w.raw, j.s.proj.DType)
			w.held[slot] = p
		}
		copy(w.block[d*frame:(d+1)*frame], w.ring[slot])
	}
	return dezingPlanes(ctx, dst, w.block, k, j.rows, j.cols, h, 1, *j.cfg.Dezing)
}
