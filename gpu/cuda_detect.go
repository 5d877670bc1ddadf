//go:build cuda

package gpu

import (
	"unsafe"

	"gorgonia.org/cu"
)

// detectTX and detectTY are DETECT_TX and DETECT_TY of kernels/detect.cu.
const (
	detectTX = 32
	detectTY = 8
)

func at(b *Buffer, off int64) cu.DevicePtr { return ptr(b) + cu.DevicePtr(off) }

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

// DetectPlane runs the 2D stage with the detect_* kernels (see DetectOps):
// median, vertical Gaussian, horizontal Gaussian + Laplacian, row sums,
// statistics, optional local tiles, threshold, in-brain tiles.
func (c *CUDABackend) DetectPlane(src *Buffer, srcOff int64, work, mask *Buffer, maskOff int64, tiles *Buffer, tilesOff int64, p *DetectPlaneParams) error {
	if err := checkDetectPlane(src, srcOff, work, mask, maskOff, tiles, tilesOff, p); err != nil {
		return err
	}
	lay := DetectWorkLayout(p)
	S, A, T, E := at(src, srcOff), at(work, lay.A), at(work, lay.T), at(work, lay.E)
	rows, stats, gauss, seg, lthr := at(work, lay.Rows), at(work, lay.Stats), at(work, lay.Gauss), at(work, lay.Seg), at(work, lay.LocalThr)
	M, TL := at(mask, maskOff), at(tiles, tilesOff)
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
		if err := c.launch(s.name, s.grid, s.block, 0, s.args...); err != nil {
			return err
		}
	}
	lt := p.LocalTiles()
	on, doY, doX := b2i(lt.On), b2i(lt.DoY), b2i(lt.DoX)
	segsY, segsX, offY, offX, lenY, lenX := int32(lt.SegsY), int32(lt.SegsX), int32(lt.OffY), int32(lt.OffX), int32(lt.SegLenY), int32(lt.SegLenX)
	tilesY, tilesX, shiftY, shiftX, stride := int32(lt.TilesY), int32(lt.TilesX), int32(lt.ShiftY), int32(lt.ShiftX), int32(lt.Stride)
	if lt.On {
		lnsd := p.LocalNSD
		if err := c.launch("detect_segsum", grid1(lt.SegsY*lt.SegsX, 128), [3]int{128, 1, 1}, 0,
			unsafe.Pointer(&E), unsafe.Pointer(&seg), unsafe.Pointer(&h), unsafe.Pointer(&wd), unsafe.Pointer(&segsY), unsafe.Pointer(&segsX),
			unsafe.Pointer(&offY), unsafe.Pointer(&offX), unsafe.Pointer(&lenY), unsafe.Pointer(&lenX)); err != nil {
			return err
		}
		if err := c.launch("detect_localthr", grid1(lt.TilesY*lt.TilesX, 128), [3]int{128, 1, 1}, 0,
			unsafe.Pointer(&seg), unsafe.Pointer(&lthr), unsafe.Pointer(&h), unsafe.Pointer(&wd), unsafe.Pointer(&tilesY), unsafe.Pointer(&tilesX),
			unsafe.Pointer(&segsX), unsafe.Pointer(&offY), unsafe.Pointer(&offX), unsafe.Pointer(&lenY), unsafe.Pointer(&lenX),
			unsafe.Pointer(&doY), unsafe.Pointer(&doX), unsafe.Pointer(&lnsd)); err != nil {
			return err
		}
	}
	if err := c.launch("detect_threshold", g2, blk, 0,
		unsafe.Pointer(&E), unsafe.Pointer(&M), unsafe.Pointer(&stats), unsafe.Pointer(&lthr), unsafe.Pointer(&h), unsafe.Pointer(&wd),
		unsafe.Pointer(&on), unsafe.Pointer(&doY), unsafe.Pointer(&doX), unsafe.Pointer(&shiftY), unsafe.Pointer(&shiftX),
		unsafe.Pointer(&stride), unsafe.Pointer(&tilesY), unsafe.Pointer(&tilesX)); err != nil {
		return err
	}
	bt := int32(p.BrainTile)
	nty, ntx := p.BrainTiles()
	bty, btx := int32(nty), int32(ntx)
	return c.launch("detect_brain", grid1(nty*ntx, 128), [3]int{128, 1, 1}, 0,
		unsafe.Pointer(&S), unsafe.Pointer(&eb), unsafe.Pointer(&h), unsafe.Pointer(&wd), unsafe.Pointer(&clip), unsafe.Pointer(&bt),
		unsafe.Pointer(&TL), unsafe.Pointer(&bty), unsafe.Pointer(&btx), unsafe.Pointer(&stats))
}

// DetectBall runs detect_ball: one 32x8 block per tile of a middle plane
// (grid z: the middle planes), the window's planes read through a shared
// tile with the kernel's halo.
func (c *CUDABackend) DetectBall(dst, masks, tiles, weights *Buffer, p *DetectBallParams) error {
	if err := checkDetectBall(dst, masks, tiles, weights, p); err != nil {
		return err
	}
	if p.Count == 0 {
		return nil
	}
	O, Mk, W := ptr(dst), ptr(masks), ptr(weights)
	var TL cu.DevicePtr
	if p.UseTiles {
		TL = ptr(tiles)
	}
	h, w, kz, ky, kx := int32(p.H), int32(p.W), int32(p.KZ), int32(p.KY), int32(p.KX)
	thr := p.Threshold
	ring, first, midz, offy, offx := int32(p.Ring), int32(p.First), int32(p.MidZ), int32(p.OffY), int32(p.OffX)
	use, ts, ty, tx := b2i(p.UseTiles), int32(max(p.TileSize, 1)), int32(p.TilesY), int32(p.TilesX)
	g := grid2(p.W, p.H)
	g[2] = p.Count
	shared := (detectTX + p.KX - 1) * (detectTY + p.KY - 1)
	return c.launch("detect_ball", g, [3]int{detectTX, detectTY, 1}, shared,
		unsafe.Pointer(&O), unsafe.Pointer(&Mk), unsafe.Pointer(&TL), unsafe.Pointer(&W), unsafe.Pointer(&h), unsafe.Pointer(&w),
		unsafe.Pointer(&kz), unsafe.Pointer(&ky), unsafe.Pointer(&kx), unsafe.Pointer(&thr), unsafe.Pointer(&ring), unsafe.Pointer(&first),
		unsafe.Pointer(&midz), unsafe.Pointer(&offy), unsafe.Pointer(&offx), unsafe.Pointer(&use), unsafe.Pointer(&ts),
		unsafe.Pointer(&ty), unsafe.Pointer(&tx))
}
