package svd

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Source is n vectors of d values (maps, flattened), read by ranges of
// values: Read(v0, v1, dst) fills dst, n × (v1−v0) row-major, with
// values v0 … v1−1 of every vector — a slab of planes of every map in a
// stack.
type Source interface {
	N() int
	D() int
	Read(v0, v1 int, dst []float64) error
}

// Result is a rank-r SVD of the maps after the challenge's
// preprocessing of them: each map divided by its norm, then the mean map
// removed, X = U·diag(S)·Vᵀ. U is n × r, V is d × r (the challenge's
// eigenvectors), both row-major; Mean is the mean of the normalised
// maps.
type Result struct {
	N, D, Rank int
	S          []float64
	U, V       []float64
	Mean       []float64
}

// GramSVD computes the top-rank SVD of src's maps, normalised and with
// their mean removed, in memory bounded by n² + n·chunk values (plus V,
// d·rank) however many voxels the maps have: the Gram matrix K = X·Xᵀ
// of the raw maps is accumulated over slabs of chunk voxels (a symmetric
// rank-k update per slab), normalised (K_ij / ‖x_i‖‖x_j‖, the norms
// its diagonal) and centred (H·K·H, H = I − 11ᵀ/n); its eigenvectors
// are U and the square roots of its eigenvalues S; a second pass over
// the slabs gives V = Xᵀ·U·diag(S)⁻¹ slab by slab (the "method of
// snapshots", Sirovich, Q. Appl. Math. 45(3), 1987). The eigenvalues
// are S², so a singular value carries an absolute error of about
// ε·S_1²/S_k: exact for the leading subspaces it is asked for.
func GramSVD(ctx context.Context, src Source, rank, chunk int) (*Result, error) {
	n, d := src.N(), src.D()
	if rank < 1 || rank >= n {
		return nil, fmt.Errorf("rank %d of %d maps: want 1 to %d (removing the mean leaves %d directions)", rank, n, n-1, n-1)
	}
	chunk = max(1, min(chunk, d))
	k, err := gram(ctx, src, chunk)
	if err != nil {
		return nil, err
	}
	norms := make([]float64, n)
	for i := range n {
		if norms[i] = math.Sqrt(k.At(i, i)); norms[i] == 0 || math.IsNaN(norms[i]) {
			return nil, fmt.Errorf("map %d is zero (or not finite) after preprocessing: it has no norm to divide by", i)
		}
	}
	kc := centred(k, norms)
	var eig mat.EigenSym
	if !eig.Factorize(kc, true) {
		return nil, fmt.Errorf("the eigendecomposition of the %d × %d Gram matrix did not converge", n, n)
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	r := &Result{N: n, D: d, Rank: rank, S: make([]float64, rank), U: make([]float64, n*rank)}
	for c := range rank { // eigenvalues ascend: take them from the top
		e := n - 1 - c
		r.S[c] = math.Sqrt(math.Max(vals[e], 0))
		if r.S[c] <= 1e-12*math.Sqrt(math.Max(vals[n-1], 0)) {
			return nil, fmt.Errorf("rank %d: the maps span only %d directions after removing the mean", rank, c)
		}
		for i := range n {
			r.U[i*rank+c] = vecs.At(i, e)
		}
	}
	if err := r.project(ctx, src, norms, chunk); err != nil {
		return nil, err
	}
	return r, nil
}

// gram accumulates X·Xᵀ over slabs of chunk voxels.
func gram(ctx context.Context, src Source, chunk int) (*mat.SymDense, error) {
	n, d := src.N(), src.D()
	k := mat.NewSymDense(n, nil)
	buf := make([]float64, n*chunk)
	for v0 := 0; v0 < d; v0 += chunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := min(chunk, d-v0)
		if err := src.Read(v0, v0+c, buf[:n*c]); err != nil {
			return nil, err
		}
		blas64.Syrk(blas.NoTrans, 1, blas64.General{Rows: n, Cols: c, Stride: c, Data: buf[:n*c]}, 1, k.RawSymmetric())
	}
	return k, nil
}

// centred is H·D⁻¹·K·D⁻¹·H: the Gram matrix of the normalised maps
// less their mean.
func centred(k *mat.SymDense, norms []float64) *mat.SymDense {
	n := len(norms)
	kn := mat.NewSymDense(n, nil)
	rowMean := make([]float64, n)
	total := 0.0
	for i := range n {
		for j := i; j < n; j++ {
			x := k.At(i, j) / (norms[i] * norms[j])
			kn.SetSym(i, j, x)
			rowMean[i] += x
			if j != i {
				rowMean[j] += x
			}
		}
	}
	for i := range n {
		rowMean[i] /= float64(n)
		total += rowMean[i]
	}
	total /= float64(n)
	for i := range n {
		for j := i; j < n; j++ {
			kn.SetSym(i, j, kn.At(i, j)-rowMean[i]-rowMean[j]+total)
		}
	}
	return kn
}

// project is the second pass: the mean map and V = Xᵀ·U·diag(S)⁻¹, slab
// by slab.
func (r *Result) project(ctx context.Context, src Source, norms []float64, chunk int) error {
	n, d, rank := r.N, r.D, r.Rank
	r.Mean, r.V = make([]float64, d), make([]float64, d*rank)
	buf := make([]float64, n*chunk)
	u := blas64.General{Rows: n, Cols: rank, Stride: rank, Data: r.U}
	for v0 := 0; v0 < d; v0 += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := min(chunk, d-v0)
		b := buf[:n*c]
		if err := src.Read(v0, v0+c, b); err != nil {
			return err
		}
		mean := r.Mean[v0 : v0+c]
		for i := range n {
			row := b[i*c : (i+1)*c]
			for v := range row {
				row[v] /= norms[i]
				mean[v] += row[v]
			}
		}
		for v := range mean {
			mean[v] /= float64(n)
		}
		for i := range n {
			for v := range c {
				b[i*c+v] -= mean[v]
			}
		}
		out := blas64.General{Rows: c, Cols: rank, Stride: rank, Data: r.V[v0*rank : (v0+c)*rank]}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, blas64.General{Rows: n, Cols: c, Stride: c, Data: b}, u, 0, out)
		for v := range c {
			for j := range rank {
				out.Data[v*rank+j] /= r.S[j]
			}
		}
	}
	return nil
}
