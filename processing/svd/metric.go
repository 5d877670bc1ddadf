package svd

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// CapturedVariance is the share of b's variance that a's subspace
// captures, the challenge's captured_variance(V, U, S): ‖Vᵀ·U·diag(S)‖ /
// ‖Uᵀ·U·diag(S)‖ (Frobenius norms) with V a's eigenvectors and U, S b's.
func CapturedVariance(a, b *Result) float64 {
	us := scaledColumns(b.V, b.D, b.Rank, b.S)
	num := frobenius(product(a.V, us, a.D, a.Rank, b.Rank))
	den := frobenius(product(b.V, us, b.D, b.Rank, b.Rank))
	return num / den
}

// Metric is the challenge's svd_metric: the mean of the variance each
// subspace captures of the other.
func Metric(a, b *Result) float64 {
	return 0.5 * (CapturedVariance(a, b) + CapturedVariance(b, a))
}

func scaledColumns(v []float64, d, r int, s []float64) []float64 {
	out := slices.Clone(v)
	for i := range d {
		for j := range r {
			out[i*r+j] *= s[j]
		}
	}
	return out
}

// product is aᵀ·b for a d × ra and b d × rb.
func product(a, b []float64, d, ra, rb int) []float64 {
	out := make([]float64, ra*rb)
	blas64.Gemm(blas.Trans, blas.NoTrans, 1,
		blas64.General{Rows: d, Cols: ra, Stride: ra, Data: a},
		blas64.General{Rows: d, Cols: rb, Stride: rb, Data: b}, 0,
		blas64.General{Rows: ra, Cols: rb, Stride: rb, Data: out})
	return out
}

func frobenius(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

// GroundTruthLabel labels the ground truth in the distance matrix, as
// the challenge's compute_distance_matrix does.
const GroundTruthLabel = "Ground Truth"

// DistanceMatrix is the challenge's compute_distance_matrix: svd_metric
// between every pair of submissions, and with the ground truth when gt
// is not nil, in the challenge's order — with a ground truth, by
// similarity to it, most similar (the ground truth itself) first
// (sort_matrix_using_gt); without, by the sum of each row, largest first,
// then by similarity to the first (sort_matrix). It returns the k × k
// matrix row-major and its labels in that order. Sorting is stable here
// (torch's argsort is not, which matters only on ties).
func DistanceMatrix(subs []*Result, labels []string, gt *Result) ([]float64, []string, error) {
	if len(subs) != len(labels) || len(subs) == 0 {
		return nil, nil, fmt.Errorf("%d subspaces with %d labels", len(subs), len(labels))
	}
	all, names := slices.Clone(subs), slices.Clone(labels)
	if gt != nil {
		all, names = append(all, gt), append(names, GroundTruthLabel)
	}
	for _, r := range all[1:] {
		if r.D != all[0].D {
			return nil, nil, fmt.Errorf("maps of %d and %d voxels: the subspaces must be of maps of one size (box and --box-size-ds)", all[0].D, r.D)
		}
	}
	k := len(all)
	m := make([]float64, k*k)
	for i := range k {
		for j := i; j < k; j++ {
			m[i*k+j] = Metric(all[i], all[j])
			m[j*k+i] = m[i*k+j]
		}
	}
	if gt != nil {
		// Ascending by the last column, then both axes flipped: descending.
		order := argsort(k, func(i int) float64 { return m[i*k+k-1] })
		slices.Reverse(order)
		return permute(m, k, order), pick(names, order), nil
	}
	sum := make([]float64, k)
	for i := range k {
		for j := range k {
			sum[j] += m[i*k+j]
		}
	}
	order := argsort(k, func(i int) float64 { return -sum[i] })
	m, names = permute(m, k, order), pick(names, order)
	order = argsort(k, func(i int) float64 { return -m[i*k] })
	return permute(m, k, order), pick(names, order), nil
}

// argsort is the indices 0 … k−1 sorted stably by key.
func argsort(k int, key func(int) float64) []int {
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ka, kb := key(a), key(b)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
	return idx
}

// permute reorders rows and columns of the k × k matrix m by order.
func permute(m []float64, k int, order []int) []float64 {
	out := make([]float64, k*k)
	for i, oi := range order {
		for j, oj := range order {
			out[i*k+j] = m[oi*k+oj]
		}
	}
	return out
}

func pick(names []string, order []int) []string {
	out := make([]string, len(order))
	for i, o := range order {
		out[i] = names[o]
	}
	return out
}
