package distance

import (
	"errors"
	"fmt"
	"math"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
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
	// full says the mask keeps every voxel: the map is its own selection.
	full bool
	runs []int
	norm Normalization
	sh   *Shells
	// work is a pool of per-goroutine scratch, taken and put back per
	// range of maps.
	work    chan *prepWork
	workers int
}

type prepWork struct {
	// sel holds the masked voxels of a map (nil with a full mask).
	sel  []float32
	sel2 *selScratch
	fft  *fft3
}

func newPreparer(lay Layout, mask *Mask, sh *Shells, norm Normalization, workers int, tr *plan.Tracker) *preparer {
	p := &preparer{lay: lay, mask: mask, full: mask.Len() == mask.Box*mask.Box*mask.Box, runs: mask.rowRuns(),
		norm: norm, sh: sh, workers: workers, work: make(chan *prepWork, workers)}
	for range workers {
		w := &prepWork{sel2: newSelScratch()}
		if !p.full {
			w.sel = volume.Float32s(tr.Bytes("prepare scratch", int64(mask.Len())*4))
		}
		tr.Add("prepare scratch", selScratchBytes)
		if lay.Spec {
			w.fft = newFFT3(mask.Box)
			tr.Add("FFT scratch", fft3Bytes(mask.Box))
		}
		p.work <- w
	}
	return p
}

// release stops counting the scratch with tr.
func (p *preparer) release(tr *plan.Tracker) {
	for range p.workers {
		w := <-p.work
		tr.Free("prepare scratch", volume.Bytes(w.sel))
		tr.Add("prepare scratch", -selScratchBytes)
		if w.fft != nil {
			tr.Add("FFT scratch", -fft3Bytes(p.mask.Box))
		}
		p.work <- w
	}
}

// prepScratchBytes is the scratch one preparing goroutine holds.
func prepScratchBytes(lay Layout, box int) int64 {
	n := int64(selScratchBytes)
	if lay.Voxels < box*box*box {
		n += int64(lay.Voxels) * 4
	}
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

// one prepares a single map into row: three or four passes over its
// masked voxels (mean and the median's first digit, deviations, the
// median's second digit, the row), each a tight loop over float32s.
func (p *preparer) one(w *prepWork, row []float64, m []float32) error {
	lay := p.lay
	sel := m
	if !p.full {
		sel = w.sel[:len(p.mask.Index)]
		for k, i := range p.mask.Index {
			sel[k] = m[i]
		}
	}
	shift, scale, err := normStats(p.norm, sel, w.sel2)
	if err != nil {
		return p.where(err, m)
	}
	// Multiplying by the reciprocal instead of dividing: one rounding more
	// (≤ 1 ulp), four times the throughput.
	inv := 1 / scale
	var out []float64
	if lay.Data {
		out = row[:len(sel)]
	}
	s1, s2 := normalizeRow(out, sel, shift, inv)
	if math.IsNaN(s2) || math.IsInf(s2, 0) {
		return p.where(errNonFinite, m)
	}
	st := row[lay.StatOff:lay.RowLen]
	st[0], st[1] = s1, s2
	if lay.Spec {
		box, idx := p.mask.Box, p.mask.Index
		w.fft.transform(func(r int, line []float64) {
			for k := p.runs[r]; k < p.runs[r+1]; k++ {
				i := idx[k]
				line[int(i)-r*box] = (float64(m[i]) - shift) * inv
			}
		})
		p.sh.gather(row[lay.SpecOff:lay.SpecOff+lay.SpecLen], st[2:], w.fft.half)
	}
	return nil
}

// where turns errNonFinite into the first masked voxel that is not
// finite; other errors pass.
func (p *preparer) where(err error, m []float32) error {
	if !errors.Is(err, errNonFinite) {
		return err
	}
	bb := p.mask.Box * p.mask.Box
	for _, i := range p.mask.Index {
		if x := m[i]; x-x != x-x { // NaN or ±Inf, in one subtraction
			z, rem := int(i)/bb, int(i)%bb
			return fmt.Errorf("voxel (z %d, y %d, x %d) inside the mask is %g", z, rem/p.mask.Box, rem%p.mask.Box, x)
		}
	}
	return err
}

// normalizeRow sets dst[k] = (v[k] − shift)·inv (dst nil: only sums) and
// returns Σ and Σ² of those values, in four partial sums each.
func normalizeRow(dst []float64, v []float32, shift, inv float64) (s1, s2 float64) {
	var a0, a1, a2, a3, b0, b1, b2, b3 float64
	i := 0
	if dst != nil {
		dst = dst[:len(v)]
		for ; i+4 <= len(v); i += 4 {
			x0, x1, x2, x3 := (float64(v[i])-shift)*inv, (float64(v[i+1])-shift)*inv, (float64(v[i+2])-shift)*inv, (float64(v[i+3])-shift)*inv
			dst[i], dst[i+1], dst[i+2], dst[i+3] = x0, x1, x2, x3
			a0, a1, a2, a3 = a0+x0, a1+x1, a2+x2, a3+x3
			b0, b1, b2, b3 = b0+x0*x0, b1+x1*x1, b2+x2*x2, b3+x3*x3
		}
	} else {
		for ; i+4 <= len(v); i += 4 {
			x0, x1, x2, x3 := (float64(v[i])-shift)*inv, (float64(v[i+1])-shift)*inv, (float64(v[i+2])-shift)*inv, (float64(v[i+3])-shift)*inv
			a0, a1, a2, a3 = a0+x0, a1+x1, a2+x2, a3+x3
			b0, b1, b2, b3 = b0+x0*x0, b1+x1*x1, b2+x2*x2, b3+x3*x3
		}
	}
	for ; i < len(v); i++ {
		x := (float64(v[i]) - shift) * inv
		if dst != nil {
			dst[i] = x
		}
		a0 += x
		b0 += x * x
	}
	return (a0 + a1) + (a2 + a3), (b0 + b1) + (b2 + b3)
}
