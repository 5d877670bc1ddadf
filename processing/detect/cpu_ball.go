package detect

import (
	"encoding/binary"
	"fmt"

	"github.com/voxlab/voxlab/gpu"
)

// filterBall runs the ball filter on workers goroutines (see Ops.Ball): dst
// receives p.Count planes of centre flags, masks is the ring of p.Ring
// mask planes, tiles the ring of in-brain tile flags (read only when
// p.UseTiles; nil otherwise) and w the kernel's weights. It scatters the
// weights of each thresholded voxel into a row of sums, so its cost
// follows the number of thresholded voxels (a few per cent of a plane),
// not the plane area times the kernel volume. A batch of many planes is
// one call: a cancelled job (wk) stops it between rows.
func filterBall(dst, masks, tiles []byte, w []int32, p *BallParams, workers int, wk *gpu.Work) error {
	if err := p.Validate(); err != nil {
		return err
	}
	plane := p.H * p.W
	nt := 0
	if p.UseTiles {
		nt = p.Ring * p.TilesY * p.TilesX
	}
	if len(dst) < p.Count*plane || len(masks) < p.Ring*plane || len(w) < p.KZ*p.KY*p.KX || len(tiles) < nt {
		return fmt.Errorf("ball filter: %d centre, %d mask, %d tile bytes and %d weights for %d windows of %dx%dx%d over a ring of %d planes of %dx%d",
			len(dst), len(masks), len(tiles), len(w), p.Count, p.KZ, p.KY, p.KX, p.Ring, p.H, p.W)
	}
	out := dst[:p.Count*plane]
	clear(out)
	yLo, yHi := p.OffY, p.H-(p.KY-1-p.OffY)
	xLo, xHi := p.OffX, p.W-(p.KX-1-p.OffX)
	if yHi <= yLo || xHi <= xLo || p.Count == 0 {
		return nil
	}
	w = w[:p.KZ*p.KY*p.KX]
	rows := yHi - yLo
	workers = max(1, min(workers, p.Count*rows))
	accs := make([][]int32, workers)
	for i := range accs {
		accs[i] = make([]int32, p.W)
	}
	gpu.ParallelForWorker(workers, p.Count*rows, func(wkr, lo, hi int) {
		acc := accs[wkr]
		for t := lo; t < hi && !wk.Stop(); t++ {
			wk.Add(1)
			i, yc := t/rows, yLo+t%rows
			ballRow(out[i*plane+yc*p.W:i*plane+(yc+1)*p.W], acc, masks, tiles, w, p, i, yc, xLo, xHi)
		}
	})
	return wk.Err()
}

// ballRow computes the centre flags of row yc of middle plane i.
func ballRow(out []byte, acc []int32, masks, tiles []byte, w []int32, p *BallParams, i, yc, xLo, xHi int) {
	plane := p.H * p.W
	touchLo, touchHi := p.W, -1
	for dz := 0; dz < p.KZ; dz++ {
		slot := (p.First + i + dz) % p.Ring
		for dy := 0; dy < p.KY; dy++ {
			r := yc - p.OffY + dy
			row := masks[slot*plane+r*p.W : slot*plane+(r+1)*p.W]
			kw := w[(dz*p.KY+dy)*p.KX : (dz*p.KY+dy+1)*p.KX]
			forSet(row, func(x int) {
				for dx, wt := range kw {
					xc := x + p.OffX - dx
					if xc >= xLo && xc < xHi {
						acc[xc] += wt
						touchLo, touchHi = min(touchLo, xc), max(touchHi, xc)
					}
				}
			})
		}
	}
	if touchHi < 0 {
		return
	}
	var trow []byte
	if p.UseTiles {
		mid := (p.First + i + p.MidZ) % p.Ring
		nt := p.TilesY * p.TilesX
		trow = tiles[mid*nt+(yc/p.TileSize)*p.TilesX : mid*nt+(yc/p.TileSize+1)*p.TilesX]
	}
	for x := touchLo; x <= touchHi; x++ {
		if int64(acc[x]) > p.Threshold && (trow == nil || trow[x/p.TileSize] != 0) {
			out[x] = 1
		}
		acc[x] = 0
	}
}

// forSet calls fn with the index of every non-zero byte of row, skipping
// zero words eight bytes at a time.
func forSet(row []byte, fn func(x int)) {
	x := 0
	for ; x+8 <= len(row); x += 8 {
		if binary.LittleEndian.Uint64(row[x:]) == 0 {
			continue
		}
		for k := x; k < x+8; k++ {
			if row[k] != 0 {
				fn(k)
			}
		}
	}
	for ; x < len(row); x++ {
		if row[x] != 0 {
			fn(x)
		}
	}
}
