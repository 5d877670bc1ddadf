package gpu

import (
	"fmt"
	"math"
	"unsafe"
)

// DistGram computes the products of every pair of rows segment by segment,
// each segment as one matrix product C = A·Bᵀ (dgemm) on the rows' columns
// [b_s, b_{s+1}).
func (c *CPUBackend) DistGram(dst, a, b, segs *Buffer, g DistGramShape) error {
	bounds, err := checkGram(dst, a, b, segs, g)
	if err != nil {
		return err
	}
	C, A, B := f64s(dst), f64s(a), f64s(b)
	mn := g.M * g.N
	wk := c.Begin(int64(g.RowLen) * int64(g.M))
	for s := 0; s < g.Segs; s++ {
		k0, k1 := int(bounds[s]), int(bounds[s+1])
		out := C[s*mn : (s+1)*mn]
		if k1 == k0 || mn == 0 {
			clear(out)
			continue
		}
		// A product too big to be cancelled promptly (a tile of many rows
		// against many maps of many voxels) is computed in panels of
		// rows; one that is not stays one dgemm, as it always was.
		panel := g.M
		if int64(g.M)*int64(g.N)*int64(k1-k0) > distPanelWork {
			panel = int(min(int64(g.M), max(distPanelMinRows, distPanelWork/(int64(g.N)*int64(k1-k0)))))
		}
		for i0 := 0; i0 < g.M; i0 += panel {
			if wk.Stop() {
				return wk.Err()
			}
			m := min(panel, g.M-i0)
			gemmNT(c.workers, m, g.N, k1-k0, A[(g.ARow0+i0)*g.RowLen+k0:], g.RowLen, B[k0:], g.RowLen, out[i0*g.N:], g.N)
			wk.Add(int64(m) * int64(k1-k0))
		}
	}
	return wk.Err()
}

// distPanelWork is the multiply-adds of one panel of a product that is
// split for cancellation (2 GFLOP: a tenth of a second or less on two
// cores; the split follows the shape alone, whether or not a job is
// bound); distPanelMinRows is the fewest rows a panel has, below which
// dgemm loses its efficiency. Variables for the tests.
var (
	distPanelWork    int64 = 1 << 30
	distPanelMinRows int64 = 8
)

// DistMetric computes one metric for every pair, rows in parallel.
func (c *CPUBackend) DistMetric(dst, gram, a, b *Buffer, m DistMetricShape) error {
	if err := checkMetric(dst, gram, a, b, m); err != nil {
		return err
	}
	D, G, A, B := f64s(dst), f64s(gram), f64s(a), f64s(b)
	wk := c.Begin(int64(m.M))
	ParallelFor(c.workers, m.M, func(lo, hi int) {
		for i := lo; i < hi && !wk.Stop(); i++ {
			wk.Add(1)
			sa := A[(m.ARow0+i)*m.RowLen+m.StatOff:]
			row := D[m.Dst0+i*m.N : m.Dst0+(i+1)*m.N]
			for j := range row {
				row[j] = distPair(m, G, i, j, sa, B[j*m.RowLen+m.StatOff:])
			}
		}
	})
	return wk.Err()
}

// distPair is one metric of the pair (i, j); sa and sb are the rows'
// statistics. It is the reference the CUDA kernel dist_metric follows.
func distPair(m DistMetricShape, G []float64, i, j int, sa, sb []float64) float64 {
	mn := m.M * m.N
	at := func(seg int) float64 { return G[seg*mn+i*m.N+j] }
	n := float64(m.Voxels)
	switch m.Kind {
	case DistL2:
		return math.Sqrt(max(sa[1]+sb[1]-2*at(m.DataSeg), 0))
	case DistL2Sq:
		return max(sa[1]+sb[1]-2*at(m.DataSeg), 0)
	case DistCorr:
		return at(m.DataSeg) / n
	case DistCorrDist:
		return 1 - at(m.DataSeg)/n
	case DistBioEM:
		return BioEM(n, sa[0], sb[0], sa[1], sb[1], at(m.DataSeg))
	case DistFSC, DistRes:
		sum, first := 0.0, 0
		for s := 1; s <= m.Shells; s++ {
			f := 0.0
			if p := sa[1+s] * sb[1+s]; p > 0 {
				f = at(m.ShellSeg0+s-1) / math.Sqrt(p)
			}
			sum += f
			if first == 0 && f < 0.5 {
				first = s
			}
		}
		if m.Kind == DistFSC {
			return 1 - sum/float64(m.Shells)
		}
		if first == 0 {
			first = m.Shells
		}
		return m.ResScale / float64(first)
	}
	return math.NaN()
}

