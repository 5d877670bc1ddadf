package reconstruct

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Geometry is a parallel-beam slice's geometry and its filtered
// back-projection's settings.
type Geometry struct {
	// Angles are the projections' rotation angles in radians.
	Angles []float64
	// Columns is the detector's width: a sinogram is len(Angles) rows of
	// Columns values.
	Columns int
	// Center is the rotation axis as a detector column, 0-based and
	// fractional (tomopy's center; scikit-image's is Columns/2).
	Center float64
	// Size is the width of the square slice (0: Columns).
	Size int
	// Pad is how many columns are added on each side of the detector
	// before filtering: edge values (httomolibgpu's detector_pad, AutoPad),
	// which removes the bright rim an object wider than the field gives,
	// or zeros when PadZeros is set (scikit-image's iradon with
	// circle=True pads with zeros to the slice's diagonal, DiagonalPad).
	Pad      int
	PadZeros bool
	// MaskRadius zeroes the slice outside a circle of MaskRadius·Size/2
	// pixels about its centre (httomolibgpu's recon_mask_radius; 1 is
	// scikit-image's circle=True); 0 keeps every pixel.
	MaskRadius float64
	// Filter is the frequency filter.
	Filter Filter
}

// AutoPad is httomolibgpu's automatic detector padding for a detector of
// width columns (__estimate_detectorHoriz_padding): the half-diagonal's
// excess over the half-width, plus half of it again.
func AutoPad(columns int) int {
	half := columns / 2
	exact := int(math.Sqrt(2*float64(half*half))) - half
	return exact + exact/2
}

// DiagonalPad is the zero padding on each side that scikit-image's
// iradon gives a detector of width columns with circle=True
// (_sinogram_circle_to_square: to ⌈√2·columns⌉, the slice's diagonal):
// the filtered projections then extend past the detector's edges, as the
// ramp's tails do.
func DiagonalPad(columns int) int {
	diagonal := int(math.Ceil(math.Sqrt2 * float64(columns)))
	return diagonal/2 - columns/2
}

// Check reports a geometry that cannot be reconstructed.
func (g Geometry) Check() error {
	switch {
	case len(g.Angles) == 0:
		return fmt.Errorf("no projection angles")
	case g.Columns < 2:
		return fmt.Errorf("a detector of %d columns is too narrow", g.Columns)
	case math.IsNaN(g.Center) || g.Center < 0 || g.Center > float64(g.Columns-1):
		return fmt.Errorf("centre of rotation %g is outside the detector's columns 0…%d", g.Center, g.Columns-1)
	case g.Pad < 0 || g.Size < 0 || g.MaskRadius < 0:
		return fmt.Errorf("negative padding, size or mask radius")
	}
	return nil
}

// FBP reconstructs slices from sinograms by filtered back-projection, as
// scikit-image's iradon does with linear interpolation (and tomopy's
// 'fbp'): each projection, padded by Pad and then zero-padded to
// PaddedLength, is filtered in
// the Fourier domain by FilterResponse, and the filtered projections are
// smeared back across the slice, the value at pixel (i, j) of angle θ
// read by linear interpolation at detector column
//
//	u = Center + Pad + (j − Size/2)·cos θ − (i − Size/2)·sin θ
//
// (zero outside the padded detector), summed over angles and scaled by
// π/(2·len(Angles)). An FBP is not safe for concurrent use; its methods
// use every core (runtime.GOMAXPROCS) and allocate nothing per slice.
type FBP struct {
	g        Geometry
	n, width int // slice size, padded detector width
	cos, sin []float64
	resp     []float64 // real response, frequencies 0…P/2
	filtered []float32 // len(Angles) × (width + 2): a zero, the row, a zero
	workers  []*fbpWorker
}

type fbpWorker struct {
	fft  *fourier.FFT
	row  []float64
	coef []complex128
	acc  []float64
}

