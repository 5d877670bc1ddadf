package distance

import (
	"errors"
	"fmt"

	"github.com/voxlab/voxlab/gpu"
)

// Ops are the pipeline's device operations, one implementation per
// backend (cpu_ops.go, and cuda_ops.go in the cuda build). The maps reach
// the device already masked, normalised and laid out as rows of float64
// (the pipeline prepares them on the host while the device works on the
// previous chunk); these kernels do the work that grows with the number
// of pairs: the products of every pair of rows, and the metrics made from
// those products and the rows' own statistics.
//
// A prepared row holds, one after the other, column segments (the masked
// voxels; then, for the Fourier shell correlation, the weighted half
// spectrum shell by shell) and, at StatOff, the row's statistics: Σx, Σx²
// over the masked voxels, then the power of each Fourier shell.
type Ops interface {
	// Gram sets, for every segment s, dst[(s·M + i)·N + j] =
	// Σ_{k ∈ [b_s, b_{s+1})} a[(ARow0+i)·RowLen + k] · b[j·RowLen + k],
	// accumulated in float64, with the Segs+1 int64 bounds b read from
	// segs. dst holds Segs·M·N float64s.
	Gram(dst, a, b, segs *gpu.Buffer, g GramShape) error
	// Metric computes one metric for the M x N pairs of rows a[ARow0+i]
	// and b[j] from their products (gram, as Gram wrote it) and their
	// statistics, into dst[Dst0 + i·N + j].
	Metric(dst, gram, a, b *gpu.Buffer, m MetricShape) error
}

// cudaOpsFor is set by the cuda build (cuda_ops.go): it returns the CUDA
// operations when be is a CUDA backend (ok false when it is not).
var cudaOpsFor func(be gpu.Backend) (ops Ops, ok bool, err error)

// opsFor returns the operations for backend be.
func opsFor(be gpu.Backend) (Ops, error) {
	return gpu.PickOps("distance", be, func(c *gpu.CPUBackend) Ops { return cpuOps{c} }, cudaOpsFor)
}

// Kind selects what Metric computes (a Metric of the pipeline names the
// matrix; its Kind, the formula).
type Kind int

// The metrics. For normalised maps a (ground truth) and b (submitted) of
// n masked voxels.
const (
	// KindL2 is ‖a − b‖ = √max(‖a‖² + ‖b‖² − 2a·b, 0).
	KindL2 Kind = iota
	// KindL2Sq is ‖a − b‖².
	KindL2Sq
	// KindCorr is the correlation a·b / n: a similarity, not a distance.
	KindCorr
	// KindCorrDist is 1 − a·b / n.
	KindCorrDist
	// KindBioEM is −log P of Cossio & Hummer (J. Struct. Biol. 2013,
	// eq. 10) as the cryo-EM heterogeneity challenge evaluates it, with
	// Co = Σa, Cc = Σb, Coo = Σa², Ccc = Σb², Coc = a·b:
	//   t2 = n(Ccc·Coo − Coc²) + 2·Co·Coc·Cc − Ccc·Co² − Coo·Cc²
	//   t3 = (n − 2)(n·Ccc − Cc²)
	//   log P = π/2 + (1 − n/2)·log(2πe) + (3/2 − n/2)·log t2 + (n/2 − 2)·log t3
	// with t2 and t3 clamped at BioEMTiny before the logarithm.
	KindBioEM
	// KindFSC is 1 − the mean over shells 1…Shells of the Fourier shell
	// correlation FSC_s = Σ_s Re(A·B̄) / √(Σ_s|A|² · Σ_s|B|²) (0 where a
	// shell has no power).
	KindFSC
	// KindRes is the resolution in Å where the FSC first drops below 0.5:
	// ResScale / s for the first such shell s, or ResScale / Shells (the
	// Nyquist limit) when it never does.
	KindRes
)

// BioEMTiny is the clamp of the BioEM logarithms' arguments: the smallest
// positive normal float32 (2⁻¹²⁶), the type the maps are stored in, as the
// challenge clamps at torch.finfo(float32).tiny.
const BioEMTiny = 1.1754943508222875e-38

