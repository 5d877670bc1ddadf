package detect

import (
	"encoding/binary"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/voxlab/voxlab/gpu"
)

// The CPU kernels of cell detection: the reference the CUDA kernels are
// tested against. Hand-written because no Go library offers a fused
// median → Gaussian → Laplacian plane filter, and fusing the passes over
// rows (so a plane's intermediates stay in cache) is what makes it fast.

func f32view(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

func f64view(b []byte) []float64 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), len(b)/8)
}

func i32view(b []byte) []int32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// planeViews are the regions of an Ops.Plane work buffer.
type planeViews struct {
	a, t, e []float32
	rows    []byte
	stats   []float64
	gauss   []float32
	seg     []float64
	lthr    []float64
}

func viewsOf(w []byte, l Layout, p *PlaneParams) planeViews {
	n := int64(p.H) * int64(p.W) * 4
	lt := p.localTiles()
	return planeViews{
		a:     f32view(w[l.A : l.A+n]),
		t:     f32view(w[l.T : l.T+n]),
		e:     f32view(w[l.E : l.E+n]),
		rows:  w[l.Rows : l.Rows+int64(p.H)*rowBytes],
		stats: f64view(w[l.Stats : l.Stats+nStats*8]),
		gauss: f32view(w[l.Gauss : l.Gauss+int64(p.Radius+1)*4]),
		seg:   f64view(w[l.Seg : l.Seg+int64(lt.SegsY*lt.SegsX)*16]),
		lthr:  f64view(w[l.LocalThr : l.LocalThr+int64(lt.TilesY*lt.TilesX)*8]),
	}
}

func rowEntry(rows []byte, y int) []byte { return rows[y*rowBytes : (y+1)*rowBytes] }

// errUnprepared is filterPlane's error for a work buffer without the
// Gaussian's weights.
var errUnprepared = errors.New("holds no Gaussian weights")

// filterPlane runs the 2D stage of one plane on workers goroutines (see
// Ops.Plane): src is the plane (H·W elements), work the work buffer
// (WorkLayout(p).Size bytes, prepared with the weights), mask its H·W
// bytes and tiles the plane's BrainTiles flags. A plane is short: a
// cancelled job (wk) stops before the next one, not inside it.
func filterPlane(mask, tiles, work, src []byte, p *PlaneParams, workers int, wk *gpu.Work) error {
	if wk.Stop() {
		return wk.Err()
	}
	n := p.H * p.W
	lay := WorkLayout(p)
	ty, tx := p.BrainTiles()
	in := src[:n*p.ElemBytes]
	v := viewsOf(work, lay, p)
	for i, w := range gaussWeights(p.Sigma, p.Radius) {
		if v.gauss[i] != w {
			return errUnprepared
		}
	}

	// The two heavy passes run on as many workers as the T plane has
	// scratch for; the light ones on all.
	scr, pw := planeScratch(p, v.t, workers)
	chunks := rowChunks(pw, p.H)
	chunkedFor(pw, p.H, chunks, func(w, lo, hi int) { medianRows(in, p, v, scr[w], lo, hi) })
	mn, mx := minMaxOfRows(v.rows, p.H)
	v.stats[statMin], v.stats[statMax] = float64(mn), float64(mx)
	chunkedFor(pw, p.H, chunks, func(w, lo, hi int) { laplaceRows(p, v, mn, mx, scr[w], lo, hi) })
	planeThreshold(v.rows, v.stats, p)
	lt := p.localTiles()
	if lt.On {
		gpu.ParallelFor(workers, lt.SegsY, func(lo, hi int) { segmentSums(v.e, p, &lt, v.seg, lo, hi) })
		localThresholds(v.seg, v.lthr, p, &lt)
	}
	m := mask[:n]
	gpu.ParallelFor(workers, p.H, func(lo, hi int) { thresholdRows(m, v, p, &lt, lo, hi) })
	brainTiles(in, p, tiles[:ty*tx], v.stats, workers)
	return nil
}