// NewFBP prepares the reconstruction of slices of geometry g.
func NewFBP(g Geometry) (*FBP, error) {
	if err := g.Check(); err != nil {
		return nil, err
	}
	f := &FBP{g: g, n: g.Size, width: g.Columns + 2*g.Pad}
	if f.n == 0 {
		f.n = g.Columns
	}
	f.cos = make([]float64, len(g.Angles))
	f.sin = make([]float64, len(g.Angles))
	for a, th := range g.Angles {
		f.sin[a], f.cos[a] = math.Sincos(th)
	}
	p := PaddedLength(f.width)
	f.resp = realResponse(FilterResponse(p, g.Filter))
	// A zero after each filtered projection, as the interpolation at the
	// last column reads one past it, times zero; and one before it, as
	// accumulate's fixed-point position may stray a hair below column 0.
	f.filtered = make([]float32, len(g.Angles)*(f.width+2))
	for range runtime.GOMAXPROCS(0) {
		f.workers = append(f.workers, &fbpWorker{
			fft: fourier.NewFFT(p), row: make([]float64, p),
			coef: make([]complex128, p/2+1), acc: make([]float64, fbpRowBlock*f.n),
		})
	}
	return f, nil
}

// Size is the width of the square slices the FBP writes.
func (f *FBP) Size() int { return f.n }

// Slice reconstructs one slice into dst (Size × Size, row-major) from
// sino (len(Angles) × Columns, row-major: one row per projection).
func (f *FBP) Slice(dst, sino []float32) { f.SliceContext(context.Background(), dst, sino) }

// SliceContext is Slice that stops between blocks of rows of the slice once ctx is
// done (a slice of a large detector takes seconds), returning its error;
// dst is then incomplete.
func (f *FBP) SliceContext(ctx context.Context, dst, sino []float32) error {
	if len(sino) != len(f.g.Angles)*f.g.Columns || len(dst) != f.n*f.n {
		panic(fmt.Sprintf("reconstruct: FBP.Slice: sinogram of %d values for %d×%d, slice of %d for %d²",
			len(sino), len(f.g.Angles), f.g.Columns, len(dst), f.n))
	}
	f.filterAll(ctx, sino)
	f.backProjectAll(ctx, dst)
	return ctx.Err()
}

// filterAll filters every projection of sino into f.filtered, the
// filtering half of a slice (on the CPU whatever the backend: see
// deviceFBP).
func (f *FBP) filterAll(ctx context.Context, sino []float32) {
	f.parallel(ctx, len(f.g.Angles), func(w *fbpWorker, a int) { f.filterRow(w, a, sino) })
}

// backProjectAll back-projects f.filtered into dst on the CPU, the
// back-projection half of a slice.
func (f *FBP) backProjectAll(ctx context.Context, dst []float32) {
	blocks := (f.n + fbpRowBlock - 1) / fbpRowBlock
	f.parallel(ctx, blocks, func(w *fbpWorker, b int) { f.backProjectBlock(w, dst, b*fbpRowBlock) })
}

// shape is the back-projection of f as the device ops take it.
func (f *FBP) shape() BackProjectShape {
	return BackProjectShape{Slices: 1, Angles: len(f.g.Angles), Columns: f.g.Columns, Pad: f.g.Pad,
		Size: f.n, Center: f.g.Center, MaskRadius: f.g.MaskRadius}
}

// trig is the angles' cosines then sines, as the device ops take them.
func (f *FBP) trig() []float64 { return append(append([]float64(nil), f.cos...), f.sin...) }

// parallel runs fn over 0…n−1, each worker taking every len(workers)-th
// index (the cost of a row is the same throughout), until ctx is done.
func (f *FBP) parallel(ctx context.Context, n int, fn func(w *fbpWorker, i int)) {
	var wg sync.WaitGroup
	for k, w := range f.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < n && ctx.Err() == nil; i += len(f.workers) {
				fn(w, i)
			}
		}()
	}
	wg.Wait()
}

