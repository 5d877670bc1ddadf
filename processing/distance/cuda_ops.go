//go:build cuda

package distance

import (
	_ "embed"
	"fmt"
	"unsafe"

	"github.com/voxlab/voxlab/gpu"
)

// distancePTX is distance.cu compiled by scripts/build-ptx.sh.
//
//go:embed distance.ptx
var distancePTX string

func init() {
	cudaOpsFor = func(be gpu.Backend) (Ops, bool, error) {
		c, ok := be.(*gpu.CUDABackend)
		if !ok {
			return nil, false, nil
		}
		if err := c.LoadModule("distance.ptx", distancePTX); err != nil {
			return nil, true, fmt.Errorf("distance: load the CUDA kernels: %w", err)
		}
		return cudaOps{c}, true, nil
	}
}

// cudaOps are the operations on a CUDA backend: the kernels of
// distance.cu.
type cudaOps struct{ be *gpu.CUDABackend }

// distTile is DIST_TILE of distance.cu.
const distTile = 16

// alive asks the backend whether b is one of its live buffers.
func (c cudaOps) alive(b *gpu.Buffer) error { return c.be.CheckBuffer(b.Label(), b, 0) }

// Gram runs dist_gram: one 16x16 block per 16x16 tile of each segment's
// products (grid z = segment). The segment bounds are read on the
// device; the pipeline makes them from its layout, so only the buffers'
// sizes are checked here.
func (c cudaOps) Gram(dst, a, b, segs *gpu.Buffer, g GramShape) error {
	if err := checkGramSizes(c.alive, dst, a, b, segs, g); err != nil {
		return err
	}
	if g.M == 0 || g.N == 0 {
		return nil
	}
	C, A, B, S := gpu.DevPtr(dst, 0), gpu.DevPtr(a, 0), gpu.DevPtr(b, 0), gpu.DevPtr(segs, 0)
	m, n, arow0, rowLen := int32(g.M), int32(g.N), int32(g.ARow0), int32(g.RowLen)
	grid := [3]int{(g.N + distTile - 1) / distTile, (g.M + distTile - 1) / distTile, g.Segs}
	return c.be.Launch("dist_gram", grid, [3]int{distTile, distTile, 1}, 0,
		unsafe.Pointer(&C), unsafe.Pointer(&A), unsafe.Pointer(&B), unsafe.Pointer(&S),
		unsafe.Pointer(&m), unsafe.Pointer(&n), unsafe.Pointer(&arow0), unsafe.Pointer(&rowLen))
}

// Metric runs dist_metric, one thread per pair.
func (c cudaOps) Metric(dst, gram, a, b *gpu.Buffer, m MetricShape) error {
	if err := checkMetric(c.alive, dst, gram, a, b, m); err != nil {
		return err
	}
	pairs := m.M * m.N
	if pairs == 0 {
		return nil
	}
	D, G, A, B := gpu.DevPtr(dst, 0), gpu.DevPtr(gram, 0), gpu.DevPtr(a, 0), gpu.DevPtr(b, 0)
	kind, mm, n, arow0, rowLen, dst0 := int32(m.Kind), int32(m.M), int32(m.N), int32(m.ARow0), int32(m.RowLen), int32(m.Dst0)
	dataSeg, shellSeg0, shells, statOff, voxels := int32(m.DataSeg), int32(m.ShellSeg0), int32(m.Shells), int32(m.StatOff), int32(m.Voxels)
	resScale := m.ResScale
	const threads = 128
	return c.be.Launch("dist_metric", [3]int{(pairs + threads - 1) / threads, 1, 1}, [3]int{threads, 1, 1}, 0,
		unsafe.Pointer(&D), unsafe.Pointer(&G), unsafe.Pointer(&A), unsafe.Pointer(&B),
		unsafe.Pointer(&kind), unsafe.Pointer(&mm), unsafe.Pointer(&n), unsafe.Pointer(&arow0),
		unsafe.Pointer(&rowLen), unsafe.Pointer(&dst0), unsafe.Pointer(&dataSeg), unsafe.Pointer(&shellSeg0),
		unsafe.Pointer(&shells), unsafe.Pointer(&statOff), unsafe.Pointer(&voxels), unsafe.Pointer(&resScale))
}
