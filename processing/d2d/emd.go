package d2d

import (
	"context"
	"fmt"
	"math"
)

// maxPivots caps the simplex pivots of one transport problem, as POT's
// numItermax (10⁶, the challenge's value) caps its network simplex.
const maxPivots = 1_000_000

// massTolerance is how far the two marginals' sums may differ: POT's
// ot.emd checks them with np.testing.assert_almost_equal (7 decimals,
// |a−b| < 1.5e-7) and then rescales b to a's sum, as EMD does.
const massTolerance = 1.5e-7

// Transport is an optimal transport plan: Plan is m × n row-major, Cost
// the plan's total cost Σ Plan·C, Pivots the simplex pivots it took.
type Transport struct {
	M, N   int
	Plan   []float64
	Cost   float64
	Pivots int
}

// EMD solves the discrete optimal transport (earth mover's) problem
// between weights a (m) and b (n) under the m × n row-major cost c —
// minimise Σ T_ij c_ij over T ≥ 0 with row sums a and column sums b —
// exactly, by the transportation simplex: the network simplex on the
// bipartite graph of rows and columns (Dantzig, "Application of the
// simplex method to a transportation problem", in Koopmans (ed.),
// Activity Analysis of Production and Allocation, 1951, ch. XXIII;
// Ahuja, Magnanti and Orlin, Network Flows, 1993, §11). The basis is a
// spanning tree of m+n−1 cells, started by the north-west corner rule;
// each pivot prices the cells with the tree's potentials (u_i + v_j =
// c_ij on the tree), brings in a cell of negative reduced cost (block
// search, entering) and sends flow round the cycle it closes. It stops
// when no reduced cost is below −1e-13·max|c|, which is optimal to that
// tolerance: the solution is a vertex of the transport polytope, as
// POT's ot.emd (the challenge's) returns, not an approximation such as
// Sinkhorn's. Degenerate pivots could in principle cycle; maxPivots
// ends that with an error. b is rescaled to a's sum, as ot.emd does.
func EMD(ctx context.Context, a, b, c []float64) (*Transport, error) {
	m, n := len(a), len(b)
	if m == 0 || n == 0 || len(c) != m*n {
		return nil, fmt.Errorf("transport: %d × %d costs for %d and %d weights", len(c)/max(n, 1), n, m, n)
	}
	sa, sb, err := weightSums(a, b)
	if err != nil {
		return nil, err
	}
	bs := make([]float64, n)
	for j := range b {
		bs[j] = b[j] * sa / sb
	}
	s := newSimplex(a, bs, c)
	if err := s.solve(ctx); err != nil {
		return nil, err
	}
	t := &Transport{M: m, N: n, Plan: s.flow, Pivots: s.pivots}
	for i, f := range s.flow {
		t.Cost += f * c[i]
	}
	return t, nil
}

// weightSums checks that the weights are finite and non-negative and
// that their sums agree.
func weightSums(a, b []float64) (sa, sb float64, err error) {
	if sa, err = weightSum(a); err != nil {
		return 0, 0, err
	}
	if sb, err = weightSum(b); err != nil {
		return 0, 0, err
	}
	if sa <= 0 || math.Abs(sa-sb) >= massTolerance {
		return 0, 0, fmt.Errorf("transport: the weights sum to %v and %v; they must carry the same positive mass", sa, sb)
	}
	return sa, sb, nil
}

func weightSum(w []float64) (float64, error) {
	s := 0.0
	for _, x := range w {
		if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("transport: weight %v: weights must be finite and non-negative", x)
		}
		s += x
	}
	return s, nil
}

// simplex is the transportation simplex's state: the flow on every cell
// (zero off the tree), which cells are in the tree, and the tree's
// adjacency over the m row nodes and n column nodes (m+j).
type simplex struct {
	m, n   int
	c      []float64
	flow   []float64
	basic  []bool
	adj    [][]int // neighbour nodes
	u, v   []float64
	parent []int
	depth  []int
	order  []int
	tol    float64
	next   int // where block search resumes
	pivots int
}

func newSimplex(a, b, c []float64) *simplex {
	m, n := len(a), len(b)
	s := &simplex{m: m, n: n, c: c, flow: make([]float64, m*n), basic: make([]bool, m*n),
		adj: make([][]int, m+n), u: make([]float64, m), v: make([]float64, n),
		parent: make([]int, m+n), depth: make([]int, m+n), order: make([]int, 0, m+n)}
	big := 0.0
	for _, x := range c {
		big = math.Max(big, math.Abs(x))
	}
	s.tol = 1e-13 * big
	s.northWest(a, b)
	return s
}

// northWest fills the starting tree by the north-west corner rule: a
// staircase from cell (0, 0) to (m−1, n−1), m+n−1 cells (some may carry
// no flow: a degenerate basis is still a spanning tree).
func (s *simplex) northWest(a, b []float64) {
	ra, rb := append([]float64(nil), a...), append([]float64(nil), b...)
	i, j := 0, 0
	for {
		x := math.Min(ra[i], rb[j])
		ra[i] -= x
		rb[j] -= x
		s.add(i, j, x)
		switch {
		case i == s.m-1 && j == s.n-1:
			return
		case j == s.n-1 || (i < s.m-1 && ra[i] == 0):
			i++
		default:
			j++
		}
	}
}

