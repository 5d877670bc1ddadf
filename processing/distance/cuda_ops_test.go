//go:build cuda

package distance

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/voxlab/voxlab/gpu"
)

// TestCUDADistParity: dist_gram and dist_metric give the CPU kernels'
// values (within 1e-9 relative: the CPU sums with OpenBLAS's blocking, the
// kernel in column order), for tile-aligned and ragged shapes, a row
// offset, large and empty segments, every metric.
func TestCUDADistParity(t *testing.T) {
	c, err := gpu.OpenCUDA(0)
	if err != nil {
		t.Skipf("CUDA device 0 does not open: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	cpu := gpu.NewCPU()
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sh := range []struct{ m, n, arow0, voxels, shells int }{
		{1, 1, 0, 5, 1},
		{16, 16, 0, 256, 3},
		{37, 21, 5, 3000, 8},
		{70, 3, 2, 100000, 20},
	} {
		cs := newDistCase(rng, sh.m, sh.n, sh.arow0, sh.voxels, sh.shells)
		segs := len(cs.bounds) - 1
		run := func(be gpu.Backend) (gram, metrics []float64) {
			ops := mustOps(t, be)
			a, b, sg := f64Buf(t, be, "a", cs.a), f64Buf(t, be, "b", cs.b), int64Buf(t, be, cs.bounds)
			g, err := be.Alloc("gram", int64(segs*cs.m*cs.n)*8)
			if err != nil {
				t.Fatal(err)
			}
			if err := ops.Gram(g, a, b, sg, GramShape{M: cs.m, N: cs.n, ARow0: cs.arow0, RowLen: cs.rowLen, Segs: segs}); err != nil {
				t.Fatal(err)
			}
			kinds := int(KindRes) + 1
			d, err := be.Alloc("dst", int64(kinds*cs.m*cs.n)*8)
			if err != nil {
				t.Fatal(err)
			}
			for k := KindL2; k <= KindRes; k++ {
				ms := MetricShape{Kind: k, M: cs.m, N: cs.n, ARow0: cs.arow0, RowLen: cs.rowLen, Dst0: int(k) * cs.m * cs.n,
					Segs: segs, DataSeg: 0, ShellSeg0: 1, Shells: sh.shells, StatOff: cs.statOff, Voxels: sh.voxels, ResScale: 7.5}
				if err := ops.Metric(d, g, a, b, ms); err != nil {
					t.Fatal(err)
				}
			}
			gram, metrics = download(t, be, g), download(t, be, d)
			for _, x := range []*gpu.Buffer{a, b, sg, g, d} {
				be.Free(x)
			}
			return gram, metrics
		}
		gc, mc := run(cpu)
		gg, mg := run(c)
		for i := range gc {
			if math.Abs(gg[i]-gc[i]) > 1e-9*math.Max(1, math.Abs(gc[i])) {
				t.Fatalf("%+v: products[%d] cuda %.17g cpu %.17g", sh, i, gg[i], gc[i])
			}
		}
		for i := range mc {
			if math.Abs(mg[i]-mc[i]) > 1e-9*math.Max(1, math.Abs(mc[i])) {
				t.Fatalf("%+v: metric %d pair %d: cuda %.17g cpu %.17g", sh, i/(sh.m*sh.n), i%(sh.m*sh.n), mg[i], mc[i])
			}
		}
		if c.Stats().Current != 0 {
			t.Errorf("%d device bytes left allocated", c.Stats().Current)
		}
	}
}
