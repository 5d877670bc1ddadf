package reconstruct

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"github.com/voxlab/voxlab/processing/reconstruct/internal/fftw"
	"github.com/voxlab/voxlab/processing/reconstruct/internal/kbspread"
)

// Gridrec reconstructs slices in the Fourier domain, as tomopy's gridrec
// (Dowd et al., "Developments in synchrotron x-ray computed
// microtomography at the National Synchrotron Light Source", Proc. SPIE
// 3772, 1999; Marone and Stampanoni, J. Synchrotron Rad. 19, 2012): by
// the Fourier slice theorem each projection's transform is a line
// through the slice's 2D transform, so the projections are transformed
// (padded to the grid's length, radialLength), weighted by FBP's filter
// (the ramp is the polar samples' density), spread onto a Cartesian grid
// 1.5 times the slice's size (gridSize) by a Kaiser-Bessel kernel six
// cells wide (Beatty, Nishimura and Pauly, IEEE TMI 24, 2005; in C,
// internal/kbspread), transformed back in one 2D FFT, and divided by
// the kernel's own transform. The transforms are FFTW's in single
// precision (internal/fftw) and the grid is complex64, as tomopy's
// gridrec has them (float complex): half the memory a cell of
// complex128. It computes what FBP does without FBP's linear
// interpolation, in O(N² log N) per slice instead
// of O(N²·angles). A Gridrec is not safe for concurrent use. Gridrec
// runs on the CPU only, whatever the run's backend (only FBP's
// back-projection has a CUDA kernel; the run's report says so).
type Gridrec struct {
	g        Geometry
	n, width int
	p, grid  int // padded projection length, Cartesian grid size
	weight   []float64
	phase    []complex128 // weight × the centre's phase
	frac     float64
	cos, sin []float64 // in round order (order)
	order    []int     // the angles in round order: round r is order[starts[r]:starts[r+1]]
	starts   []int     // the rounds' starts in order, and len(order)
	edges    []int     // per round, workers+1 column edges of its bands (balance)
	kb       []float64 // kernel table, kbSteps per cell
	kbRows   []float64 // (kbSteps+1) × (kbWidth+1): weights by offset (weights)
	deapod   []float64 // n × n
	cells    []complex64
	spectra  []complex64 // spectraRound × stride: a round of projections' transforms
	stride   int         // p/2+1 rounded up to fftw.Align
	rows     [][]float32 // per core: a padded projection
	workers  int
	r2c      fftw.R2C
	c2r      fftw.C2R2
	half     []complex64 // grid × (grid/2+1): the Hermitian grid's half, for c2r
	out      []float32   // grid × grid: its inverse transform
	crew     *crew
	// The workers' steps (method values made once: crew) and the slice
	// and round they work on.
	transformStep, spreadStep, foldStep, emitStep func(w int)
	sliceRowStep                                  func(i int, line []float32)
	cur                                           gridrecRound
}

// gridrecRound is what the workers' steps of a slice read: its
// sinogram, the centre's column, the round of projections a0…a1−1 of
// order with its bands' edges, and where the slice's rows go.
type gridrecRound struct {
	sino   []float32
	ci     int
	a0, a1 int
	edges  []int
	emit   func(i int, line []float32)
	dst    []float32 // the slice, for sliceRow
	r2     float64   // the mask's squared radius, for sliceRow
}

const (
	// spectraRound is how many projections are transformed (across the
	// cores) before they are spread: the transforms of every projection
	// at once would be len(Angles)·p·4 bytes, which the memory plan
	// (plan.go) does not hold; 64 (≈200 KB at p = 768, 1 MB at 3,840)
	// halve the rounds' two barriers a round of 32 had (each a wake-up of
	// every core; 5 % of a slice), and 16, 32, 64, 128 and 256 spread
	// alike within this machine's noise (roundOrder spreads a round over
	// the half-turn, so its samples' cells are far apart whatever its
	// size). The same whatever the cores: the round sets the order in
	// which a cell's samples add up, so a round of 16 a core made a
	// slice's last bits depend on the core count
	// (TestGridrecSameWhateverTheCores).
	spectraRound = 64
	roundCluster = 8              // neighbouring angles spread in one round (roundOrder)
	kbWidth      = kbspread.Width // kernel width in grid cells
	kbSteps      = 1000           // table samples per cell
	kbSigma      = 1.5            // grid oversampling
)

