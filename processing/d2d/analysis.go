package d2d

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
)

// Config is the analysis' settings, the challenge's config keys.
type Config struct {
	// Replicates is n_replicates: replicate r draws its rows with seed r.
	Replicates int
	// Pool is n_pool_microstate: ground-truth maps per window.
	Pool int
	// Fraction is replicate_fraction: the share of ground-truth maps a
	// replicate draws.
	Fraction float64
	// KLIterations and KLTolerance are optimal_q_kl's n_iter and
	// break_atol.
	KLIterations int
	KLTolerance  float64
}

// Ground is the ground truth's side: its populations in the cost
// matrix's row order and the order of its rows by pc1.
type Ground struct {
	Populations []float64
	Order       []int
}

// Replicate is one replicate's results, the challenge's
// results[metric]["replicates"][r]: the rows drawn, the windowed rank
// cost W (Windows × N), the windowed ground-truth populations Wp, the
// EMD of the optimal q and of the submitted populations with their
// plans, and the KL results with the assignment matrix A.
type Replicate struct {
	Seed    int
	Rows    []int // rows of the pc1-sorted cost matrix, sorted
	Windows int
	N       int
	W       []float64 // Windows × N
	Wp      []float64 // Windows

	QOptEMD         []float64
	EMDOpt          float64
	PlanOpt         []float64 // Windows × N
	EMDSubmitted    float64
	PlanSubmitted   []float64 // Windows × N
	SubmittedPivots int

	QOptKL        []float64
	KLpqOpt       float64
	KLqpOpt       float64
	KLIterStop    int
	KLEpsStop     float64
	KLObjective   []float64
	A             []float64 // Windows × N
	KLpqSubmitted float64
	KLqpSubmitted float64
}

// Analyse runs every replicate on the cost matrix (rows ground-truth
// maps, cols submitted maps, row-major) as the challenge's
// _distribution_to_distribution.run does for one metric.
func Analyse(ctx context.Context, cost []float64, rows, cols int, g Ground, pops []float64, cfg Config) ([]Replicate, error) {
	return analyseParallel(ctx, cost, rows, cols, g, pops, cfg, 1, nil)
}

// analyseParallel is Analyse with up to workers replicates at once
// (each is independent: its own seed and rows), calling done after each.
func analyseParallel(ctx context.Context, cost []float64, rows, cols int, g Ground, pops []float64, cfg Config, workers int, done func()) ([]Replicate, error) {
	if len(g.Populations) != rows || len(g.Order) != rows {
		return nil, fmt.Errorf("the ground truth has %d populations for a cost matrix of %d rows", len(g.Populations), rows)
	}
	if len(pops) != cols {
		return nil, fmt.Errorf("%d submitted populations for a cost matrix of %d columns", len(pops), cols)
	}
	k := replicateSize(cfg.Fraction, rows)
	if k/cfg.Pool < 1 {
		return nil, fmt.Errorf("a replicate draws %d of %d ground-truth maps, fewer than a window of %d (--pool)", k, rows, cfg.Pool)
	}
	sorted := make([]float64, 0, rows*cols)
	prob := make([]float64, rows)
	for i, r := range g.Order {
		sorted = append(sorted, cost[r*cols:(r+1)*cols]...)
		prob[i] = g.Populations[r]
	}
	out := make([]Replicate, cfg.Replicates)
	errs := make([]error, cfg.Replicates)
	sem := make(chan struct{}, max(workers, 1))
	var wg sync.WaitGroup
	for r := range out {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := ctx.Err(); err != nil {
				errs[r] = err
				return
			}
			rep, err := replicate(ctx, sorted, prob, cols, pops, r, k, cfg)
			if err != nil {
				errs[r] = fmt.Errorf("replicate %d: %w", r, err)
				return
			}
			out[r] = *rep
			if done != nil {
				done()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the first: a cancel fails every later replicate alike
		}
	}
	return out, nil
}

// replicateSize is int(fraction·m), as the challenge rounds it.
func replicateSize(fraction float64, m int) int { return int(math.Floor(fraction * float64(m))) }

// replicate is one replicate on the pc1-sorted cost and populations.
func replicate(ctx context.Context, cost, prob []float64, n int, pops []float64, seed, k int, cfg Config) (*Replicate, error) {
	rows := replicateRows(uint32(seed), len(prob), k)
	p := make([]float64, k)
	total := 0.0
	for _, r := range rows {
		total += prob[r]
	}
	for i, r := range rows {
		p[i] = prob[r] / total
	}
	windows := splitWindows(k, k/cfg.Pool)
	rank := make([]float64, n)
	rep := &Replicate{Seed: seed, Rows: rows, Windows: len(windows), N: n,
		W: make([]float64, len(windows)*n), Wp: make([]float64, len(windows))}
	for w, win := range windows {
		for _, i := range win {
			rankRow(cost[rows[i]*n:(rows[i]+1)*n], rank)
			for j, x := range rank {
				rep.W[w*n+j] += x
			}
			rep.Wp[w] += p[i]
		}
	}
	rep.QOptEMD, rep.PlanOpt, rep.EMDOpt = optimalQEMD(rep.Wp, rep.W, n)
	t, err := EMD(ctx, rep.Wp, pops, rep.W)
	if err != nil {
		return nil, err
	}
	rep.EMDSubmitted, rep.PlanSubmitted, rep.SubmittedPivots = t.Cost, t.Plan, t.Pivots
	rep.A = assignment(rep.W, len(windows), n)
	rep.fitKL(pops, cfg)
	return rep, nil
}