// filterRow writes projection a, edge-padded by Pad and filtered, into
// f.filtered.
func (f *FBP) filterRow(w *fbpWorker, a int, sino []float32) {
	c, pad := f.g.Columns, f.g.Pad
	src := sino[a*c : (a+1)*c]
	for i := range w.row {
		w.row[i] = 0
	}
	for i := 0; i < f.width; i++ {
		k := i - pad
		if f.g.PadZeros && (k < 0 || k >= c) {
			continue
		}
		w.row[i] = float64(src[min(max(k, 0), c-1)])
	}
	w.fft.Coefficients(w.coef, w.row)
	for k, h := range f.resp {
		w.coef[k] *= complex(h, 0)
	}
	w.fft.Sequence(w.row, w.coef)
	scale := 1 / float64(len(w.row))
	out := f.filtered[a*(f.width+2)+1 : (a+1)*(f.width+2)-1]
	for i := range out {
		out[i] = float32(w.row[i] * scale)
	}
}

// fbpRowBlock is how many rows of the slice one pass over the angles
// fills: each angle's filtered projection (a few KB) is read once from
// memory for the whole block and stays in L1 across its rows, where a
// pass per row streamed every projection from the outer caches.
const fbpRowBlock = 8

// backProjectBlock sums the filtered projections over the rows
// [i0, i0+fbpRowBlock) of the slice (fewer at its end) into dst, the
// whole slice. For each angle and row the detector position is linear
// in j, so the columns whose position lies on the padded detector (and,
// with a mask, inside its circle) are found first and the inner loop,
// incremental in u, has no branch.
func (f *FBP) backProjectBlock(w *fbpWorker, dst []float32, i0 int) {
	n := f.n
	i1 := min(i0+fbpRowBlock, n)
	acc := w.acc[:(i1-i0)*n]
	clear(acc)
	h := float64(n / 2)
	last := float64(f.width - 1)
	centre := f.g.Center + float64(f.g.Pad)
	r2 := math.Inf(1)
	if f.g.MaskRadius > 0 {
		r := f.g.MaskRadius * h
		r2 = r * r
	}
	var m0, m1 [fbpRowBlock]int
	for i := i0; i < i1; i++ {
		m0[i-i0], m1[i-i0] = maskSpan(n, h, float64(i)-h, r2)
	}
	stride := f.width + 2
	// span is where row i meets angle a's detector; u its position at j0,
	// col[1] being column 0.
	span := func(a, i int) (j0, j1 int, u float64) {
		u0 := centre - h*f.cos[a] - (float64(i)-h)*f.sin[a] // u at j = 0
		j0, j1 = detectorSpan(u0, f.cos[a], last, m0[i-i0], m1[i-i0])
		return j0, max(j0, j1), 1 + u0 + float64(j0)*f.cos[a]
	}
	// Angles two at a time, where both meet the row: one load and store
	// of the sum for two interpolations.
	na := len(f.g.Angles)
	for a := 0; a < na; a += 2 {
		ca := f.filtered[a*stride : (a+1)*stride]
		if a+1 == na {
			for i := i0; i < i1; i++ {
				j0, j1, u := span(a, i)
				accumulate(acc[(i-i0)*n+j0:(i-i0)*n+j1], ca, u, f.cos[a])
			}
			break
		}
		cb := f.filtered[(a+1)*stride : (a+2)*stride]
		c, d := f.cos[a], f.cos[a+1]
		for i := i0; i < i1; i++ {
			row := acc[(i-i0)*n : (i-i0+1)*n]
			a0, a1, ua := span(a, i)
			b0, b1, ub := span(a+1, i)
			lo, hi := max(a0, b0), min(a1, b1)
			if lo >= hi {
				accumulate(row[a0:a1], ca, ua, c)
				accumulate(row[b0:b1], cb, ub, d)
				continue
			}
			accumulate(row[a0:lo], ca, ua, c)
			accumulate(row[b0:lo], cb, ub, d)
			accumulate2(row[lo:hi], ca, ua+float64(lo-a0)*c, c, cb, ub+float64(lo-b0)*d, d)
			accumulate(row[hi:a1], ca, ua+float64(hi-a0)*c, c)
			accumulate(row[hi:b1], cb, ub+float64(hi-b0)*d, d)
		}
	}
	scale := math.Pi / float64(2*len(f.g.Angles))
	for i := i0; i < i1; i++ {
		out := dst[i*n : (i+1)*n]
		clear(out)
		row := acc[(i-i0)*n : (i-i0+1)*n]
		for j := m0[i-i0]; j < m1[i-i0]; j++ {
			out[j] = float32(row[j] * scale)
		}
	}
}

