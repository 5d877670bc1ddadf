package svd

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Common is the challenge's compute_common_embedding: the SVD of every
// submission's eigenvectors scaled by their singular values, stacked
// (E, the rows diag(S_i)·V_iᵀ of every submission), E = U·diag(S)·Vhᵀ,
// and each submission's maps in it, u_i·(U·diag(S))_i (n_i × K, K the
// rows of E); with a ground truth, its maps in it too,
// U_gt·diag(S_gt)·V_gtᵀ·Vh. It is computed from E·Eᵀ (K × K, from the
// products V_iᵀ·V_j), never forming E: Vh = Eᵀ·U·diag(S)⁻¹. A
// component of zero singular value (E of lower rank than its rows) is
// set to zero where the challenge's would be arbitrary. The components'
// signs are an SVD's: each may differ from another solver's.
type Common struct {
	K          int
	S          []float64   // K
	Embeddings [][]float64 // per submission, n_i × K
	GT         []float64   // n_gt × K, when a ground truth is given
}

// CommonEmbedding computes the common embedding of subs (and gt, if not
// nil), which must share one rank and voxel count.
func CommonEmbedding(subs []*Result, gt *Result) (*Common, error) {
	r := subs[0].Rank
	for _, s := range subs {
		if s.Rank != r || s.D != subs[0].D {
			return nil, fmt.Errorf("subspaces of rank %d and %d, %d and %d voxels: a common embedding wants one rank and one box", r, s.Rank, subs[0].D, s.D)
		}
	}
	k := len(subs) * r
	eet := mat.NewSymDense(k, nil)
	for i, a := range subs {
		for j := i; j < len(subs); j++ {
			b := subs[j]
			p := product(a.V, b.V, a.D, r, r)
			for x := range r {
				for y := range r {
					if i != j || y >= x {
						eet.SetSym(i*r+x, j*r+y, a.S[x]*p[x*r+y]*b.S[y])
					}
				}
			}
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(eet, true) {
		return nil, fmt.Errorf("the eigendecomposition of the %d × %d stacked eigenvectors' Gram matrix did not converge", k, k)
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	c := &Common{K: k, S: make([]float64, k)}
	us := make([]float64, k*k) // U·diag(S), components from the largest
	for col := range k {
		e := k - 1 - col
		c.S[col] = math.Sqrt(math.Max(vals[e], 0))
		for row := range k {
			us[row*k+col] = vecs.At(row, e) * c.S[col]
		}
	}
	for i, s := range subs {
		c.Embeddings = append(c.Embeddings, mulRows(s.U, s.N, r, us[i*r*k:(i+1)*r*k], k))
	}
	if gt != nil {
		c.GT = c.project(subs, gt, us)
	}
	return c, nil
}

// project is U_gt·diag(S_gt)·V_gtᵀ·Vh with Vh = Eᵀ·U·diag(S)⁻¹, so
// V_gtᵀ·Vh = Σ_i (V_gtᵀ·V_i·diag(S_i))·(U·diag(S))_i·diag(S)⁻².
func (c *Common) project(subs []*Result, gt *Result, us []float64) []float64 {
	r, k, g := subs[0].Rank, c.K, gt.Rank
	m := make([]float64, g*k) // V_gtᵀ·Vh
	for i, s := range subs {
		p := product(gt.V, s.V, gt.D, g, r)
		for x := range g {
			for y := range r {
				p[x*r+y] *= s.S[y]
			}
		}
		part := mulRows(p, g, r, us[i*r*k:(i+1)*r*k], k)
		for x := range m {
			m[x] += part[x]
		}
	}
	tiny := 1e-12 * c.S[0]
	for x := range g {
		for col := range k {
			if c.S[col] > tiny {
				m[x*k+col] /= c.S[col] * c.S[col]
			} else {
				m[x*k+col] = 0
			}
		}
	}
	return mulRows(scaledColumns(gt.U, gt.N, g, gt.S), gt.N, g, m, k)
}

// InGT is the challenge's project_to_gt_embedding: each submission's
// maps in the ground truth's subspace, u_i·diag(S_i)·V_iᵀ·V_gt (n_i ×
// gt rank), and the ground truth's own, U_gt·diag(S_gt).
func InGT(subs []*Result, gt *Result) (embeddings [][]float64, own []float64) {
	for _, s := range subs {
		p := product(s.V, gt.V, s.D, s.Rank, gt.Rank)
		embeddings = append(embeddings, mulRows(scaledColumns(s.U, s.N, s.Rank, s.S), s.N, s.Rank, p, gt.Rank))
	}
	return embeddings, scaledColumns(gt.U, gt.N, gt.Rank, gt.S)
}

// mulRows is a·b for a n × r and b r × k, row-major.
func mulRows(a []float64, n, r int, b []float64, k int) []float64 {
	out := make([]float64, n*k)
	for i := range n {
		for x := range r {
			ax := a[i*r+x]
			for y := range k {
				out[i*k+y] += ax * b[x*k+y]
			}
		}
	}
	return out
}
