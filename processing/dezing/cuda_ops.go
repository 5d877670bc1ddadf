//go:build cuda

package dezing

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/voxlab/voxlab/gpu"
)

// The dezinging kernels on CUDA (dezing.cu, compiled to dezing.ptx by
// scripts/build-ptx.sh). They produce the same bits as the CPU kernels;
// cuda_ops_test.go checks it.

//go:embed dezing.ptx
var dezingPTX string

// cudaOps are the dezinging operations on a CUDA backend, whose module
// of dezing kernels is loaded.
type cudaOps struct{ c *gpu.CUDABackend }

func init() {
	cudaOpsFor = func(be gpu.Backend) (Ops, bool, error) {
		c, ok := be.(*gpu.CUDABackend)
		if !ok {
			return nil, false, nil
		}
		if err := c.LoadModule("dezing.ptx", dezingPTX); err != nil {
			return nil, true, fmt.Errorf("dezing: load the CUDA kernels: %w", err)
		}
		return cudaOps{c}, true, nil
	}
}

const (
	dzTileX, dzTileY = 32, 8 // DZ_TX, DZ_TY in dezing.cu
	dzThreads        = 256
)

// MedianScratch: the CUDA kernel works in shared memory only.
func (g cudaOps) MedianScratch(p MedianParams) int64 { return 0 }

// Median launches one thread per output voxel, in blocks of 32 x 8
// voxels of one plane that share a tile of the neighbourhood in shared
// memory.
func (g cudaOps) Median(dst, src, scratch *gpu.Buffer, p MedianParams) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	if err := g.c.CheckBuffer("median input", src, p.SrcBytes()); err != nil {
		return err
	}
	if err := g.c.CheckBuffer("median output", dst, p.DstBytes()); err != nil {
		return err
	}
	if p.N == 0 {
		return nil
	}
	r := p.Kernel / 2
	shared := (dzTileX + 2*r) * (dzTileY + 2*r) * p.Kernel * 4
	grid := [3]int{(p.Cols + dzTileX - 1) / dzTileX, (p.Rows + dzTileY - 1) / dzTileY, p.N}
	block := [3]int{dzTileX, dzTileY, 1}
	d, s := gpu.DevPtr(dst, 0), gpu.DevPtr(src, 0)
	planes, rows, cols, z0, k := int32(p.Planes), int32(p.Rows), int32(p.Cols), int32(p.Z0), int32(p.Kernel)
	if p.Float32 {
		dif := float32(p.Dif)
		return g.c.Launch("dezing_median_f32", grid, block, shared,
			unsafe.Pointer(&d), unsafe.Pointer(&s), unsafe.Pointer(&planes), unsafe.Pointer(&rows),
			unsafe.Pointer(&cols), unsafe.Pointer(&z0), unsafe.Pointer(&k), unsafe.Pointer(&dif))
	}
	thr := int32(min(math.Ceil(p.Dif), 1<<17))
	return g.c.Launch("dezing_median_u16", grid, block, shared,
		unsafe.Pointer(&d), unsafe.Pointer(&s), unsafe.Pointer(&planes), unsafe.Pointer(&rows),
		unsafe.Pointer(&cols), unsafe.Pointer(&z0), unsafe.Pointer(&k), unsafe.Pointer(&thr))
}

// ReduceScratch: none; the median selects straight from the frames.
func (g cudaOps) ReduceScratch(p ReduceParams) int64 { return 0 }

// Reduce launches one thread per pixel (grid-stride).
func (g cudaOps) Reduce(dst, src, scratch *gpu.Buffer, p ReduceParams) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	es := int64(2)
	name := "dezing_mean_u16"
	switch {
	case p.Median && p.Float32:
		name, es = "dezing_fmedian_f32", 4
	case p.Median:
		name = "dezing_fmedian_u16"
	case p.Float32:
		name, es = "dezing_mean_f32", 4
	}
	if err := g.c.CheckBuffer("reduce input", src, int64(p.Frames)*int64(p.Pixels)*es); err != nil {
		return err
	}
	if err := g.c.CheckBuffer("reduce output", dst, int64(p.Pixels)*4); err != nil {
		return err
	}
	d, s := gpu.DevPtr(dst, 0), gpu.DevPtr(src, 0)
	frames, pixels := int32(p.Frames), int64(p.Pixels)
	return g.c.Launch(name, dzGrid(int64(p.Pixels)), [3]int{dzThreads, 1, 1}, 0,
		unsafe.Pointer(&d), unsafe.Pointer(&s), unsafe.Pointer(&frames), unsafe.Pointer(&pixels))
}

// FlatFieldScratch: one 8-byte counter of clipped values.
func (g cudaOps) FlatFieldScratch(p FlatFieldParams) int64 { return 8 }

// FlatField launches one thread per value (grid-stride) and reads back
// the clipped count.
func (g cudaOps) FlatField(dst, src, dark, flat, scratch *gpu.Buffer, p FlatFieldParams) (int64, error) {
	if err := p.Validate(); err != nil {
		return 0, fmt.Errorf("cuda: %w", err)
	}
	es := int64(2)
	name := "dezing_flat_u16"
	if p.Float32 {
		name, es = "dezing_flat_f32", 4
	}
	n := int64(p.Frames) * int64(p.Pixels)
	for _, b := range []struct {
		what string
		buf  *gpu.Buffer
		n    int64
	}{{"flat-field input", src, n * es}, {"flat-field output", dst, n * 4}, {"dark frame", dark, int64(p.Pixels) * 4},
		{"flat frame", flat, int64(p.Pixels) * 4}, {"flat-field counter", scratch, 8}} {
		if err := g.c.CheckBuffer(b.what, b.buf, b.n); err != nil {
			return 0, err
		}
	}
	var zero [8]byte
	if err := g.c.Upload(scratch, 0, zero[:]); err != nil {
		return 0, err
	}
	d, s, dk, fl, cnt := gpu.DevPtr(dst, 0), gpu.DevPtr(src, 0), gpu.DevPtr(dark, 0), gpu.DevPtr(flat, 0), gpu.DevPtr(scratch, 0)
	frames, pixels := int32(p.Frames), int64(p.Pixels)
	low, high := p.Low, p.High
	var ml int32
	if p.MinusLog {
		ml = 1
	}
	err := g.c.Launch(name, dzGrid(n), [3]int{dzThreads, 1, 1}, 0,
		unsafe.Pointer(&d), unsafe.Pointer(&s), unsafe.Pointer(&dk), unsafe.Pointer(&fl),
		unsafe.Pointer(&frames), unsafe.Pointer(&pixels), unsafe.Pointer(&low), unsafe.Pointer(&high),
		unsafe.Pointer(&ml), unsafe.Pointer(&cnt))
	if err != nil {
		return 0, err
	}
	var out [8]byte
	if err := g.c.Download(out[:], scratch, 0); err != nil {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint64(out[:])), nil
}

// dzGrid is a grid-stride launch's block count for n items.
func dzGrid(n int64) [3]int {
	b := (n + dzThreads - 1) / dzThreads
	return [3]int{int(max(1, min(b, 65535))), 1, 1}
}
