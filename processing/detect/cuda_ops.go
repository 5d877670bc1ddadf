//go:build cuda

package detect

import (
	_ "embed"
	"fmt"
	"unsafe"

	"github.com/voxlab/voxlab/gpu"
)

// detectPTX is detect.cu compiled by scripts/build-ptx.sh (go generate).
//
//go:embed detect.ptx
var detectPTX string

func init() {
	cudaOpsFor = func(be gpu.Backend) (Ops, bool, error) {
		c, ok := be.(*gpu.CUDABackend)
		if !ok {
			return nil, false, nil
		}
		if err := c.LoadModule("detect.ptx", detectPTX); err != nil {
			return nil, true, fmt.Errorf("detect: load the CUDA kernels: %w", err)
		}
		return cudaKernels{c}, true, nil
	}
}

// cudaKernels are the Ops of the CUDA backend: the detect_* kernels of
// detect.cu.
type cudaKernels struct{ c *gpu.CUDABackend }

// checkDevice is the rangeCheck of the CUDA buffers of c.
func (k cudaKernels) checkDevice(op string, b *gpu.Buffer, off int64, n int) error {
	if off < 0 {
		return fmt.Errorf("%s: negative offset %d", op, off)
	}
	return k.c.CheckBuffer(op, b, off+int64(n))
}

// detectTX and detectTY are DETECT_TX and DETECT_TY of detect.cu.
const (
	detectTX = 32
	detectTY = 8
)

func grid2(w, h int) [3]int {
	return [3]int{(w + detectTX - 1) / detectTX, (h + detectTY - 1) / detectTY, 1}
}

func grid1(n, threads int) [3]int { return [3]int{max((n+threads-1)/threads, 1), 1, 1} }

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// Plane runs the 2D stage with the detect_* kernels (see Ops):
// median, vertical Gaussian, horizontal Gaussian + Laplacian, row sums,
// statistics, optional local tiles, threshold, in-brain tiles.
func (k cudaKernels) Plane(src *gpu.Buffer, srcOff int64, work, mask *gpu.Buffer, maskOff int64, tiles *gpu.Buffer, tilesOff int64, p *PlaneParams) error {
	if err := checkPlane(k.checkDevice, src, srcOff, work, mask, maskOff, tiles, tilesOff, p); err != nil {
		return err
	}
	lay := WorkLayout(p)
	S, A, T, E := gpu.DevPtr(src, srcOff), gpu.DevPtr(work, lay.A), gpu.DevPtr(work, lay.T), gpu.DevPtr(work, lay.E)
	rows, stats, gauss, seg, lthr := gpu.DevPtr(work, lay.Rows), gpu.DevPtr(work, lay.Stats), gpu.DevPtr(work, lay.Gauss), gpu.DevPtr(work, lay.Seg), gpu.DevPtr(work, lay.LocalThr)
	M, TL := gpu.DevPtr(mask, maskOff), gpu.DevPtr(tiles, tilesOff)
	eb, h, wd, clip, r := int32(p.ElemBytes), int32(p.H), int32(p.W), int32(p.Clip), int32(p.Radius)
	nsd := p.NSD
	one := [3]int{1, 1, 1}
	blk := [3]int{detectTX, detectTY, 1}
	g2 := grid2(p.W, p.H)
	steps := []struct {
		name        string
		grid, block [3]int
		args        []unsafe.Pointer
	}{
		{"detect_init", one, one, []unsafe.Pointer{unsafe.Pointer(&stats)}},
		{"detect_median", g2, blk, []unsafe.Pointer{unsafe.Pointer(&S), unsafe.Pointer(&eb), unsafe.Pointer(&h), unsafe.Pointer(&wd), unsafe.Pointer(&clip), unsafe.Pointer(&A), unsafe.Pointer(&stats)}},
		{"detect_gauss_v", g2, blk, []unsafe.Pointer{unsafe.Pointer(&A), unsafe.Pointer(&T), unsafe.Pointer(&stats), unsafe.Pointer(&gauss), unsafe.Pointer(&r), unsafe.Pointer(&h), unsafe.Pointer(&wd)}},
		{"detect_gauss_h_laplace", g2, blk, []unsafe.Pointer{unsafe.Pointer(&T), unsafe.Pointer(&E), unsafe.Pointer(&gauss), unsafe.Pointer(&r), unsafe.Pointer(&h), unsafe.Pointer(&wd)}},
		{"detect_rowstats", grid1(p.H, 128), [3]int{128, 1, 1}, []unsafe.Pointer{unsafe.Pointer(&E), unsafe.Pointer(&rows), unsafe.Pointer(&h), unsafe.Pointer(&wd)}},
		{"detect_stats", one, one, []unsafe.Pointer{unsafe.Pointer(&rows), unsafe.Pointer(&stats), unsafe.Pointer(&h), unsafe.Pointer(&wd), unsafe.Pointer(&nsd)}},
	}
	for _, s := range steps {
		if err := k.c.Launch(s.name, s.grid, s.block, 0, s.args...); err != nil {
			return err
		}
	}
	lt := p.localTiles()
	on, doY, doX := b2i(lt.On), b2i(lt.DoY), b2i(lt.DoX)
	segsY, segsX, offY, offX, lenY, lenX := int32(lt.SegsY), int32(lt.SegsX), int32(lt.OffY), int32(lt.OffX), int32(lt.SegLenY), int32(lt.SegLenX)
	tilesY, tilesX, shiftY, shiftX, stride := int32(lt.TilesY), int32(lt.TilesX), int32(lt.ShiftY), int32(lt.ShiftX), int32(lt.Stride)
	if lt.On {
		lnsd := p.LocalNSD
		if err := k.c.Launch("detect_segsum", grid1(lt.SegsY*lt.SegsX, 128), [3]int{128, 1, 1}, 0,
			unsafe.Pointer(&E), unsafe.Pointer(&seg), unsafe.Pointer(&h), unsafe.Pointer(&wd), unsafe.Pointer(&segsY), unsafe.Pointer(&segsX),
			unsafe.Pointer(&offY), unsafe.Pointer(&offX), unsafe.Pointer(&lenY), unsafe.Pointer(&lenX)); err != nil {
			return err
		}
		if err := k.c.Launch("detect_localthr", grid1(lt.TilesY*lt.TilesX, 128), [3]int{128, 1, 1}, 0,
			unsafe.Pointer(&seg), unsafe.Pointer(&lthr), unsafe.Pointer(&h), unsafe.Pointer(&wd), unsafe.Pointer(&tilesY), unsafe.Pointer(&tilesX),
			unsafe.Pointer(&segsX), unsafe.Pointer(&offY), unsafe.Pointer(&offX), unsafe.Pointer(&lenY), unsafe.Pointer(&lenX),
			unsafe.Pointer(&doY), unsafe.Pointer(&doX), unsafe.Pointer(&lnsd)); err != nil {
			return err
		}
	}
	if err := k.c.Launch("detect_threshold", g2, blk, 0,
		unsafe.Pointer(&E), unsafe.Pointer(&M), unsafe.Pointer(&stats), unsafe.Pointer(&lthr), unsafe.Pointer(&h), unsafe.Pointer(&wd),
		unsafe.Pointer(&on), unsafe.Pointer(&doY), unsafe.Pointer(&doX), unsafe.Pointer(&shiftY), unsafe.Pointer(&shiftX),
		unsafe.Pointer(&stride), unsafe.Pointer(&tilesY), unsafe.Pointer(&tilesX)); err != nil {
		return err
	}
	bt := int32(p.BrainTile)
	nty, ntx := p.BrainTiles()
	bty, btx := int32(nty), int32(ntx)
	return k.c.Launch("detect_brain", grid1(nty*ntx, 128), [3]int{128, 1, 1}, 0,
		unsafe.Pointer(&S), unsafe.Pointer(&eb), unsafe.Pointer(&h), unsafe.Pointer(&wd), unsafe.Pointer(&clip), unsafe.Pointer(&bt),
		unsafe.Pointer(&TL), unsafe.Pointer(&bty), unsafe.Pointer(&btx), unsafe.Pointer(&stats))
}

