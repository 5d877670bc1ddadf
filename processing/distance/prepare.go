package distance

import (
	"fmt"
	"runtime"

	"github.com/voxlab/voxlab/gpu"
)

// Layout is what each prepared row holds: the float64 columns the device
// computes on. Segment bounds split the columns into the masked voxels
// (segment DataSeg, when a metric needs them) and the Fourier shells
// 1…Shells (segments ShellSeg0…, when FSC or res is asked for); the rows'
// statistics follow at StatOff: Σx, Σx², then each shell's power.
type Layout struct {
	Data, Spec         bool
	Voxels             int
	SpecOff, SpecLen   int
	Shells             int
	StatOff, RowLen    int
	DataSeg, ShellSeg0 int
	// Bounds are the Segs+1 column bounds of the segments.
	Bounds []int64
}

// Segs returns the number of column segments.
func (l Layout) Segs() int { return len(l.Bounds) - 1 }

// RowBytes returns the size of one prepared row.
func (l Layout) RowBytes() int64 { return int64(l.RowLen) * 8 }

func newLayout(metrics []Metric, voxels int, sh *Shells) Layout {
	l := Layout{Voxels: voxels, Bounds: []int64{0}}
	for _, m := range metrics {
		if m.spectral() {
			l.Spec = true
		} else {
			l.Data = true
		}
	}
	off := 0
	if l.Data {
		off = voxels
		l.Bounds = append(l.Bounds, int64(off))
	}
	if l.Spec {
		l.SpecOff, l.SpecLen, l.Shells = off, sh.Len(), sh.K
		l.ShellSeg0 = len(l.Bounds) - 1
		for s := 1; s <= sh.K; s++ {
			l.Bounds = append(l.Bounds, int64(off+sh.Start[s]))
		}
		off += sh.Len()
	}
	l.StatOff = off
	l.RowLen = off + 2
	if l.Spec {
		l.RowLen += l.Shells
	}
	return l
}

// preparer masks and normalises maps into prepared rows, maps in parallel
// on the host. It is the one place both sets go through, in every
// pipeline, so they are always treated alike.
type preparer struct {
	lay  Layout
	mask *Mask
	runs []int
	norm Normalization
	sh   *Shells
	// work is a pool of per-goroutine scratch, taken and put back per
	// range of maps.
	work    chan *prepWork
	workers int
}

type prepWork struct {
	sel  []float32
	hist []int32
	fft  *fft3
}

func newPreparer(lay Layout, mask *Mask, sh *Shells, norm Normalization, workers int) *preparer {
	p := &preparer{lay: lay, mask: mask, runs: mask.rowRuns(), norm: norm, sh: sh, workers: workers, work: make(chan *prepWork, workers)}
	for range workers {
		w := &prepWork{sel: make([]float32, mask.Len()), hist: make([]int32, histBins)}
		if lay.Spec {
			w.fft = newFFT3(mask.Box)
		}
		p.work <- w
	}
	return p
}

// prepScratchBytes is the scratch one preparing goroutine holds.
func prepScratchBytes(lay Layout, box int) int64 {
	n := int64(lay.Voxels)*4 + histBins*4
	if lay.Spec {
		n += fft3Bytes(box)
	}
	return n
}

// prepare fills n rows of dst from n raw maps; first is the index of the
// first map in its set, for messages.
func (p *preparer) prepare(dst []float64, raw []float32, n, first int, set string) error {
	v := p.mask.Box * p.mask.Box * p.mask.Box
	errs := make(chan error, p.workers)
	gpu.ParallelFor(p.workers, n, func(lo, hi int) {
		w := <-p.work
		defer func() { p.work <- w }()
		for i := lo; i < hi; i++ {
			if err := p.one(w, dst[i*p.lay.RowLen:(i+1)*p.lay.RowLen], raw[i*v:(i+1)*v]); err != nil {
				errs <- fmt.Errorf("map %d of the %s set: %w", first+i, set, err)
				return
			}
		}
	})
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// one prepares a single map into row.
func (p *preparer) one(w *prepWork, row []float64, m []float32) error {
	idx, lay := p.mask.Index, p.lay
	sel := w.sel[:len(idx)]
	for k, i := range idx {
		x := m[i]
		if d := x - x; d != d { // NaN or ±Inf, in one subtraction
			z, rem := int(i)/(p.mask.Box*p.mask.Box), int(i)%(p.mask.Box*p.mask.Box)
			return fmt.Errorf("voxel (z %d, y %d, x %d) inside the mask is %g", z, rem/p.mask.Box, rem%p.mask.Box, x)
		}
		sel[k] = x
	}
	shift, scale, err := normStats(p.norm, sel, w.hist)
	if err != nil {
		return err
	}
	var s1, s2 float64
	for k, i := range idx {
		x := (float64(m[i]) - shift) / scale
		if lay.Data {
			row[k] = x
		}
		s1 += x
		s2 += x * x
	}
	st := row[lay.StatOff:lay.RowLen]
	st[0], st[1] = s1, s2
	if lay.Spec {
		box := p.mask.Box
		w.fft.transform(func(r int, line []float64) {
			for k := p.runs[r]; k < p.runs[r+1]; k++ {
				i := idx[k]
				line[int(i)-r*box] = (float64(m[i]) - shift) / scale
			}
		})
		p.sh.gather(row[lay.SpecOff:lay.SpecOff+lay.SpecLen], st[2:], w.fft.half)
	}
	return nil
}

// MaskAndNormalize returns the masked, normalised voxels of n maps of
// mask.Box³ voxels (one after the other in maps): n rows of mask.Len()
// values. It is the stack form of what every pipeline does to both sets,
// through the same code.
func MaskAndNormalize(maps []float32, n int, mask *Mask, norm Normalization) ([]float64, error) {
	v := mask.Box * mask.Box * mask.Box
	if n < 0 || len(maps) != n*v {
		return nil, fmt.Errorf("mask and normalise: %d values for %d maps of %d³", len(maps), n, mask.Box)
	}
	lay := newLayout([]Metric{L2}, mask.Len(), nil)
	p := newPreparer(lay, mask, nil, norm, runtime.GOMAXPROCS(0))
	rows := make([]float64, n*lay.RowLen)
	if err := p.prepare(rows, maps, n, 0, "given"); err != nil {
		return nil, err
	}
	k := mask.Len()
	out := make([]float64, n*k)
	for i := 0; i < n; i++ {
		copy(out[i*k:(i+1)*k], rows[i*lay.RowLen:])
	}
	return out, nil
}