// rowChunks is the number of row ranges the two heavy passes of the 2D
// stage are cut into: a few per worker, so that a worker whose core is
// busy with something else (the loader reading the next planes, the
// structures of the previous ones) takes fewer ranges instead of holding
// the others at the end of the pass, but no range under 64 rows, because
// each range starts by filtering the 2R+2 rows above it again.
func rowChunks(workers, h int) int {
	return max(workers, min(4*workers, h/64))
}

// chunkedFor runs fn over [0, n) cut into chunks contiguous ranges, which
// workers goroutines take in order as each finishes its previous one; w
// is the goroutine's index, for per-worker scratch. Which goroutine takes
// a range never changes what fn computes for it.
func chunkedFor(workers, n, chunks int, fn func(w, lo, hi int)) {
	chunks = max(1, min(chunks, n))
	workers = max(1, min(workers, chunks))
	if workers == 1 {
		fn(0, 0, n)
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= chunks {
					return
				}
				fn(w, k*n/chunks, (k+1)*n/chunks)
			}
		}()
	}
	wg.Wait()
}

// planeScratch splits the T plane into per-worker row scratch: pass 1
// needs 3 clipped rows and the sorted columns, pass 2 a ring of 2R+1
// normalised rows, a padded row and 3 Gaussian rows.
func planeScratch(p *PlaneParams, t []float32, workers int) ([][]float32, int) {
	per := (2*p.Radius+6)*p.W + 2*p.Radius + 16
	workers = min(workers, p.H, len(t)/per)
	if workers < 1 {
		return [][]float32{make([]float32, per)}, 1
	}
	s := make([][]float32, workers)
	for w := range s {
		s[w] = t[w*per : (w+1)*per]
	}
	return s, workers
}

func u16view(f []float32) []uint16 { return unsafe.Slice((*uint16)(unsafe.Pointer(&f[0])), len(f)*2) }

// medianRows writes the 3x3 median (zero padded, as medfilt2d and
// cellfinder's torch path) of the clipped source rows [y0, y1) into A and
// each row's min and max into its row entry. The median of 9 is the median
// of (max of the column minima, median of the column medians, min of the
// column maxima) once each column of 3 is sorted (Paeth, Graphics Gems
// "Median finding on a 3x3 grid"); the work is integer and branch free.
func medianRows(in []byte, p *PlaneParams, v planeViews, scr []float32, y0, y1 int) {
	W := p.W
	u := u16view(scr)
	rowBuf := [3][]uint16{u[0:W], u[W : 2*W], u[2*W : 3*W]}
	rowOf := [3]int{-2, -2, -2}
	lo, mid, hi := u[3*W:4*W+2], u[4*W+2:5*W+4], u[5*W+4:6*W+6]
	lo[0], mid[0], hi[0], lo[W+1], mid[W+1], hi[W+1] = 0, 0, 0, 0, 0, 0
	clip := uint16(p.Clip)
	row := func(y int) []uint16 {
		k := (y + 3) % 3
		r := rowBuf[k]
		if rowOf[k] == y {
			return r
		}
		rowOf[k] = y
		switch {
		case y < 0 || y >= p.H:
			clear(r)
		case p.ElemBytes == 1:
			src := in[y*W : (y+1)*W]
			for x, s := range src {
				r[x] = min(uint16(s), clip)
			}
		default:
			src := in[2*y*W : 2*(y+1)*W]
			for x := range r {
				r[x] = min(binary.LittleEndian.Uint16(src[2*x:]), clip)
			}
		}
		return r
	}
	for y := y0; y < y1; y++ {
		up, cur, dn := row(y-1), row(y), row(y+1)
		up, cur, dn = up[:W], cur[:W], dn[:W]
		l, m, h := lo[1:W+1], mid[1:W+1], hi[1:W+1]
		for x := range cur {
			a, b, c := int(up[x]), int(cur[x]), int(dn[x])
			mn, mx := min(a, b, c), max(a, b, c)
			l[x], m[x], h[x] = uint16(mn), uint16(a+b+c-mn-mx), uint16(mx)
		}
		out := v.a[y*W : (y+1)*W]
		n := len(out)
		lo0, lo1, lo2 := lo[0:n], lo[1:n+1], lo[2:n+2]
		mi0, mi1, mi2 := mid[0:n], mid[1:n+1], mid[2:n+2]
		hi0, hi1, hi2 := hi[0:n], hi[1:n+1], hi[2:n+2]
		rmin, rmax := int32(math.MaxInt32), int32(-1)
		for x := range out {
			lx := max(lo0[x], lo1[x], lo2[x])
			hx := min(hi0[x], hi1[x], hi2[x])
			mx := med3(mi0[x], mi1[x], mi2[x])
			md := int32(med3(lx, mx, hx))
			out[x] = float32(md)
			rmin, rmax = min(rmin, md), max(rmax, md)
		}
		e := rowEntry(v.rows, y)
		binary.LittleEndian.PutUint32(e[0:], uint32(rmin))
		binary.LittleEndian.PutUint32(e[4:], uint32(rmax))
	}
}

