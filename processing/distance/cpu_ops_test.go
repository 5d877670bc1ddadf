package distance

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/voxlab/voxlab/gpu"
)

// f64Buf allocates a buffer on be holding vals.
func f64Buf(t testing.TB, be gpu.Backend, label string, vals []float64) *gpu.Buffer {
	t.Helper()
	b, err := be.Alloc(label, int64(len(vals))*8)
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) > 0 {
		if err := be.Upload(b, 0, unsafe.Slice((*byte)(unsafe.Pointer(&vals[0])), len(vals)*8)); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func download(t *testing.T, be gpu.Backend, b *gpu.Buffer) []float64 {
	t.Helper()
	out := make([]float64, b.Len()/8)
	if err := be.Download(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(out)*8), b, 0); err != nil {
		t.Fatal(err)
	}
	return out
}

// mustOps returns be's operations.
func mustOps(t testing.TB, be gpu.Backend) Ops {
	t.Helper()
	ops, err := opsFor(be)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

func int64Buf(t testing.TB, be gpu.Backend, vals []int64) *gpu.Buffer {
	t.Helper()
	f := make([]float64, len(vals))
	for i, v := range vals {
		f[i] = math.Float64frombits(uint64(v))
	}
	return f64Buf(t, be, "segs", f)
}

// distCase is a random Gram/Metric problem: rows of a (from
// arow0) and b with a data segment, shells and statistics.
type distCase struct {
	m, n, arow0, rowLen int
	bounds              []int64
	a, b                []float64
	shells, statOff     int
}

func newDistCase(rng *rand.Rand, m, n, arow0, voxels, shells int) distCase {
	c := distCase{m: m, n: n, arow0: arow0, shells: shells}
	c.bounds = []int64{0, int64(voxels)}
	off := voxels
	for s := 1; s <= shells; s++ {
		off += 2 + rng.IntN(20) // shells of varying size
		c.bounds = append(c.bounds, int64(off))
	}
	c.statOff = off
	c.rowLen = off + 2 + shells
	row := func() []float64 {
		r := make([]float64, c.rowLen)
		for k := 0; k < off; k++ {
			r[k] = rng.NormFloat64()
		}
		for k := 0; k < voxels; k++ {
			r[off] += r[k]
			r[off+1] += r[k] * r[k]
		}
		for s := 1; s <= shells; s++ {
			for k := c.bounds[s]; k < c.bounds[s+1]; k++ {
				r[off+1+s] += r[k] * r[k]
			}
		}
		return r
	}
	for i := 0; i < arow0+m; i++ {
		c.a = append(c.a, row()...)
	}
	for j := 0; j < n; j++ {
		c.b = append(c.b, row()...)
	}
	return c
}

func (c distCase) dot(i, j int, k0, k1 int64) float64 {
	var s float64
	for k := k0; k < k1; k++ {
		s += c.a[(c.arow0+i)*c.rowLen+int(k)] * c.b[j*c.rowLen+int(k)]
	}
	return s
}

func TestCPUDistGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, workers := range []int{1, 2, 3} {
		be := gpu.NewCPUWorkers(workers)
		ops := mustOps(t, be)
		c := newDistCase(rng, 5, 3, 2, 300, 4)
		segs := len(c.bounds) - 1
		dst, _ := be.Alloc("dst", int64(segs*c.m*c.n)*8)
		a, b, sg := f64Buf(t, be, "a", c.a), f64Buf(t, be, "b", c.b), int64Buf(t, be, c.bounds)
		if err := ops.Gram(dst, a, b, sg, GramShape{M: c.m, N: c.n, ARow0: c.arow0, RowLen: c.rowLen, Segs: segs}); err != nil {
			t.Fatal(err)
		}
		checkNaiveGram(t, fmt.Sprintf("workers %d", workers), c, download(t, be, dst))
	}
}

func TestCPUDistMetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	be := gpu.NewCPU()
	ops := mustOps(t, be)
	const voxels, shells = 200, 5
	c := newDistCase(rng, 4, 3, 1, voxels, shells)
	segs := len(c.bounds) - 1
	gram, _ := be.Alloc("gram", int64(segs*c.m*c.n)*8)
	a, b, sg := f64Buf(t, be, "a", c.a), f64Buf(t, be, "b", c.b), int64Buf(t, be, c.bounds)
	if err := ops.Gram(gram, a, b, sg, GramShape{M: c.m, N: c.n, ARow0: c.arow0, RowLen: c.rowLen, Segs: segs}); err != nil {
		t.Fatal(err)
	}
	const resScale = 10.0
	naive := func(k Kind, i, j int) float64 {
		ra := c.a[(c.arow0+i)*c.rowLen:]
		rb := c.b[j*c.rowLen:]
		var d2, ab, sa, sb, saa, sbb float64
		for v := 0; v < voxels; v++ {
			d2 += (ra[v] - rb[v]) * (ra[v] - rb[v])
			ab += ra[v] * rb[v]
			sa, sb, saa, sbb = sa+ra[v], sb+rb[v], saa+ra[v]*ra[v], sbb+rb[v]*rb[v]
		}
		n := float64(voxels)
		switch k {
		case KindL2:
			return math.Sqrt(d2)
		case KindL2Sq:
			return d2
		case KindCorr:
			return ab / n
		case KindCorrDist:
			return 1 - ab/n
		case KindBioEM:
			t2 := n*(sbb*saa-ab*ab) + 2*sa*ab*sb - sbb*sa*sa - saa*sb*sb
			t3 := (n - 2) * (n*sbb - sb*sb)
			return -(math.Pi/2 + math.Log(2*math.Pi*math.E)*(1-n/2) + math.Log(t2)*(1.5-n/2) + math.Log(t3)*(n/2-2))
		}
		var sum float64
		first := 0
		for s := 1; s <= shells; s++ {
			var num, pa, pb float64
			for k := c.bounds[s]; k < c.bounds[s+1]; k++ {
				num += ra[k] * rb[k]
				pa += ra[k] * ra[k]
				pb += rb[k] * rb[k]
			}
			f := num / math.Sqrt(pa*pb)
			sum += f
			if first == 0 && f < 0.5 {
				first = s
			}
		}
		if k == KindFSC {
			return 1 - sum/shells
		}
		if first == 0 {
			first = shells
		}
		return resScale / float64(first)
	}
	dst, _ := be.Alloc("dst", int64(2*c.m*c.n)*8)
	for k := KindL2; k <= KindRes; k++ {
		ms := MetricShape{Kind: k, M: c.m, N: c.n, ARow0: c.arow0, RowLen: c.rowLen, Dst0: c.m * c.n,
			Segs: segs, DataSeg: 0, ShellSeg0: 1, Shells: shells, StatOff: c.statOff, Voxels: voxels, ResScale: resScale}
		if err := ops.Metric(dst, gram, a, b, ms); err != nil {
			t.Fatal(err)
		}
		got := download(t, be, dst)[c.m*c.n:]
		for i := 0; i < c.m; i++ {
			for j := 0; j < c.n; j++ {
				if g, w := got[i*c.n+j], naive(k, i, j); math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
					t.Errorf("kind %d (%d,%d): %g, naive %g", k, i, j, g, w)
				}
			}
		}
	}
}

// TestBioEMClamp: identical maps make t2 = 0; the log takes BioEMTiny.
func TestBioEMClamp(t *testing.T) {
	n, co, coo := 4.0, 2.0, 6.0
	got := bioEM(n, co, co, coo, coo, coo)
	t3 := (n - 2) * (n*coo - co*co)
	want := -(math.Pi/2 + math.Log(2*math.Pi*math.E)*(1-n/2) + math.Log(BioEMTiny)*(1.5-n/2) + math.Log(t3)*(n/2-2))
	if math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("BioEM of identical maps %g, want %g", got, want)
	}
}

func TestCPUDistBadShapes(t *testing.T) {
	be := gpu.NewCPU()
	ops := mustOps(t, be)
	small, _ := be.Alloc("small", 64)
	segs := int64Buf(t, be, []int64{0, 4, 100})
	big, _ := be.Alloc("big", 8000)
	freed, _ := be.Alloc("freed", 8000)
	be.Free(freed)
	for _, c := range []struct {
		err  error
		want string
	}{
		{ops.Gram(small, big, big, segs, GramShape{M: 4, N: 4, RowLen: 8, Segs: 1}), `dst buffer "small" holds 64 bytes`},
		{ops.Gram(big, big, big, segs, GramShape{M: 2, N: 2, RowLen: 8, Segs: 2}), "segment 1 [4,100) outside a row of 8"},
		{ops.Gram(big, big, big, segs, GramShape{M: -1, N: 2, RowLen: 8, Segs: 1}), "bad shape"},
		{ops.Metric(big, big, big, big, MetricShape{Kind: KindFSC, M: 1, N: 1, RowLen: 8, Segs: 2, ShellSeg0: 1, Shells: 3}), "shells 3 from segment 1"},
		{ops.Metric(big, big, big, big, MetricShape{Kind: KindL2, M: 1, N: 1, RowLen: 8, Segs: 1, StatOff: 7}), "statistics at 7"},
		{ops.Metric(big, small, big, big, MetricShape{Kind: KindL2, M: 4, N: 4, RowLen: 8, Segs: 1}), `gram buffer "small"`},
		{ops.Gram(freed, big, big, segs, GramShape{M: 1, N: 1, RowLen: 8, Segs: 1}), "dst buffer is nil or freed"},
		{ops.Metric(big, big, nil, big, MetricShape{Kind: KindL2, M: 1, N: 1, RowLen: 8, Segs: 1}), "a buffer is nil or freed"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want %q", c.err, c.want)
		}
	}
}