// NewGridrec prepares the reconstruction of slices of geometry g.
func NewGridrec(g Geometry) (*Gridrec, error) {
	if err := g.Check(); err != nil {
		return nil, err
	}
	r := &Gridrec{g: g, n: g.Size, width: g.Columns + 2*g.Pad}
	if r.n == 0 {
		r.n = g.Columns
	}
	r.grid = gridSize(r.n)
	r.p = radialLength(r.width, r.grid)
	h := FilterResponse(r.p, g.Filter)
	// Each polar sample stands for |ω|·Δω·Δθ of the plane; FBP's filter
	// carries the |ω| (and the window), as in FBP (Slice's scale).
	r.weight = make([]float64, r.p)
	for k := range r.weight {
		even := (h[k] + h[(r.p-k)%r.p]) / 2
		r.weight[k] = math.Pi * even / float64(2*len(g.Angles)*r.p)
	}
	r.order, r.starts = roundOrder(len(g.Angles))
	r.cos, r.sin = make([]float64, len(g.Angles)), make([]float64, len(g.Angles))
	for i, a := range r.order {
		r.sin[i], r.cos[i] = math.Sincos(g.Angles[a])
	}
	r.kb = kaiserBesselTable()
	r.kbRows = r.weightRows()
	r.workers = runtime.GOMAXPROCS(0)
	r.edges = r.balancedBands()
	r.crew = newCrew(r.workers)
	r.transformStep, r.spreadStep, r.foldStep, r.emitStep = r.transformWorker, r.spreadWorker, r.foldWorker, r.emitWorker
	r.sliceRowStep = r.sliceRow
	r.cells = make([]complex64, r.grid*r.grid)
	r.stride = (r.p/2 + 1 + fftw.Align/8 - 1) / (fftw.Align / 8) * (fftw.Align / 8)
	r.spectra = fftw.Complex64s(spectraRound * r.stride)
	for range r.workers {
		r.rows = append(r.rows, fftw.Float32s(r.p))
	}
	r.r2c = fftw.NewR2C(r.p)
	r.c2r = fftw.NewC2R2(r.grid, r.workers)
	r.half = fftw.Complex64s(r.grid * (r.grid/2 + 1))
	r.out = fftw.Float32s(r.grid * r.grid)
	r.deapod = r.deapodization()
	return r, nil
}

// gridSize is the Cartesian grid's size for slices of n: kbSigma times
// n, even. An oversampling of 1.5 with the kernel six cells wide keeps
// the gridding's error near 2e-5 of the slice's peak (TestGridrec) at
// (3/4)² of a doubled grid's 2D transform and ¾ of its radial samples.
func gridSize(n int) int { return 2 * int(math.Ceil(kbSigma*float64(n)/2)) }

// radialLength is the length gridrec pads a projection of width (its
// detector and padding) to before its transform: the grid's, so that
// the radial samples fall one a cell, where the padded detector fits in
// it (the slice's own period on the grid is the grid's, so padding
// further, as FBP's PaddedLength does, only oversamples the line, twice
// the spreading and the transforms), else FBP's.
func radialLength(width, grid int) int {
	if width <= grid {
		return grid
	}
	return PaddedLength(width)
}

// kaiserBesselTable samples I0(β·√(1 − (2t/W)²)) for t in [0, W/2], with
// β for an oversampling of 2 (Beatty et al., eq. 5).
func kaiserBesselTable() []float64 {
	const sigma = kbSigma
	beta := math.Pi * math.Sqrt(kbWidth*kbWidth/(sigma*sigma)*(sigma-0.5)*(sigma-0.5)-0.8)
	t := make([]float64, kbWidth/2*kbSteps+2)
	for i := range t {
		x := float64(i) / kbSteps / (kbWidth / 2)
		if x <= 1 {
			t[i] = bessel0(beta * math.Sqrt(1-x*x))
		}
	}
	return t
}

// bessel0 is the modified Bessel function I0 by its power series.
func bessel0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 100 && term > 1e-17*sum; k++ {
		term *= (x / 2) * (x / 2) / float64(k*k)
		sum += term
	}
	return sum
}