func med3(a, b, c uint16) uint16 { return max(min(a, b), min(max(a, b), c)) }

func minMaxOfRows(rows []byte, h int) (mn, mx int32) {
	mn, mx = math.MaxInt32, -1
	for y := 0; y < h; y++ {
		e := rowEntry(rows, y)
		mn = min(mn, int32(binary.LittleEndian.Uint32(e[0:])))
		mx = max(mx, int32(binary.LittleEndian.Uint32(e[4:])))
	}
	return mn, mx
}

// laplaceRows computes E = −Laplacian(Gaussian(normalised median)) for
// rows [y0, y1), streaming: normalised rows in a ring of 2R+1, one
// vertical pass into a row padded by R reflected values each side, one
// horizontal pass into a ring of 3 Gaussian rows, then the 5-point
// Laplacian with reflected edges, and each row's float64 sum and sum of
// squares. Arithmetic order matches the CUDA kernels exactly.
func laplaceRows(p *PlaneParams, v planeViews, mnI, mxI int32, scr []float32, y0, y1 int) {
	H, W, R := p.H, p.W, p.Radius
	K := 2*R + 1
	mn := float32(mnI)
	rng := float32(mxI) - mn
	if rng == 0 {
		rng = 1
	}
	ring := scr[:K*W]
	ringRow := make([]int, K) // per call, not per pixel
	for i := range ringRow {
		ringRow[i] = -1
	}
	vp := scr[K*W : K*W+W+2*R]
	g := [3][]float32{scr[K*W+W+2*R : K*W+2*W+2*R], scr[K*W+2*W+2*R : K*W+3*W+2*R], scr[K*W+3*W+2*R : K*W+4*W+2*R]}
	w := v.gauss
	norm := func(r int) []float32 {
		k := r % K
		dst := ring[k*W : (k+1)*W]
		if ringRow[k] != r {
			ringRow[k] = r
			src := v.a[r*W : (r+1)*W]
			for x, a := range src {
				dst[x] = (a - mn) / rng
			}
		}
		return dst
	}
	gaussRow := func(r int, dst []float32) {
		mid := vp[R : R+W]
		c := norm(r)[:len(mid)]
		w0 := w[0]
		for x := range mid {
			mid[x] = w0 * c[x]
		}
		for i := 1; i <= R; i++ {
			a, b := norm(reflectIndex(r-i, H)), norm(reflectIndex(r+i, H))
			wi := w[i]
			a, b = a[:W], b[:W]
			for x := range mid {
				mid[x] += float32(wi * float32(a[x]+b[x]))
			}
		}
		for j := 0; j < R; j++ {
			vp[R-1-j] = mid[reflectIndex(-1-j, W)]
			vp[R+W+j] = mid[reflectIndex(W+j, W)]
		}
		dst = dst[:W]
		ctr := vp[R : R+len(dst)]
		for x := range dst {
			dst[x] = w0 * ctr[x]
		}
		for i := 1; i <= R; i++ {
			wi := w[i]
			a, b := vp[R-i:R-i+len(dst)], vp[R+i:R+i+len(dst)]
			for x := range dst {
				dst[x] += float32(wi * float32(a[x]+b[x]))
			}
		}
	}
	gm, g0, gp := g[0], g[1], g[2]
	gaussRow(reflectIndex(y0-1, H), gm)
	gaussRow(y0, g0)
	for y := y0; y < y1; y++ {
		gaussRow(reflectIndex(y+1, H), gp)
		out := v.e[y*W : (y+1)*W]
		up, c0, dn := gm[:W], g0[:W], gp[:W]
		lap := func(x int, l, r float32) float32 {
			c := c0[x]
			ly := (up[x] + dn[x]) - 2*c
			lx := (l + r) - 2*c
			return -(ly + lx)
		}
		out[0] = lap(0, c0[reflectIndex(-1, W)], c0[reflectIndex(1, W)])
		for x := 1; x < W-1; x++ {
			c := c0[x]
			ly := (up[x] + dn[x]) - 2*c
			lx := (c0[x-1] + c0[x+1]) - 2*c
			out[x] = -(ly + lx)
		}
		if W > 1 {
			out[W-1] = lap(W-1, c0[W-2], c0[reflectIndex(W, W)])
		}
		var sum, sq float64
		for _, e := range out {
			de := float64(e)
			sum += de
			sq += float64(de * de)
		}
		ent := rowEntry(v.rows, y)
		binary.LittleEndian.PutUint64(ent[8:], math.Float64bits(sum))
		binary.LittleEndian.PutUint64(ent[16:], math.Float64bits(sq))
		gm, g0, gp = g0, gp, gm
	}
}