// GramShape is the shape of a Gram call.
type GramShape struct {
	// M rows of a starting at row ARow0; N rows of b.
	M, N, ARow0 int
	// RowLen is the number of float64s in each row of a and b.
	RowLen int
	// Segs is the number of column segments.
	Segs int
}

// MetricShape is the shape of a Metric call.
type MetricShape struct {
	Kind Kind
	// M rows of a from ARow0, N rows of b, RowLen float64s per row.
	M, N, ARow0, RowLen int
	// Dst0 is the float64 offset of the M x N result in dst.
	Dst0 int
	// Segs is the number of segments of the gram (Segs x M x N).
	Segs int
	// DataSeg is the gram segment of the masked voxels (products a·b).
	DataSeg int
	// ShellSeg0 is the gram segment of Fourier shell 1; shells 1…Shells
	// follow it.
	ShellSeg0, Shells int
	// StatOff is the column of each row's statistics: Σx, Σx², then the
	// power of shells 1…Shells.
	StatOff int
	// Voxels is n, the number of masked voxels.
	Voxels int
	// ResScale is box x voxel size (Å): the resolution of shell s is
	// ResScale / s.
	ResScale float64
}

// errFreed is an alive func's verdict on a freed buffer.
var errFreed = errors.New("freed")

// needBytes checks that buffer b is a live buffer (alive gives the
// backend's verdict) holding at least n float64s.
func needBytes(alive func(*gpu.Buffer) error, op, what string, b *gpu.Buffer, n int) error {
	var err error
	if b != nil {
		err = alive(b)
	}
	switch {
	case b == nil || errors.Is(err, errFreed):
		return fmt.Errorf("%s: %s buffer is nil or freed", op, what)
	case err != nil:
		return fmt.Errorf("%s: %s buffer: %w", op, what, err)
	case b.Len() < int64(n)*8:
		return fmt.Errorf("%s: %s buffer %q holds %d bytes, the call needs %d", op, what, b.Label(), b.Len(), int64(n)*8)
	}
	return nil
}

// checkGramSizes validates a Gram call's shape against its buffers'
// sizes (what a backend can check without reading device memory).
func checkGramSizes(alive func(*gpu.Buffer) error, dst, a, b, segs *gpu.Buffer, g GramShape) error {
	const op = "Gram"
	if g.M < 0 || g.N < 0 || g.ARow0 < 0 || g.RowLen < 0 || g.Segs < 1 {
		return fmt.Errorf("%s: bad shape %+v", op, g)
	}
	for _, c := range []struct {
		what string
		b    *gpu.Buffer
		n    int
	}{{"dst", dst, g.Segs * g.M * g.N}, {"a", a, (g.ARow0 + g.M) * g.RowLen}, {"b", b, g.N * g.RowLen}, {"segs", segs, g.Segs + 1}} {
		if err := needBytes(alive, op, c.what, c.b, c.n); err != nil {
			return err
		}
	}
	return nil
}

func checkMetric(alive func(*gpu.Buffer) error, dst, gram, a, b *gpu.Buffer, m MetricShape) error {
	const op = "Metric"
	if m.M < 0 || m.N < 0 || m.ARow0 < 0 || m.Dst0 < 0 || m.Segs < 1 || m.Kind < KindL2 || m.Kind > KindRes {
		return fmt.Errorf("%s: bad shape %+v", op, m)
	}
	stats := 2
	switch m.Kind {
	case KindFSC, KindRes:
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
		b    *gpu.Buffer
		n    int
	}{{"dst", dst, m.Dst0 + m.M*m.N}, {"gram", gram, m.Segs * m.M * m.N}, {"a", a, (m.ARow0 + m.M) * m.RowLen}, {"b", b, m.N * m.RowLen}} {
		if err := needBytes(alive, op, c.what, c.b, c.n); err != nil {
			return err
		}
	}
	return nil
}
