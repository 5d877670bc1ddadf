package distance

import (
	"fmt"
	"math"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
)

// The self-check of the distance ops (gpu.RegisterSelfCheck): before a
// run trusts a backend other than the CPU, Gram and every metric run
// once on fixed prepared rows (5 rows of a from row 1, 4 of b, 60 masked
// voxels and 3 Fourier shells) and must agree with the CPU ops within
// 1e-9 relative, the tolerance of the CUDA parity test
// (cuda_ops_test.go: the CPU sums with OpenBLAS's blocking, the kernel
// in column order).

func init() { gpu.RegisterSelfCheck("distance", selfCheck) }

const checkRel = 1e-9

// checkCase is the fixed input: rows laid out as the pipeline prepares
// them (segments, then Σx, Σx² and the shells' powers at statOff).
type checkCase struct {
	m, n, arow0, voxels, shells int
	bounds                      []int64
	statOff, rowLen             int
	a, b                        []float64
}

func newCheckCase() checkCase {
	c := checkCase{m: 5, n: 4, arow0: 1, voxels: 60, shells: 3}
	c.bounds = []int64{0, 60, 64, 70, 75}
	c.statOff = 75
	c.rowLen = c.statOff + 2 + c.shells
	row := func(r int) []float64 {
		x := make([]float64, c.rowLen)
		for k := 0; k < c.statOff; k++ {
			x[k] = math.Sin(1.7*float64(k)+0.9*float64(r)) + 0.3*math.Cos(0.37*float64(k*r))
		}
		for k := 0; k < c.voxels; k++ {
			x[c.statOff] += x[k]
			x[c.statOff+1] += x[k] * x[k]
		}
		for s := 1; s <= c.shells; s++ {
			for k := c.bounds[s]; k < c.bounds[s+1]; k++ {
				x[c.statOff+1+s] += x[k] * x[k]
			}
		}
		return x
	}
	for i := 0; i < c.arow0+c.m; i++ {
		c.a = append(c.a, row(i)...)
	}
	for j := 0; j < c.n; j++ {
		c.b = append(c.b, row(100+j)...)
	}
	return c
}

// selfCheck compares be's distance ops (opsFor: the ops a run would get)
// with the CPU's.
func selfCheck(be gpu.Backend) error {
	ops, err := opsFor(be)
	if err != nil {
		return err
	}
	cpu := gpu.NewCPU()
	defer cpu.Close()
	c := newCheckCase()
	gg, mg, err := runCheck(be, ops, c)
	if err != nil {
		return err
	}
	gc, mc, err := runCheck(cpu, cpuOps{cpu}, c)
	if err != nil {
		return fmt.Errorf("on the CPU: %w", err)
	}
	if err := gpu.CompareRelative("gram", gg, gc, checkRel); err != nil {
		return err
	}
	pairs := c.m * c.n
	for k := KindL2; k <= KindRes; k++ {
		lo, hi := int(k)*pairs, int(k+1)*pairs
		if err := gpu.CompareRelative(fmt.Sprintf("metric %d", k), mg[lo:hi], mc[lo:hi], checkRel); err != nil {
			return err
		}
	}
	return nil
}

// runCheck runs Gram, then Metric for every kind, on be; it returns the
// products and the metrics (kind after kind).
func runCheck(be gpu.Backend, ops Ops, c checkCase) (gram, metrics []float64, err error) {
	bufs := gpu.NewCheckBuffers(be)
	defer bufs.Free()
	segs := len(c.bounds) - 1
	kinds := int(KindRes) + 1
	err = gpu.Guard(func() error {
		a, b, sg := bufs.Upload("a", volume.Bytes(c.a)), bufs.Upload("b", volume.Bytes(c.b)), bufs.Upload("segments", int64Bytes(c.bounds))
		g, d := bufs.Zero("gram", int64(segs*c.m*c.n)*8), bufs.Zero("metrics", int64(kinds*c.m*c.n)*8)
		if bufs.Err() != nil {
			return bufs.Err()
		}
		gs := GramShape{M: c.m, N: c.n, ARow0: c.arow0, RowLen: c.rowLen, Segs: segs}
		if err := gpu.Guard(func() error { return ops.Gram(g, a, b, sg, gs) }); err != nil {
			return fmt.Errorf("gram: %w", err)
		}
		for k := KindL2; k <= KindRes; k++ {
			ms := MetricShape{Kind: k, M: c.m, N: c.n, ARow0: c.arow0, RowLen: c.rowLen, Dst0: int(k) * c.m * c.n,
				Segs: segs, DataSeg: 0, ShellSeg0: 1, Shells: c.shells, StatOff: c.statOff, Voxels: c.voxels, ResScale: 7.5}
			if err := gpu.Guard(func() error { return ops.Metric(d, g, a, b, ms) }); err != nil {
				return fmt.Errorf("metric %d: %w", k, err)
			}
		}
		gram, metrics = volume.Float64s(bufs.Download(g)), volume.Float64s(bufs.Download(d))
		return bufs.Err()
	})
	return gram, metrics, err
}
