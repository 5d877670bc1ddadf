package d2d

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The golden files are made by testdata/gen_golden.py with the field's
// tools: the challenge's own _distribution_to_distribution.run, POT's
// ot.emd2, scipy's linprog and numpy's legacy RNG.

type goldenReplicate struct {
	Rows          []int       `json:"rows"`
	EMDOpt        float64     `json:"emd_opt"`
	EMDSubmitted  float64     `json:"emd_submitted"`
	QOptKL        []float64   `json:"q_opt_kl"`
	KLpqOpt       float64     `json:"klpq_opt"`
	KLqpOpt       float64     `json:"klqp_opt"`
	KLpqSubmitted float64     `json:"klpq_submitted"`
	KLqpSubmitted float64     `json:"klqp_submitted"`
	IterStop      int         `json:"iter_stop"`
	EpsStop       float64     `json:"eps_stop"`
	A             [][]float64 `json:"A"`
}

type goldenCase struct {
	Name   string `json:"name"`
	Config struct {
		Replicates int     `json:"n_replicates"`
		Pool       int     `json:"n_pool_microstate"`
		Fraction   float64 `json:"replicate_fraction"`
		KL         struct {
			Iter int     `json:"n_iter"`
			Atol float64 `json:"break_atol"`
		} `json:"optimal_q_kl"`
	} `json:"config"`
	Order         []int             `json:"order"`
	Replicates    []goldenReplicate `json:"replicates"`
	Cost          [][]float64       `json:"cost"`
	Populations   []float64         `json:"populations"`
	GTPopulations []float64         `json:"gt_populations"`
	PC1           []float64         `json:"pc1"`
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// TestReplicateRowsNumPy: the replicates' rows are numpy's legacy
// np.random.seed(s); np.random.choice(m, k, replace=False), to the index.
func TestReplicateRowsNumPy(t *testing.T) {
	var draws []struct {
		Seed, M, K int
		Rows       []int
	}
	readJSON(t, "golden_rng.json", &draws)
	for _, d := range draws {
		if got := replicateRows(uint32(d.Seed), d.M, d.K); !slices.Equal(got, d.Rows) {
			t.Errorf("seed %d, %d of %d: rows differ from numpy's (first %v, want %v)", d.Seed, d.K, d.M, got[:min(5, len(got))], d.Rows[:min(5, len(d.Rows))])
		}
	}
}

// TestEMDMatchesPOT: the transportation simplex's optimum is ot.emd2's
// to 1e-9, and its plan is a feasible transport plan.
func TestEMDMatchesPOT(t *testing.T) {
	var cases []struct {
		A, B []float64
		Cost [][]float64
		EMD2 float64 `json:"emd2"`
	}
	readJSON(t, "golden_emd.json", &cases)
	for _, c := range cases {
		flat := slices.Concat(c.Cost...)
		tr, err := EMD(context.Background(), c.A, c.B, flat)
		if err != nil {
			t.Fatalf("%d × %d: %v", len(c.A), len(c.B), err)
		}
		if !near(tr.Cost, c.EMD2, 1e-9) {
			t.Errorf("%d × %d: EMD %.17g, ot.emd2 %.17g", len(c.A), len(c.B), tr.Cost, c.EMD2)
		}
		checkMarginals(t, tr, c.A, c.B)
	}
}

// checkMarginals: the plan is non-negative with row sums a and column
// sums b.
func checkMarginals(t *testing.T, tr *Transport, a, b []float64) {
	t.Helper()
	rows, cols := make([]float64, tr.M), make([]float64, tr.N)
	for i, f := range tr.Plan {
		if f < -1e-15 {
			t.Fatalf("%d × %d: negative flow %g", tr.M, tr.N, f)
		}
		rows[i/tr.N] += f
		cols[i%tr.N] += f
	}
	for i := range a {
		if math.Abs(rows[i]-a[i]) > 1e-12 {
			t.Errorf("%d × %d: row %d carries %g, want %g", tr.M, tr.N, i, rows[i], a[i])
		}
	}
	for j := range b {
		if math.Abs(cols[j]-b[j]) > 1e-12 {
			t.Errorf("%d × %d: column %d carries %g, want %g", tr.M, tr.N, j, cols[j], b[j])
		}
	}
}

// TestAnalyseMatchesChallenge: on the challenge's own test data (read
// through the pipeline's readers) and on synthetic cases, every
// replicate is the challenge's run(): its rows exactly, the submitted
// populations' EMD (ot.emd) to 1e-9, the optimal q's objective (the LP,
// here linprog) to 1e-6, the assignment matrix, and the KL fit (its
// stopping iteration exactly, q and the divergences to 1e-9).
func TestAnalyseMatchesChallenge(t *testing.T) {
	var cases []goldenCase
	readJSON(t, "golden_d2d.json", &cases)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			cost, rows, cols, g, pops := caseInputs(t, c)
			if !slices.Equal(g.Order, c.Order) {
				t.Fatalf("pc1 order %v, pandas' %v", g.Order, c.Order)
			}
			cfg := Config{Replicates: c.Config.Replicates, Pool: c.Config.Pool, Fraction: c.Config.Fraction,
				KLIterations: c.Config.KL.Iter, KLTolerance: c.Config.KL.Atol}
			reps, err := Analyse(context.Background(), cost, rows, cols, g, pops, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(reps) != len(c.Replicates) {
				t.Fatalf("%d replicates, want %d", len(reps), len(c.Replicates))
			}
			for r, want := range c.Replicates {
				checkReplicate(t, r, &reps[r], want)
			}
		})
	}
}