// meanSD returns the mean and the unbiased standard deviation (as
// torch.std_mean) of n values with sum s and sum of squares q, rounding
// each step on its own so the CUDA path gives the same bits.
func meanSD(s, q float64, n int) (mean, sd float64) {
	mean = s / float64(n)
	if n < 2 {
		return mean, 0
	}
	v := (q - float64(s*mean)) / float64(n-1)
	return mean, math.Sqrt(max(v, 0))
}

// planeThreshold sums the rows in order and stores mean, SD and the
// threshold mean + NSD·SD of E.
func planeThreshold(rows []byte, stats []float64, p *PlaneParams) {
	var s, q float64
	for y := 0; y < p.H; y++ {
		e := rowEntry(rows, y)
		s += math.Float64frombits(binary.LittleEndian.Uint64(e[8:]))
		q += math.Float64frombits(binary.LittleEndian.Uint64(e[16:]))
	}
	mean, sd := meanSD(s, q, p.H*p.W)
	stats[statMean], stats[statSD] = mean, sd
	stats[statThreshold] = mean + float64(p.NSD*sd)
}

func (t *localTiles) segRange(k int, start, segLen, n int) (int, int) {
	a := start + k*segLen
	return a, min(a+segLen, n)
}

// segmentSums sums E over the local-tile segments of segment rows
// [sy0, sy1), row by row and left to right.
func segmentSums(e []float32, p *PlaneParams, t *localTiles, seg []float64, sy0, sy1 int) {
	for sy := sy0; sy < sy1; sy++ {
		ya, yb := t.segRange(sy, t.OffY, t.SegLenY, p.H)
		for sx := 0; sx < t.SegsX; sx++ {
			xa, xb := t.segRange(sx, t.OffX, t.SegLenX, p.W)
			var s, q float64
			for y := ya; y < yb; y++ {
				for _, f := range e[y*p.W+xa : y*p.W+xb] {
					d := float64(f)
					s += d
					q += float64(d * d)
				}
			}
			k := 2 * (sy*t.SegsX + sx)
			seg[k], seg[k+1] = s, q
		}
	}
}

// localThresholds turns segment sums into each local tile's threshold.
func localThresholds(seg, thr []float64, p *PlaneParams, t *localTiles) {
	spanY, spanX := 1, 1
	if t.DoY {
		spanY = 2
	}
	if t.DoX {
		spanX = 2
	}
	for ty := 0; ty < t.TilesY; ty++ {
		for tx := 0; tx < t.TilesX; tx++ {
			var s, q float64
			n := 0
			for a := ty; a < ty+spanY; a++ {
				ya, yb := t.segRange(a, t.OffY, t.SegLenY, p.H)
				for b := tx; b < tx+spanX; b++ {
					xa, xb := t.segRange(b, t.OffX, t.SegLenX, p.W)
					k := 2 * (a*t.SegsX + b)
					s += seg[k]
					q += seg[k+1]
					n += (yb - ya) * (xb - xa)
				}
			}
			mean, sd := meanSD(s, q, n)
			thr[ty*t.TilesX+tx] = mean + float64(p.LocalNSD*sd)
		}
	}
}