func (s *simplex) add(i, j int, x float64) {
	s.basic[i*s.n+j], s.flow[i*s.n+j] = true, x
	s.adj[i] = append(s.adj[i], s.m+j)
	s.adj[s.m+j] = append(s.adj[s.m+j], i)
}

func (s *simplex) remove(i, j int) {
	s.basic[i*s.n+j], s.flow[i*s.n+j] = false, 0
	s.adj[i] = dropNode(s.adj[i], s.m+j)
	s.adj[s.m+j] = dropNode(s.adj[s.m+j], i)
}

func dropNode(l []int, x int) []int {
	for k, y := range l {
		if y == x {
			l[k] = l[len(l)-1]
			return l[:len(l)-1]
		}
	}
	return l
}

// solve pivots until no cell prices below −tol.
func (s *simplex) solve(ctx context.Context) error {
	for {
		if s.pivots%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		s.potentials()
		i, j, ok := s.entering()
		if !ok {
			return nil
		}
		if s.pivots >= maxPivots {
			return fmt.Errorf("transport: no optimum after %d pivots (%d × %d)", maxPivots, s.m, s.n)
		}
		s.pivot(i, j)
		s.pivots++
	}
}

// potentials solves u_i + v_j = c_ij over the tree from u_0 = 0, walking
// it breadth first from row 0, and records each node's parent and depth
// for the cycle search.
func (s *simplex) potentials() {
	s.order = append(s.order[:0], 0)
	s.parent[0], s.depth[0], s.u[0] = -1, 0, 0
	for k := 0; k < len(s.order); k++ {
		x := s.order[k]
		for _, y := range s.adj[x] {
			if y == s.parent[x] {
				continue
			}
			s.parent[y], s.depth[y] = x, s.depth[x]+1
			if x < s.m { // y is column y−m
				s.v[y-s.m] = s.c[x*s.n+y-s.m] - s.u[x]
			} else {
				s.u[y] = s.c[y*s.n+x-s.m] - s.v[x-s.m]
			}
			s.order = append(s.order, y)
		}
	}
}

// entering returns a cell whose reduced cost is below −tol, if any, by
// block search pricing (Grigoriadis, "An efficient implementation of
// the network simplex method", Math. Programming Study 26, 1986; the
// pivot rule of LEMON's NetworkSimplex, which POT's ot.emd uses): the
// cells are scanned in blocks of about √(m·n) from where the last scan
// stopped, and the most negative cell of the first block holding one
// enters. It returns false only after a whole scan finds none, so the
// optimality test is Dantzig's.
func (s *simplex) entering() (int, int, bool) {
	mn := s.m * s.n
	block := max(16, int(math.Sqrt(float64(mn))))
	best, found := -s.tol, -1
	cell := s.next
	for k := range mn {
		if !s.basic[cell] {
			if rc := s.c[cell] - s.u[cell/s.n] - s.v[cell%s.n]; rc < best {
				best, found = rc, cell
			}
		}
		if cell++; cell == mn {
			cell = 0
		}
		if (k+1)%block == 0 && found >= 0 {
			break
		}
	}
	s.next = cell
	return found / s.n, found % s.n, found >= 0
}

// pivot brings cell (i, j) into the tree: the cycle it closes runs from
// column j through the tree back to row i, its cells alternately losing
// and gaining flow; the first losing cell of least flow leaves.
func (s *simplex) pivot(i, j int) {
	cells := s.cycle(i, s.m+j)
	theta, leave := math.Inf(1), -1
	for k := 0; k < len(cells); k += 2 {
		if f := s.flow[cells[k]]; f < theta {
			theta, leave = f, cells[k]
		}
	}
	for k, cell := range cells {
		if k%2 == 0 {
			s.flow[cell] -= theta
		} else {
			s.flow[cell] += theta
		}
	}
	s.remove(leave/s.n, leave%s.n)
	s.add(i, j, theta)
}

// cycle returns the tree's cells on the path from node from (column j)
// to node to (row i), in order.
func (s *simplex) cycle(to, from int) []int {
	var up, down []int
	x, y := from, to
	for x != y {
		if s.depth[x] >= s.depth[y] {
			up = append(up, s.cell(x, s.parent[x]))
			x = s.parent[x]
		} else {
			down = append(down, s.cell(y, s.parent[y]))
			y = s.parent[y]
		}
	}
	for k := len(down) - 1; k >= 0; k-- {
		up = append(up, down[k])
	}
	return up
}

// cell is the cell joining nodes x and y (one a row, one a column).
func (s *simplex) cell(x, y int) int {
	if x > y {
		x, y = y, x
	}
	return x*s.n + y - s.m
}