// Ball runs detect_ball: one 32x8 block per tile of a middle plane
// (grid z: the middle planes), the window's planes read through a shared
// tile with the kernel's halo.
func (k cudaKernels) Ball(dst, masks, tiles, weights *gpu.Buffer, p *BallParams) error {
	if err := checkBall(k.checkDevice, dst, masks, tiles, weights, p); err != nil {
		return err
	}
	if p.Count == 0 {
		return nil
	}
	O, Mk, W := gpu.DevPtr(dst, 0), gpu.DevPtr(masks, 0), gpu.DevPtr(weights, 0)
	var TL uintptr
	if p.UseTiles {
		TL = gpu.DevPtr(tiles, 0)
	}
	h, w, kz, ky, kx := int32(p.H), int32(p.W), int32(p.KZ), int32(p.KY), int32(p.KX)
	thr := p.Threshold
	ring, first, midz, offy, offx := int32(p.Ring), int32(p.First), int32(p.MidZ), int32(p.OffY), int32(p.OffX)
	use, ts, ty, tx := b2i(p.UseTiles), int32(max(p.TileSize, 1)), int32(p.TilesY), int32(p.TilesX)
	g := grid2(p.W, p.H)
	g[2] = p.Count
	shared := (detectTX + p.KX - 1) * (detectTY + p.KY - 1)
	return k.c.Launch("detect_ball", g, [3]int{detectTX, detectTY, 1}, shared,
		unsafe.Pointer(&O), unsafe.Pointer(&Mk), unsafe.Pointer(&TL), unsafe.Pointer(&W), unsafe.Pointer(&h), unsafe.Pointer(&w),
		unsafe.Pointer(&kz), unsafe.Pointer(&ky), unsafe.Pointer(&kx), unsafe.Pointer(&thr), unsafe.Pointer(&ring), unsafe.Pointer(&first),
		unsafe.Pointer(&midz), unsafe.Pointer(&offy), unsafe.Pointer(&offx), unsafe.Pointer(&use), unsafe.Pointer(&ts),
		unsafe.Pointer(&ty), unsafe.Pointer(&tx))
}