// kernel is the Kaiser-Bessel kernel at d cells from its centre.
func (r *Gridrec) kernel(d float64) float64 {
	d = math.Abs(d) * kbSteps
	i := int(d)
	if i >= len(r.kb)-1 {
		return 0
	}
	t := d - float64(i)
	return r.kb[i] + t*(r.kb[i+1]-r.kb[i])
}

// weightRows tabulates the kbWidth+1 weights of the cells a sample
// meets, by the sample's offset from its first cell: row f holds
// kernel(−kbWidth/2 + f/kbSteps + k) for k = 0…kbWidth.
func (r *Gridrec) weightRows() []float64 {
	t := make([]float64, (kbSteps+1)*(kbWidth+1))
	for f := 0; f <= kbSteps; f++ {
		for k := 0; k <= kbWidth; k++ {
			t[f*(kbWidth+1)+k] = r.kernel(-kbWidth/2 + float64(f)/kbSteps + float64(k))
		}
	}
	return t
}

// deapodization is the slice a unit sample at the zero frequency gives
// on the grid: the kernel's transform as the grid sees it, which the
// gridded slice is divided by (the direct sum of that sample is 1
// everywhere). inverse transforms the grid plus its conjugate mirror,
// which for this symmetric sample is the grid twice: hence ½.
func (r *Gridrec) deapodization() []float64 {
	kbspread.One(r.cells, r.grid, 0, 0, 0.5, r.kbRows, kbSteps)
	out := make([]float64, r.n*r.n)
	r.inverse(context.Background(), func(i int, line []float32) {
		for j := range r.n {
			out[i*r.n+j] = float64(line[wrap(j-r.n/2, r.grid)])
		}
	})
	clear(r.cells)
	return out
}

// inverse calls emit with each row i of the slice's inverse transform
// of G + H(G), G the grid and H(G)(ω) = conj(G(−ω)): twice the real part
// of G's transform (what SliceContext wants, as it spreads only half of
// each projection's frequencies), and the transform of a Hermitian
// grid, which is real. So only its columns 0…grid/2 are formed, across
// the cores, and transformed by FFTW's complex-to-real 2D transform
// (on every core: the plan's threads). emit's line is the grid row, the
// slice's column j at wrap(j − n/2, grid). emit is called across the
// cores, each row once.
func (r *Gridrec) inverse(ctx context.Context, emit func(i int, line []float32)) {
	r.crew.run(r.foldStep)
	if ctx.Err() != nil {
		return
	}
	r.c2r.Inverse(r.out, r.half)
	r.cur.emit = emit
	r.crew.run(r.emitStep)
	r.cur.emit = nil
}

// foldWorker is worker w's rows of the Hermitian half, G + H(G), for
// inverse.
func (r *Gridrec) foldWorker(w int) {
	g, hw := r.grid, r.grid/2+1
	for ky := w; ky < g; ky += r.workers {
		row, mrow := r.cells[ky*g:ky*g+g], r.cells[((g-ky)%g)*g:((g-ky)%g)*g+g]
		dst := r.half[ky*hw : ky*hw+hw]
		dst[0] = row[0] + complex(real(mrow[0]), -imag(mrow[0]))
		for kx := 1; kx < hw; kx++ {
			m := mrow[g-kx]
			dst[kx] = row[kx] + complex(real(m), -imag(m))
		}
	}
}

// emitWorker hands worker w's rows of the inverse transform to r.cur.emit.
func (r *Gridrec) emitWorker(w int) {
	g, h := r.grid, r.n/2
	for i := w; i < r.n; i += r.workers {
		y := wrap(i-h, g)
		r.cur.emit(i, r.out[y*g:y*g+g])
	}
}

// Size is the width of the square slices the Gridrec writes.
func (r *Gridrec) Size() int { return r.n }

