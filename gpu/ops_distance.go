package gpu

// DistanceOps are the kernels of the distance-matrix pipeline. The maps
// reach the device already masked, normalised and laid out as rows of
// float64 (processing/distance prepares them on the host while the device
// works on the previous chunk); these kernels do the work that grows with
// the number of pairs: the products of every pair of rows, and the metrics
// made from those products and the rows' own statistics.
//
// A prepared row holds, one after the other, column segments (the masked
// voxels; then, for the Fourier shell correlation, the weighted half
// spectrum shell by shell) and, at StatOff, the row's statistics: Σx, Σx²
// over the masked voxels, then the power of each Fourier shell.
type DistanceOps interface {
	// DistGram sets, for every segment s, dst[(s·M + i)·N + j] =
	// Σ_{k ∈ [b_s, b_{s+1})} a[(ARow0+i)·RowLen + k] · b[j·RowLen + k],
	// accumulated in float64, with the Segs+1 int64 bounds b read from
	// segs. dst holds Segs·M·N float64s.
	DistGram(dst, a, b, segs *Buffer, g DistGramShape) error
	// DistMetric computes one metric for the M x N pairs of rows a[ARow0+i]
	// and b[j] from their products (gram, as DistGram wrote it) and their
	// statistics, into dst[Dst0 + i·N + j].
	DistMetric(dst, gram, a, b *Buffer, m DistMetricShape) error
}

// DistKind selects what DistMetric computes.
type DistKind int

// The metrics. For normalised maps a (ground truth) and b (submitted) of
// n masked voxels.
const (
	// DistL2 is ‖a − b‖ = √max(‖a‖² + ‖b‖² − 2a·b, 0).
	DistL2 DistKind = iota
	// DistL2Sq is ‖a − b‖².
	DistL2Sq
	// DistCorr is the correlation a·b / n: a similarity, not a distance.
	DistCorr
	// DistCorrDist is 1 − a·b / n.
	DistCorrDist
	// DistBioEM is −log P of Cossio & Hummer (J. Struct. Biol. 2013,
	// eq. 10) as the cryo-EM heterogeneity challenge evaluates it, with
	// Co = Σa, Cc = Σb, Coo = Σa², Ccc = Σb², Coc = a·b:
	//   t2 = n(Ccc·Coo − Coc²) + 2·Co·Coc·Cc − Ccc·Co² − Coo·Cc²
	//   t3 = (n − 2)(n·Ccc − Cc²)
	//   log P = π/2 + (1 − n/2)·log(2πe) + (3/2 − n/2)·log t2 + (n/2 − 2)·log t3
	// with t2 and t3 clamped at BioEMTiny before the logarithm.
	DistBioEM
	// DistFSC is 1 − the mean over shells 1…Shells of the Fourier shell
	// correlation FSC_s = Σ_s Re(A·B̄) / √(Σ_s|A|² · Σ_s|B|²) (0 where a
	// shell has no power).
	DistFSC
	// DistRes is the resolution in Å where the FSC first drops below 0.5:
	// ResScale / s for the first such shell s, or ResScale / Shells (the
	// Nyquist limit) when it never does.
	DistRes
)

// BioEMTiny is the clamp of the BioEM logarithms' arguments: the smallest
// positive normal float32 (2⁻¹²⁶), the type the maps are stored in, as the
// challenge clamps at torch.finfo(float32).tiny.
const BioEMTiny = 1.1754943508222875e-38

// DistGramShape is the shape of a DistGram call.
type DistGramShape struct {
	// M rows of a starting at row ARow0; N rows of b.
	M, N, ARow0 int
	// RowLen is the number of float64s in each row of a and b.
	RowLen int
	// Segs is the number of column segments.
	Segs int
}

// DistMetricShape is the shape of a DistMetric call.
type DistMetricShape struct {
	Kind DistKind
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