// BenchmarkCPUDistGram is the products of the in-memory case
// (200 x 40 maps of 64³ voxels): OpenBLAS dgemm by default, gonum's
// pure-Go Dgemm with -tags noopenblas.
func BenchmarkCPUDistGram(b *testing.B) {
	const m, n, k = 200, 40, 64 * 64 * 64
	be := gpu.NewCPU()
	ops := mustOps(b, be)
	rng := rand.New(rand.NewPCG(1, 1))
	vals := func(rows int) []float64 {
		v := make([]float64, rows*k)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	a, bb := f64Buf(b, be, "a", vals(m)), f64Buf(b, be, "b", vals(n))
	segs := f64Buf(b, be, "segs", []float64{0, math.Float64frombits(k)})
	dst, _ := be.Alloc("dst", m*n*8)
	b.ResetTimer()
	for b.Loop() {
		if err := ops.Gram(dst, a, bb, segs, GramShape{M: m, N: n, RowLen: k, Segs: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(m*n)*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
	b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// checkNaiveGram holds Gram's output got (segments x m x n) against the
// naive dot products of case c.
func checkNaiveGram(t *testing.T, label string, c distCase, got []float64) {
	t.Helper()
	segs := len(c.bounds) - 1
	for s := 0; s < segs; s++ {
		for i := 0; i < c.m; i++ {
			for j := 0; j < c.n; j++ {
				want := c.dot(i, j, c.bounds[s], c.bounds[s+1])
				if g := got[(s*c.m+i)*c.n+j]; math.Abs(g-want) > 1e-12*math.Max(1, math.Abs(want)) {
					t.Errorf("%s seg %d (%d,%d): %g, naive %g", label, s, i, j, g, want)
				}
			}
		}
	}
}

// TestCPUDistGramInPanels: a product big enough to be split into panels
// of rows (for cancellation) gives the naive products, and a cancelled
// job stops it between panels.
func TestCPUDistGramInPanels(t *testing.T) {
	defer func(w, r int64) { panelWork, panelMinRows = w, r }(panelWork, panelMinRows)
	panelWork, panelMinRows = 3*300, 2 // panels of 2 or 3 rows
	rng := rand.New(rand.NewPCG(7, 8))
	be := gpu.NewCPUWorkers(2)
	ops := mustOps(t, be)
	c := newDistCase(rng, 11, 3, 2, 300, 4)
	segs := len(c.bounds) - 1
	dst, _ := be.Alloc("dst", int64(segs*c.m*c.n)*8)
	a, b, sg := f64Buf(t, be, "a", c.a), f64Buf(t, be, "b", c.b), int64Buf(t, be, c.bounds)
	shape := GramShape{M: c.m, N: c.n, ARow0: c.arow0, RowLen: c.rowLen, Segs: segs}
	if err := ops.Gram(dst, a, b, sg, shape); err != nil {
		t.Fatal(err)
	}
	checkNaiveGram(t, "panels", c, download(t, be, dst))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	defer be.Bind(ctx, nil)()
	if err := ops.Gram(dst, a, b, sg, shape); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled job's product: %v, want context.Canceled", err)
	}
}

// otherBackend is a backend the pipeline has no kernels for.
type otherBackend struct{ *gpu.CPUBackend }

func (otherBackend) Name() string { return "other" }

func TestOpsForOtherBackend(t *testing.T) {
	_, err := opsFor(otherBackend{gpu.NewCPU()})
	if err == nil || !strings.Contains(err.Error(), "distance") || !strings.Contains(err.Error(), "other backend") {
		t.Errorf("opsFor(other backend): %v, want an error naming the pipeline and the backend", err)
	}
}