// splitWindows splits 0..k−1 into w consecutive windows as
// np.array_split does: the first k mod w windows one longer.
func splitWindows(k, w int) [][]int {
	out := make([][]int, w)
	start := 0
	for i := range out {
		size := k / w
		if i < k%w {
			size++
		}
		out[i] = make([]int, size)
		for j := range size {
			out[i][j] = start + j
		}
		start += size
	}
	return out
}

// rankRow writes the ranks (1-based) of row's values into dst, ties
// given the mean of the ranks they span: scipy.stats.rankdata's default
// "average" method.
func rankRow(row, dst []float64) {
	idx := make([]int, len(row))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case row[a] < row[b]:
			return -1
		case row[a] > row[b]:
			return 1
		}
		return 0
	})
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && row[idx[j]] == row[idx[i]] {
			j++
		}
		r := float64(i+j+1) / 2 // mean of ranks i+1 … j
		for _, k := range idx[i:j] {
			dst[k] = r
		}
		i = j
	}
}

// optimalQEMD solves the challenge's optimal_q_emd_vec linear
// programme — minimise Σ T_wl W_wl over T ≥ 0 and q with T's row sums
// p, its column sums q and Σq = 1 — in closed form: q is free, so the
// programme falls apart into one per window, each sending all of p_w to
// its cheapest column (the first, on ties). Its objective is the LP's
// optimum; on ties any split among the cheapest columns is optimal too,
// and an interior-point solver (cvxpy's ECOS) returns such a split.
func optimalQEMD(p, w []float64, n int) (q, t []float64, objective float64) {
	q, t = make([]float64, n), make([]float64, len(w))
	for r, pr := range p {
		l := argmin(w[r*n : (r+1)*n])
		t[r*n+l] = pr
		q[l] += pr
		objective += pr * w[r*n+l]
	}
	return q, t, objective
}

// argmin is the first index of the least value, as numpy's argmin.
func argmin(x []float64) int {
	best := 0
	for i, v := range x {
		if v < x[best] {
			best = i
		}
	}
	return best
}

// assignment is the challenge's make_assignment_matrix: 1 at each
// window's cheapest column, each column divided by its sum, and a
// column no window chose set to 1/windows throughout.
func assignment(w []float64, rows, n int) []float64 {
	a := make([]float64, rows*n)
	count := make([]float64, n)
	for r := range rows {
		l := argmin(w[r*n : (r+1)*n])
		a[r*n+l] = 1
		count[l]++
	}
	for r := range rows {
		for l := range n {
			if count[l] == 0 {
				a[r*n+l] = 1 / float64(rows)
			} else {
				a[r*n+l] /= count[l]
			}
		}
	}
	return a
}

// matVec is A·x for the rows × n matrix a.
func matVec(a, x []float64, rows int) []float64 {
	n := len(x)
	out := make([]float64, rows)
	for r := range rows {
		s := 0.0
		for l, xl := range x {
			s += a[r*n+l] * xl
		}
		out[r] = s
	}
	return out
}

// kl returns KL(p‖q) and KL(q‖p), as compute_kl_between_distributions.
func kl(p, q []float64) (pq, qp float64) {
	for i := range p {
		pq += p[i] * math.Log(p[i]/q[i])
		qp += q[i] * math.Log(q[i]/p[i])
	}
	return pq, qp
}

// fitKL is the challenge's optimal_q_kl from the uniform q: the
// multiplicative (EM) update q ← q ⊙ ∇, ∇_l = Σ_w Wp_w A_wl / (Aq)_w,
// which maximises Σ Wp log(Aq) over the simplex, stopping when every
// ∇_l is within KLTolerance of 1 or of 0 (numpy's isclose, its rtol
// 1e-5 included) or after KLIterations; then the KL divergences of the
// fit and of the submitted populations.
func (rep *Replicate) fitKL(pops []float64, cfg Config) {
	n, rows := rep.N, rep.Windows
	x := make([]float64, n)
	for l := range x {
		x[l] = 1 / float64(n)
	}
	grad, next := make([]float64, n), make([]float64, n)
	var eps float64
	it := 0
	for it = 0; it < cfg.KLIterations; it++ {
		ax := matVec(rep.A, x, rows)
		clear(grad)
		for r := range rows {
			for l := range n {
				grad[l] += rep.Wp[r] * rep.A[r*n+l] / ax[r]
			}
		}
		eps = 0
		for l := range n {
			next[l] = grad[l] * x[l]
			eps += (next[l] - x[l]) * (next[l] - x[l])
		}
		eps = math.Sqrt(eps)
		x, next = next, x
		if converged(grad, cfg.KLTolerance) {
			break
		}
	}
	if it == cfg.KLIterations {
		it-- // the challenge reports the last iteration run
	}
	rep.QOptKL, rep.KLIterStop, rep.KLEpsStop = x, it, eps
	rep.KLpqOpt, rep.KLqpOpt = kl(rep.Wp, matVec(rep.A, x, rows))
	rep.KLpqSubmitted, rep.KLqpSubmitted = kl(rep.Wp, matVec(rep.A, pops, rows))
}

// converged: every gradient entry is close to 1 or to 0 as np.isclose
// has it (|a−b| ≤ atol + 1e-5·|b|).
func converged(grad []float64, atol float64) bool {
	for _, g := range grad {
		if math.Abs(g-1) > atol+1e-5 && math.Abs(g) > atol {
			return false
		}
	}
	return true
}