// BioEM returns −log P of Cossio & Hummer (J. Struct. Biol. 184:427, 2013,
// eq. 10), the probability of map o given map c marginalised over scale,
// offset and noise, from n voxels and the sums co = Σo, cc = Σc, coo = Σo²,
// ccc = Σc², coc = Σo·c. The constant term π/2 is the one the cryo-EM
// heterogeneity challenge adds, kept so that values compare with its own;
// it shifts every value alike.
func BioEM(n, co, cc, coo, ccc, coc float64) float64 {
	t2 := n*(ccc*coo-coc*coc) + 2*co*coc*cc - ccc*co*co - coo*cc*cc
	t3 := (n - 2) * (n*ccc - cc*cc)
	logP := math.Pi/2 + math.Log(2*math.Pi*math.E)*(1-n/2) +
		math.Log(max(t2, BioEMTiny))*(1.5-n/2) + math.Log(max(t3, BioEMTiny))*(n/2-2)
	return -logP
}

func f64s(b *Buffer) []float64 {
	h := b.HostBytes()
	if len(h) < 8 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&h[0])), len(h)/8)
}

func i64s(b *Buffer) []int64 {
	h := b.HostBytes()
	if len(h) < 8 {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(&h[0])), len(h)/8)
}

// needBytes checks that buffer b holds at least n float64s.
func needBytes(op, what string, b *Buffer, n int) error {
	switch {
	case b == nil || b.freed:
		return fmt.Errorf("%s: %s buffer is nil or freed", op, what)
	case b.size < int64(n)*8:
		return fmt.Errorf("%s: %s buffer %q holds %d bytes, the call needs %d", op, what, b.label, b.size, int64(n)*8)
	}
	return nil
}

// checkGram validates a DistGram call and returns the segment bounds.
func checkGram(dst, a, b, segs *Buffer, g DistGramShape) ([]int64, error) {
	if err := checkGramSizes(dst, a, b, segs, g); err != nil {
		return nil, err
	}
	bounds := i64s(segs)[:g.Segs+1]
	for s := 0; s < g.Segs; s++ {
		if bounds[s] < 0 || bounds[s] > bounds[s+1] || bounds[s+1] > int64(g.RowLen) {
			return nil, fmt.Errorf("DistGram: segment %d [%d,%d) outside a row of %d", s, bounds[s], bounds[s+1], g.RowLen)
		}
	}
	return bounds, nil
}

// checkGramSizes validates a DistGram call's shape against its buffers'
// sizes (what a backend can check without reading device memory).
func checkGramSizes(dst, a, b, segs *Buffer, g DistGramShape) error {
	const op = "DistGram"
	if g.M < 0 || g.N < 0 || g.ARow0 < 0 || g.RowLen < 0 || g.Segs < 1 {
		return fmt.Errorf("%s: bad shape %+v", op, g)
	}
	for _, c := range []struct {
		what string
		b    *Buffer
		n    int
	}{{"dst", dst, g.Segs * g.M * g.N}, {"a", a, (g.ARow0 + g.M) * g.RowLen}, {"b", b, g.N * g.RowLen}, {"segs", segs, g.Segs + 1}} {
		if err := needBytes(op, c.what, c.b, c.n); err != nil {
			return err
		}
	}
	return nil
}

func checkMetric(dst, gram, a, b *Buffer, m DistMetricShape) error {
	const op = "DistMetric"
	if m.M < 0 || m.N < 0 || m.ARow0 < 0 || m.Dst0 < 0 || m.Segs < 1 || m.Kind < DistL2 || m.Kind > DistRes {
		return fmt.Errorf("%s: bad shape %+v", op, m)
	}
	stats := 2
	switch m.Kind {
	case DistFSC, DistRes:
		if m.Shells < 1 || m.ShellSeg0 < 0 || m.ShellSeg0+m.Shells > m.Segs {
			return fmt.Errorf("%s: shells %d from segment %d outside %d segments", op, m.Shells, m.ShellSeg0, m.Segs)
		}
		stats += m.Shells
	default:
		if m.DataSeg < 0 || m.DataSeg >= m.Segs {
			return fmt.Errorf("%s: data segment %d outside %d segments", op, m.DataSeg, m.Segs)
		}
	}
	if m.StatOff < 0 || m.StatOff+stats > m.RowLen {
		return fmt.Errorf("%s: statistics at %d (+%d) outside a row of %d", op, m.StatOff, stats, m.RowLen)
	}
	for _, c := range []struct {
		what string
		b    *Buffer
		n    int
	}{{"dst", dst, m.Dst0 + m.M*m.N}, {"gram", gram, m.Segs * m.M * m.N}, {"a", a, (m.ARow0 + m.M) * m.RowLen}, {"b", b, m.N * m.RowLen}} {
		if err := needBytes(op, c.what, c.b, c.n); err != nil {
			return err
		}
	}
	return nil
}
