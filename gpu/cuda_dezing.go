//go:build cuda

package gpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"
)

// The dezinging kernels on CUDA (gpu/kernels/dezing.cu). They produce the
// same bits as the CPU backend's; gpu/cuda_dezing_test.go checks it.

const (
	dzTileX, dzTileY = 32, 8 // DZ_TX, DZ_TY in dezing.cu
	dzThreads        = 256
)

// DezingMedianScratch: the CUDA kernel works in shared memory only.
func (c *CUDABackend) DezingMedianScratch(p DezingMedianParams) int64 { return 0 }

// DezingMedian launches one thread per output voxel, in blocks of 32 x 8
// voxels of one plane that share a tile of the neighbourhood in shared
// memory.
func (c *CUDABackend) DezingMedian(dst, src, scratch *Buffer, p DezingMedianParams) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	if err := c.dzCheck("median input", src, p.SrcBytes()); err != nil {
		return err
	}
	if err := c.dzCheck("median output", dst, p.DstBytes()); err != nil {
		return err
	}
	if p.N == 0 {
		return nil
	}
	r := p.Kernel / 2
	shared := (dzTileX + 2*r) * (dzTileY + 2*r) * p.Kernel * 4
	grid := [3]int{(p.Cols + dzTileX - 1) / dzTileX, (p.Rows + dzTileY - 1) / dzTileY, p.N}
	block := [3]int{dzTileX, dzTileY, 1}
	d, s := ptr(dst), ptr(src)
	planes, rows, cols, z0, k := int32(p.Planes), int32(p.Rows), int32(p.Cols), int32(p.Z0), int32(p.Kernel)
	if p.Float32 {
		dif := float32(p.Dif)
		return c.launch("dezing_median_f32", grid, block, shared,
			unsafe.Pointer(&d), unsafe.Pointer(&s), unsafe.Pointer(&planes), unsafe.Pointer(&rows),
			unsafe.Pointer(&cols), unsafe.Pointer(&z0), unsafe.Pointer(&k), unsafe.Pointer(&dif))
	}
	thr := int32(min(math.Ceil(p.Dif), 1<<17))
	return c.launch("dezing_median_u16", grid, block, shared,
		unsafe.Pointer(&d), unsafe.Pointer(&s), unsafe.Pointer(&planes), unsafe.Pointer(&rows),
		unsafe.Pointer(&cols), unsafe.Pointer(&z0), unsafe.Pointer(&k), unsafe.Pointer(&thr))
}

// DezingReduceScratch: none; the median selects straight from the frames.
func (c *CUDABackend) DezingReduceScratch(p DezingReduceParams) int64 { return 0 }

// DezingReduce launches one thread per pixel (grid-stride).
func (c *CUDABackend) DezingReduce(dst, src, scratch *Buffer, p DezingReduceParams) error {
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
	if err := c.dzCheck("reduce input", src, int64(p.Frames)*int64(p.Pixels)*es); err != nil {
		return err
	}
	if err := c.dzCheck("reduce output", dst, int64(p.Pixels)*4); err != nil {
		return err
	}
	d, s := ptr(dst), ptr(src)
	frames, pixels := int32(p.Frames), int64(p.Pixels)
	return c.launch(name, dzGrid(int64(p.Pixels)), [3]int{dzThreads, 1, 1}, 0,
		unsafe.Pointer(&d), unsafe.Pointer(&s), unsafe.Pointer(&frames), unsafe.Pointer(&pixels))
}

// DezingFlatFieldScratch: one 8-byte counter of clipped values.
func (c *CUDABackend) DezingFlatFieldScratch(p DezingFlatFieldParams) int64 { return 8 }

// DezingFlatField launches one thread per value (grid-stride) and reads
// back the clipped count.
func (c *CUDABackend) DezingFlatField(dst, src, dark, flat, scratch *Buffer, p DezingFlatFieldParams) (int64, error) {
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
		buf  *Buffer
		n    int64
	}{{"flat-field input", src, n * es}, {"flat-field output", dst, n * 4}, {"dark frame", dark, int64(p.Pixels) * 4},
		{"flat frame", flat, int64(p.Pixels) * 4}, {"flat-field counter", scratch, 8}} {
		if err := c.dzCheck(b.what, b.buf, b.n); err != nil {
			return 0, err
		}
	}
	var zero [8]byte
	if err := c.Upload(scratch, 0, zero[:]); err != nil {
		return 0, err
	}
	d, s, dk, fl, cnt := ptr(dst), ptr(src), ptr(dark), ptr(flat), ptr(scratch)
	frames, pixels := int32(p.Frames), int64(p.Pixels)
	low, high := p.Low, p.High
	var ml int32
	if p.MinusLog {
		ml = 1
	}
	err := c.launch(name, dzGrid(n), [3]int{dzThreads, 1, 1}, 0,
		unsafe.Pointer(&d), unsafe.Pointer(&s), unsafe.Pointer(&dk), unsafe.Pointer(&fl),
		unsafe.Pointer(&frames), unsafe.Pointer(&pixels), unsafe.Pointer(&low), unsafe.Pointer(&high),
		unsafe.Pointer(&ml), unsafe.Pointer(&cnt))
	if err != nil {
		return 0, err
	}
	var out [8]byte
	if err := c.Download(out[:], scratch, 0); err != nil {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint64(out[:])), nil
}

// dzGrid is a grid-stride launch's block count for n items.
func dzGrid(n int64) [3]int {
	b := (n + dzThreads - 1) / dzThreads
	return [3]int{int(max(1, min(b, 65535))), 1, 1}
}

func (c *CUDABackend) dzCheck(what string, b *Buffer, n int64) error {
	if b == nil {
		return fmt.Errorf("cuda: %s: no buffer", what)
	}
	if _, err := c.state(what, b, 0, int(n)); err != nil {
		return err
	}
	return nil
}