// accumulate adds to each acc[j] the filtered projection col read by
// linear interpolation at u + j·c (every position within col's first
// len(col)−1 samples). The position is kept in fixed point, 32 bits of
// column and 32 of fraction, which makes the column an integer shift
// rather than a float conversion (1.6x faster here); its drift over a
// row, under 2⁻³³ a step, is ~1e-7 of a column.
func accumulate(acc []float64, col []float32, u, c float64) {
	fu, fc := fixed(u), fixed(c)
	done := accumulateVector(acc, col, fu, fc)
	fu += int64(done) * fc
	for j := done; j < len(acc); j++ {
		acc[j] += lerp(col, fu)
		fu += fc
	}
}

// accumulate2 is accumulate of two projections at once.
func accumulate2(acc []float64, ca []float32, ua, c float64, cb []float32, ub, d float64) {
	fa, fc, fb, fd := fixed(ua), fixed(c), fixed(ub), fixed(d)
	done := accumulate2Vector(acc, ca, fa, fc, cb, fb, fd)
	fa, fb = fa+int64(done)*fc, fb+int64(done)*fd
	for j := done; j < len(acc); j++ {
		acc[j] += lerp(ca, fa) + lerp(cb, fb)
		fa += fc
		fb += fd
	}
}

const fixedOne = 1 << 32

// fixed is x in accumulate's fixed point.
func fixed(x float64) int64 { return int64(math.Round(x * fixedOne)) }

// lerp is col read by linear interpolation at the fixed-point position u.
func lerp(col []float32, u int64) float64 {
	k := int(u >> 32)
	t := float64(u&(fixedOne-1)) * (1.0 / fixedOne)
	p := col[k : k+2 : k+2]
	v := float64(p[0])
	return v + t*(float64(p[1])-v)
}

// maskSpan is the columns [j0, j1) of row y (from the middle h) inside
// the mask's circle of squared radius r2 (every column when r2 is
// infinite).
func maskSpan(n int, h, y, r2 float64) (int, int) {
	if math.IsInf(r2, 1) {
		return 0, n
	}
	j0, j1 := n, 0
	for j := 0; j < n; j++ { // once per row: plain and exact
		x := float64(j) - h
		if x*x+y*y <= r2 {
			j0, j1 = min(j0, j), j+1
		}
	}
	if j0 >= j1 {
		return 0, 0
	}
	return j0, j1
}

// detectorSpan narrows [m0, m1) to the columns j whose position u0 + j·c
// lies in [0, last], the detector np.interp reads (zero outside).
func detectorSpan(u0, c, last float64, m0, m1 int) (int, int) {
	in := func(j int) bool { u := u0 + float64(j)*c; return u >= 0 && u <= last }
	j0, j1 := m0, m1
	if c > 1e-12 {
		j0 = max(j0, int(math.Ceil(-u0/c))-1)
		j1 = min(j1, int(math.Floor((last-u0)/c))+2)
	} else if c < -1e-12 {
		j0 = max(j0, int(math.Ceil((last-u0)/c))-1)
		j1 = min(j1, int(math.Floor(-u0/c))+2)
	}
	// The bounds above are within a column of the exact ones; settle them
	// on the samples themselves.
	for j0 < j1 && !in(j0) {
		j0++
	}
	for j1 > j0 && !in(j1-1) {
		j1--
	}
	return j0, j1
}