func caseInputs(t *testing.T, c goldenCase) (cost []float64, rows, cols int, g Ground, pops []float64) {
	t.Helper()
	if c.Cost == nil { // the challenge's data, as files
		var err error
		if cost, rows, cols, err = readCost("testdata/challenge/l2.npy"); err != nil {
			t.Fatal(err)
		}
		if g, err = readMetadata("testdata/challenge/metadata.csv"); err != nil {
			t.Fatal(err)
		}
		if pops, err = readPopulations("testdata/challenge/populations.txt"); err != nil {
			t.Fatal(err)
		}
		return cost, rows, cols, g, pops
	}
	rows, cols = len(c.Cost), len(c.Cost[0])
	g = Ground{Populations: c.GTPopulations, Order: make([]int, rows)}
	for i := range g.Order {
		g.Order[i] = i
	}
	slices.SortStableFunc(g.Order, func(a, b int) int { return cmpFloat(c.PC1[a], c.PC1[b]) })
	return slices.Concat(c.Cost...), rows, cols, g, c.Populations
}

func checkReplicate(t *testing.T, r int, got *Replicate, want goldenReplicate) {
	t.Helper()
	if !slices.Equal(got.Rows, want.Rows) {
		t.Errorf("replicate %d: rows %v, want %v", r, got.Rows, want.Rows)
	}
	for _, v := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"EMD_opt", got.EMDOpt, want.EMDOpt, 1e-6},
		{"EMD_submitted", got.EMDSubmitted, want.EMDSubmitted, 1e-9},
		{"klpq_opt", got.KLpqOpt, want.KLpqOpt, 1e-9},
		{"klqp_opt", got.KLqpOpt, want.KLqpOpt, 1e-9},
		{"klpq_submitted", got.KLpqSubmitted, want.KLpqSubmitted, 1e-9},
		{"klqp_submitted", got.KLqpSubmitted, want.KLqpSubmitted, 1e-9},
		{"eps_stop", got.KLEpsStop, want.EpsStop, 1e-9},
	} {
		if !near(v.got, v.want, v.tol) {
			t.Errorf("replicate %d: %s %.17g, the challenge's %.17g", r, v.name, v.got, v.want)
		}
	}
	if got.KLIterStop != want.IterStop {
		t.Errorf("replicate %d: KL stopped at iteration %d, the challenge's at %d", r, got.KLIterStop, want.IterStop)
	}
	for l, q := range want.QOptKL {
		if !near(got.QOptKL[l], q, 1e-9) {
			t.Errorf("replicate %d: KL q[%d] = %.17g, the challenge's %.17g", r, l, got.QOptKL[l], q)
		}
	}
	if a := slices.Concat(want.A...); !slices.Equal(got.A, a) {
		t.Errorf("replicate %d: assignment matrix differs from the challenge's", r)
	}
}
