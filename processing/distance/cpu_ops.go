package distance

import (
	"fmt"
	"math"
	"unsafe"

	"gonum.org/v1/gonum/blas"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/internal/hostblas"
)

// cpuOps are the operations on the CPU backend: its buffers are host
// memory, handed to the kernels below as slices.
type cpuOps struct{ be *gpu.CPUBackend }

// Gram computes the products of every pair of rows segment by segment,
// each segment as one matrix product C = A·Bᵀ (dgemm) on the rows' columns
// [b_s, b_{s+1}).
func (c cpuOps) Gram(dst, a, b, segs *gpu.Buffer, g GramShape) error {
	bounds, err := checkGram(c.alive, dst, a, b, segs, g)
	if err != nil {
		return err
	}
	return gramRows(f64s(dst), f64s(a), f64s(b), bounds, g, c.be.Workers(), c.be.Begin(int64(g.RowLen)*int64(g.M)))
}

// Metric computes one metric for every pair, rows in parallel.
func (c cpuOps) Metric(dst, gram, a, b *gpu.Buffer, m MetricShape) error {
	if err := checkMetric(c.alive, dst, gram, a, b, m); err != nil {
		return err
	}
	return metricPairs(f64s(dst), f64s(gram), f64s(a), f64s(b), m, c.be.Workers(), c.be.Begin(int64(m.M)))
}

// alive reports a freed (or missing, or not host) buffer.
func (c cpuOps) alive(b *gpu.Buffer) error {
	if _, err := gpu.CheckedHost(b, 0); err != nil {
		return errFreed
	}
	return nil
}

// gramRows sets dst (Segs x M x N) to the products of rows a[ARow0+i] and
// b[j] over each segment [bounds[s], bounds[s+1]) of their columns, with
// workers threads, stopping between panels of rows when wk is stopped.
func gramRows(dst, a, b []float64, bounds []int64, g GramShape, workers int, wk *gpu.Work) error {
	mn := g.M * g.N
	for s := 0; s < g.Segs; s++ {
		k0, k1 := int(bounds[s]), int(bounds[s+1])
		out := dst[s*mn : (s+1)*mn]
		if k1 == k0 || mn == 0 {
			clear(out)
			continue
		}
		// A product too big to be cancelled promptly (a tile of many rows
		// against many maps of many voxels) is computed in panels of
		// rows; one that is not stays one dgemm, as it always was.
		panel := g.M
		if int64(g.M)*int64(g.N)*int64(k1-k0) > panelWork {
			panel = int(min(int64(g.M), max(panelMinRows, panelWork/(int64(g.N)*int64(k1-k0)))))
		}
		for i0 := 0; i0 < g.M; i0 += panel {
			if wk.Stop() {
				return wk.Err()
			}
			m := min(panel, g.M-i0)
			hostblas.Dgemm(workers, blas.NoTrans, blas.Trans, m, g.N, k1-k0, 1, a[(g.ARow0+i0)*g.RowLen+k0:], g.RowLen, b[k0:], g.RowLen, 0, out[i0*g.N:], g.N)
			wk.Add(int64(m) * int64(k1-k0))
		}
	}
	return wk.Err()
}

// panelWork is the multiply-adds of one panel of a product that is
// split for cancellation (2 GFLOP: a tenth of a second or less on two
// cores; the split follows the shape alone, whether or not a job is
// bound); panelMinRows is the fewest rows a panel has, below which
// dgemm loses its efficiency. Variables for the tests.
var (
	panelWork    int64 = 1 << 30
	panelMinRows int64 = 8
)

// metricPairs sets dst[Dst0 + i·N + j] to metric m.Kind of the pair (i, j)
// from the products gram and the rows' statistics in a and b, rows split
// over workers goroutines, stopping between rows when wk is stopped.
func metricPairs(dst, gram, a, b []float64, m MetricShape, workers int, wk *gpu.Work) error {
	gpu.ParallelFor(workers, m.M, func(lo, hi int) {
		for i := lo; i < hi && !wk.Stop(); i++ {
			wk.Add(1)
			sa := a[(m.ARow0+i)*m.RowLen+m.StatOff:]
			row := dst[m.Dst0+i*m.N : m.Dst0+(i+1)*m.N]
			for j := range row {
				row[j] = pairMetric(m, gram, i, j, sa, b[j*m.RowLen+m.StatOff:])
			}
		}
	})
	return wk.Err()
}

// pairMetric is one metric of the pair (i, j); sa and sb are the rows'
// statistics. It is the reference the CUDA kernel dist_metric follows.
func pairMetric(m MetricShape, G []float64, i, j int, sa, sb []float64) float64 {
	mn := m.M * m.N
	at := func(seg int) float64 { return G[seg*mn+i*m.N+j] }
	n := float64(m.Voxels)
	switch m.Kind {
	case KindL2:
		return math.Sqrt(max(sa[1]+sb[1]-2*at(m.DataSeg), 0))
	case KindL2Sq:
		return max(sa[1]+sb[1]-2*at(m.DataSeg), 0)
	case KindCorr:
		return at(m.DataSeg) / n
	case KindCorrDist:
		return 1 - at(m.DataSeg)/n
	case KindBioEM:
		return bioEM(n, sa[0], sb[0], sa[1], sb[1], at(m.DataSeg))
	case KindFSC, KindRes:
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
		if m.Kind == KindFSC {
			return 1 - sum/float64(m.Shells)
		}
		if first == 0 {
			first = m.Shells
		}
		return m.ResScale / float64(first)
	}
	return math.NaN()
}

// bioEM returns −log P of Cossio & Hummer (J. Struct. Biol. 184:427, 2013,
// eq. 10), the probability of map o given map c marginalised over scale,
// offset and noise, from n voxels and the sums co = Σo, cc = Σc, coo = Σo²,
// ccc = Σc², coc = Σo·c. The constant term π/2 is the one the cryo-EM
// heterogeneity challenge adds, kept so that values compare with its own;
// it shifts every value alike.
func bioEM(n, co, cc, coo, ccc, coc float64) float64 {
	t2 := n*(ccc*coo-coc*coc) + 2*co*coc*cc - ccc*co*co - coo*cc*cc
	t3 := (n - 2) * (n*ccc - cc*cc)
	logP := math.Pi/2 + math.Log(2*math.Pi*math.E)*(1-n/2) +
		math.Log(max(t2, BioEMTiny))*(1.5-n/2) + math.Log(max(t3, BioEMTiny))*(n/2-2)
	return -logP
}

// checkGram validates a Gram call on host buffers and returns the segment
// bounds.
func checkGram(alive func(*gpu.Buffer) error, dst, a, b, segs *gpu.Buffer, g GramShape) ([]int64, error) {
	if err := checkGramSizes(alive, dst, a, b, segs, g); err != nil {
		return nil, err
	}
	bounds := i64s(segs)[:g.Segs+1]
	for s := 0; s < g.Segs; s++ {
		if bounds[s] < 0 || bounds[s] > bounds[s+1] || bounds[s+1] > int64(g.RowLen) {
			return nil, fmt.Errorf("Gram: segment %d [%d,%d) outside a row of %d", s, bounds[s], bounds[s+1], g.RowLen)
		}
	}
	return bounds, nil
}

func f64s(b *gpu.Buffer) []float64 {
	h := b.HostBytes()
	if len(h) < 8 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&h[0])), len(h)/8)
}

func i64s(b *gpu.Buffer) []int64 {
	h := b.HostBytes()
	if len(h) < 8 {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(&h[0])), len(h)/8)
}
