package svd

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/voxlab/voxlab/processing/internal/hostblas"
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
// their mean removed, in memory bounded by n² + 2·n·chunk values (plus V,
// d·rank) however many voxels the maps have: the Gram matrix K = X·Xᵀ
// of the raw maps is accumulated over slabs of chunk voxels (a symmetric
// rank-k update per slab), normalised (K_ij / ‖x_i‖‖x_j‖, the norms
// its diagonal) and centred (H·K·H, H = I − 11ᵀ/n); its eigenvectors
// are U and the square roots of its eigenvalues S; a second pass over
// the slabs gives V = Xᵀ·U·diag(S)⁻¹ slab by slab (the "method of
// snapshots", Sirovich, Q. Appl. Math. 45(3), 1987). The eigenvalues
// are S², so a singular value carries an absolute error of about
// ε·S_1²/S_k: exact for the leading subspaces it is asked for. The
// products (dsyrk, dgemm) run on workers threads of OpenBLAS
// (hostblas).
func GramSVD(ctx context.Context, src Source, rank, chunk, workers int) (*Result, error) {
	n, d := src.N(), src.D()
	if rank < 1 || rank >= n {
		return nil, fmt.Errorf("rank %d of %d maps: want 1 to %d (removing the mean leaves %d directions)", rank, n, n-1, n-1)
	}
	chunk = max(1, min(chunk, d))
	k, err := gram(ctx, src, chunk, workers)
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
	if err := r.project(ctx, src, norms, chunk, workers); err != nil {
		return nil, err
	}
	return r, nil
}

// gram accumulates X·Xᵀ over slabs of chunk voxels, its upper triangle.
func gram(ctx context.Context, src Source, chunk, workers int) (*mat.SymDense, error) {
	n := src.N()
	k := mat.NewSymDense(n, nil)
	kr := k.RawSymmetric()
	err := eachSlab(ctx, src, chunk, func(_ int, x []float64) error {
		hostblas.Dsyrk(workers, kr.Uplo, blas.NoTrans, n, len(x)/n, 1, x, len(x)/n, 1, kr.Data, kr.Stride)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return k, nil
}

// eachSlab calls f on src's slabs of chunk voxels in order (x: n × c,
// row-major; the last slab may be narrower), reading the next slab while
// f works on this one, into a second buffer: a pass over maps larger
// than the page cache waits for the disk only where reading a slab takes
// longer than its products. Src is read by one goroutine at a time,
// which has stopped when eachSlab returns.
func eachSlab(ctx context.Context, src Source, chunk int, f func(v0 int, x []float64) error) error {
	n, d := src.N(), src.D()
	type slab struct {
		v0  int
		x   []float64
		err error
	}
	free := make(chan []float64, 2)
	free <- make([]float64, n*chunk)
	free <- make([]float64, n*chunk)
	ready := make(chan slab, 1)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer close(ready)
		for v0 := 0; v0 < d; v0 += chunk {
			var b []float64
			select {
			case b = <-free:
			case <-stop:
				return
			}
			c := min(chunk, d-v0)
			err := ctx.Err()
			if err == nil {
				err = src.Read(v0, v0+c, b[:n*c])
			}
			select {
			case ready <- slab{v0, b[:n*c], err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		close(stop)
		<-done
	}()
	for s := range ready {
		if s.err != nil {
			return s.err
		}
		if err := f(s.v0, s.x); err != nil {
			return err
		}
		free <- s.x[:cap(s.x)]
	}
	return ctx.Err()
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
func (r *Result) project(ctx context.Context, src Source, norms []float64, chunk, workers int) error {
	n, d, rank := r.N, r.D, r.Rank
	r.Mean, r.V = make([]float64, d), make([]float64, d*rank)
	return eachSlab(ctx, src, chunk, func(v0 int, b []float64) error {
		c := len(b) / n
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
		out := r.V[v0*rank : (v0+c)*rank]
		hostblas.Dgemm(workers, blas.Trans, blas.NoTrans, c, rank, n, 1, b, c, r.U, rank, 0, out, rank)
		for v := range c {
			for j := range rank {
				out[v*rank+j] /= r.S[j]
			}
		}
		return nil
	})
}