// thresholdRows writes the mask of rows [y0, y1).
func thresholdRows(m []byte, v planeViews, p *PlaneParams, t *localTiles, y0, y1 int) {
	thr := v.stats[statThreshold]
	W := p.W
	for y := y0; y < y1; y++ {
		e, out := v.e[y*W:(y+1)*W], m[y*W:(y+1)*W]
		if !t.On {
			for x, f := range e {
				out[x] = b2u(float64(f) > thr)
			}
			continue
		}
		trow := v.lthr[t.tileOf(y, t.DoY, t.ShiftY, t.TilesY)*t.TilesX:]
		for x, f := range e {
			d := float64(f)
			out[x] = b2u(d > thr && d > trow[t.tileOf(x, t.DoX, t.ShiftX, t.TilesX)])
		}
	}
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// brainTiles marks the tiles whose mean of the clipped source reaches the
// corner tile's mean + 2·SD + 1 (SD with ddof 0, as cellfinder). Partial
// edge tiles, and every tile of a plane smaller than one tile, are out.
// A band of tiles is summed row by row, each row's tiles in turn, so the
// source is read once, in order; the integer sums are exact whatever the
// order.
func brainTiles(in []byte, p *PlaneParams, out []byte, stats []float64, workers int) {
	clear(out)
	t := p.BrainTile
	if p.H < t || p.W < t {
		stats[statBrainThreshold] = math.Inf(1)
		return
	}
	_, nx := p.BrainTiles()
	thr := brainThreshold(cornerTile(in, p))(t * t)
	stats[statBrainThreshold] = thr
	n := float64(t * t)
	full := p.W / t
	gpu.ParallelFor(workers, p.H/t, func(lo, hi int) {
		sums := make([]int64, full) // per range, not per pixel
		for ty := lo; ty < hi; ty++ {
			clear(sums)
			for y := ty * t; y < (ty+1)*t; y++ {
				tileRowSums(sums, in, p, y)
			}
			for tx, s := range sums {
				out[ty*nx+tx] = b2u(float64(s)/n >= thr)
			}
		}
	})
}

// tileRowSums adds the clipped source values of row y to the sum of each
// whole tile they fall in.
func tileRowSums(sums []int64, in []byte, p *PlaneParams, y int) {
	t := p.BrainTile
	if p.ElemBytes == 1 {
		clip := byte(min(p.Clip, math.MaxUint8))
		row := in[y*p.W : y*p.W+len(sums)*t]
		for tx := range sums {
			var s int64
			for _, v := range row[tx*t : (tx+1)*t] {
				s += int64(min(v, clip))
			}
			sums[tx] += s
		}
		return
	}
	clip := uint16(min(p.Clip, math.MaxUint16))
	row := in[2*y*p.W : 2*(y*p.W+len(sums)*t)]
	for tx := range sums {
		seg := row[2*tx*t : 2*(tx+1)*t]
		var s int64
		for x := 0; x+1 < len(seg); x += 2 {
			s += int64(min(binary.LittleEndian.Uint16(seg[x:]), clip))
		}
		sums[tx] += s
	}
}

// cornerTile returns the sum and sum of squares of the clipped source
// over the first (corner) tile.
func cornerTile(in []byte, p *PlaneParams) (s, q int64) {
	t := p.BrainTile
	for y := 0; y < t; y++ {
		for x := 0; x < t; x++ {
			var v int64
			if p.ElemBytes == 1 {
				v = int64(in[y*p.W+x])
			} else {
				v = int64(binary.LittleEndian.Uint16(in[2*(y*p.W+x):]))
			}
			v = min(v, int64(p.Clip))
			s += v
			q += v * v
		}
	}
	return s, q
}

// brainThreshold returns mean + 2·SD + 1 of a corner tile of n pixels.
func brainThreshold(s, q int64) func(n int) float64 {
	return func(n int) float64 {
		mean := float64(s) / float64(n)
		v := (float64(q) - float64(float64(s)*mean)) / float64(n)
		return mean + float64(2*math.Sqrt(max(v, 0))) + 1
	}
}