// SliceContext reconstructs one slice into dst (Size × Size) from sino
// (len(Angles) × Columns), stopping once ctx is done.
func (r *Gridrec) SliceContext(ctx context.Context, dst, sino []float32) error {
	if len(sino) != len(r.g.Angles)*r.g.Columns || len(dst) != r.n*r.n {
		panic(fmt.Sprintf("reconstruct: Gridrec: sinogram of %d values for %d×%d, slice of %d for %d²",
			len(sino), len(r.g.Angles), r.g.Columns, len(dst), r.n))
	}
	clear(r.cells)
	centre := r.g.Center + float64(r.g.Pad)
	ci := math.Floor(centre)
	frac := centre - ci
	r.phased(frac)
	// The projections are transformed once, across the cores; then each
	// core spreads every projection onto its own band of grid columns. A
	// projection is real, so its frequencies −k are the conjugates of
	// +k, spread to the mirrored position: the real part of the slice
	// they give is the one +k gives, so only 0…p/2 are spread, twice
	// weighted but for 0 and p/2 (whose partner is itself, or not
	// spread at all), and inverse transforms the grid plus its mirror.
	r.cur = gridrecRound{sino: sino, ci: int(ci)}
	defer func() { r.cur = gridrecRound{} }()
	for k := range len(r.starts) - 1 {
		r.cur.a0, r.cur.a1 = r.starts[k], r.starts[k+1]
		r.cur.edges = r.edges[k*(r.workers+1):]
		r.crew.run(r.transformStep)
		r.crew.run(r.spreadStep)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	h := r.n / 2
	r2 := math.Inf(1)
	if r.g.MaskRadius > 0 {
		m := r.g.MaskRadius * float64(h)
		r2 = m * m
	}
	r.cur.dst, r.cur.r2 = dst, r2
	r.inverse(ctx, r.sliceRowStep)
	return ctx.Err()
}

// sliceRow writes row i of the slice, r.cur.dst, from its grid row line:
// deapodised, and zero outside the mask's circle of squared radius
// r.cur.r2.
func (r *Gridrec) sliceRow(i int, line []float32) {
	h := r.n / 2
	y := float64(i - h)
	for j := range r.n {
		x, out := float64(j-h), float64(line[wrap(j-h, r.grid)])/r.deapod[i*r.n+j]
		if x*x+y*y > r.cur.r2 {
			out = 0
		}
		r.cur.dst[i*r.n+j] = float32(out)
	}
}

// roundOrder is the order in which gridrec spreads na projections, in
// rounds of at most spectraRound, and the rounds' starts in it. The
// angles are cut into clusters of roundCluster neighbours, and round r
// takes every R-th cluster from r (R the number of rounds), so that a
// round spans the whole half-turn: a round of neighbouring angles
// spread onto one side of the grid only (its samples' x = k·cos θ share
// a sign), so the bands of columns the cores split the grid into had
// all of a round but one core's share of the wrap, and two cores spread
// no faster than one. Within a round the clusters take turns (each
// cluster's first angle, then each one's second, …), so that
// consecutive samples, one frequency of neighbouring angles, are not
// one cell apart: those reloaded the cells their predecessor had just
// stored at another alignment, which the CPU cannot forward (a
// store-forwarding stall a row). And a round's cells are its clusters'
// few narrow wedges of the grid, which stay in the core's cache, where
// angles spread one by one over the half-turn drew every round's rays
// across the whole grid (several times the traffic to the shared cache).
func roundOrder(na int) (order, starts []int) {
	clusters := (na + roundCluster - 1) / roundCluster
	per := spectraRound / roundCluster
	rounds := (clusters + per - 1) / per
	order = make([]int, 0, na)
	for r := range rounds {
		starts = append(starts, len(order))
		for j := range roundCluster {
			for c := r; c < clusters; c += rounds {
				if a := c*roundCluster + j; a < na {
					order = append(order, a)
				}
			}
		}
	}
	return order, append(starts, len(order))
}

// lineCells is how many grid cells (complex64) a 64-byte cache line
// holds: the bands' edges are whole lines, else two cores spreading the
// same sample at once, each its own side of an edge, would write the
// same line.
const lineCells = 8

// balancedBands is, for each round of projections, the edges of the
// workers' bands of grid columns that give each worker about as many of
// the round's samples (each counted at its kernel's middle column; the
// edges rounded to lineCells): equal bands gave the middle columns'
// cores, where every angle's low frequencies fall, most of the work. The edges depend on the
// geometry alone, and the cells a sample adds to, and the order, do not
// depend on them (kbspread), so neither does the slice.
func (r *Gridrec) balancedBands() []int {
	n, half := r.workers, r.p/2+1
	edges := make([]int, 0, (len(r.starts)-1)*(n+1))
	count := make([]int, r.grid)
	scale := float64(r.grid) / float64(r.p)
	for k := range len(r.starts) - 1 {
		a0, a1 := r.starts[k], r.starts[k+1]
		clear(count)
		for k := range half {
			kk := float64(k) * scale
			if k == r.p/2 {
				kk = -kk // as kbspread places the Nyquist frequency
			}
			for _, c := range r.cos[a0:a1] {
				count[wrap(int(math.Round(kk*c)), r.grid)]++
			}
		}
		total, sum, w := (a1-a0)*half, 0, 1
		edges = append(edges, 0)
		for x, c := range count {
			sum += c
			for w < n && sum*n >= w*total {
				edges = append(edges, min(max((x+1+lineCells/2)/lineCells*lineCells, edges[len(edges)-1]), r.grid))
				w++
			}
		}
		for ; w <= n; w++ {
			edges = append(edges, r.grid)
		}
	}
	return edges
}

// transformWorker transforms worker w's share of the round's
// projections into r.spectra.
func (r *Gridrec) transformWorker(w int) {
	c, half := r.g.Columns, r.p/2+1
	for i := r.cur.a0 + w; i < r.cur.a1; i += r.workers {
		a, k := r.order[i], (i-r.cur.a0)*r.stride
		r.transform(r.spectra[k:k+half], w, r.cur.sino[a*c:(a+1)*c], r.cur.ci)
	}
}

// spreadWorker spreads the transforms of the round's projections (in
// r.spectra, p/2+1 frequencies each, r.stride apart) onto worker w's
// band of grid columns [edges[w], edges[w+1]), grid/p cells per
// frequency: frequency by frequency across the round's angles
// (kbspread.Round).
func (r *Gridrec) spreadWorker(w int) {
	a0, a1 := r.cur.a0, r.cur.a1
	kbspread.Round(r.cells, r.grid, r.spectra, r.stride, a1-a0, r.phase[:r.p/2+1], r.p/2, float64(r.grid)/float64(r.p),
		r.cos[a0:a1], r.sin[a0:a1], r.kbRows, kbSteps, r.cur.edges[w], r.cur.edges[w+1])
}

// phased fills r.phase for frequencies 0…p/2: each frequency's weight
// times the phase that shifts the projection by the centre's fraction of
// a column (the transform is taken about the column below the axis);
// frequencies 0 and p/2 at half weight (SliceContext says why). The
// Nyquist frequency's phase is that of −p/2, where the full range of
// frequencies has it (its sample is real, so only the phase matters).
func (r *Gridrec) phased(frac float64) {
	if r.phase != nil && r.frac == frac {
		return
	}
	r.phase, r.frac = make([]complex128, r.p/2+1), frac
	for k := range r.phase {
		w, f := r.weight[k], k
		if k == 0 || k == r.p/2 {
			w /= 2
		}
		if k == r.p/2 {
			f = -k
		}
		sn, cs := math.Sincos(2 * math.Pi * float64(f) * frac / float64(r.p))
		r.phase[k] = complex(w*cs, w*sn)
	}
}

// wrap is i modulo g for i in [−g, 2g): a sample's kernel lies within
// half the grid and a few cells of the zero frequency, and an integer
// division per cell was a fifth of the spreading's time.
func wrap(i, g int) int {
	switch {
	case i < 0:
		return i + g
	case i >= g:
		return i - g
	}
	return i
}

// transform writes into spec the transform (frequencies 0…p/2) of a
// projection, padded as FBP pads it, laid out about detector column ci:
// index m holds column ci + m (m taken modulo the padded length); w is
// the core's scratch.
func (r *Gridrec) transform(spec []complex64, w int, src []float32, ci int) {
	row := r.rows[w]
	clear(row)
	c, pad := r.g.Columns, r.g.Pad
	m := ((-ci)%r.p + r.p) % r.p // index of padded column d = 0; two divisions a value were a tenth of a slice
	for d := 0; d < r.width; d, m = d+1, m+1 {
		if m == r.p {
			m = 0
		}
		k := d - pad
		if r.g.PadZeros && (k < 0 || k >= c) {
			continue
		}
		row[m] = src[min(max(k, 0), c-1)]
	}
	r.r2c.Forward(spec, row)
}
