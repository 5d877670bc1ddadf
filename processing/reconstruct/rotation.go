package reconstruct

import (
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"
)

// CenterVo holds the parameters of Vo's centre search as httomolibgpu's
// find_center_vo takes them (recon/rotation.py; Vo, Drakopoulos, Atwood
// and Reinhard, "Reliable method for calculating the center of rotation
// in parallel-beam tomography", Optics Express 22, 2014).
type CenterVo struct {
	// Smin and Smax bound the coarse search, in columns about the
	// detector's middle.
	Smin, Smax int
	// Srad and Step are the fine search's radius and step, in columns.
	Srad, Step float64
	// Ratio is the object's width over the field of view; it sizes the
	// double-wedge mask.
	Ratio float64
	// Drop is how many rows about the mask's middle are dropped.
	Drop int
}

// DefaultCenterVo is httomolibgpu's default search.
var DefaultCenterVo = CenterVo{Smin: -50, Smax: 50, Srad: 6, Step: 0.5, Ratio: 0.5, Drop: 20}

// Find returns the rotation axis, a fractional detector column, of a
// 180° sinogram (nrow angles × ncol columns). As httomolibgpu's
// find_center_vo: the sinogram smoothed by Gaussians of σ (3, 1) for a
// coarse search over whole columns and (2, 2) for a fine one (averaged
// down 4x across a detector wider than 2000 columns and 2x over more than
// 2000 angles for the coarse search); for each candidate centre c the
// sinogram is stacked over its mirror image shifted by 2(c − (ncol−1)/2)
// (the shifted-in columns from the sinogram upside down), and the centre
// is the one whose 2D Fourier transform has the least energy outside the
// double wedge an object of Ratio·ncol gives (_create_mask).
func (p CenterVo) Find(sino []float32, nrow, ncol int) float64 {
	cs := make([]float64, nrow*ncol)
	fs := make([]float64, nrow*ncol)
	tmp := make([]float64, nrow*ncol)
	gaussian2D(cs, tmp, sino, nrow, ncol, 3, 1)
	gaussian2D(fs, tmp, sino, nrow, ncol, 2, 2)
	init := float64(ncol-1) / 2
	dr, dc := 1, 1
	if ncol > 2000 {
		dc = 4
	}
	if nrow > 2000 {
		dr = 2
	}
	crow, ccol := nrow, ncol
	if dr > 1 || dc > 1 {
		cs, crow, ccol = downsample(cs, nrow, ncol, dr, dc)
	}
	start := int(math.Floor((init + float64(p.Smin)) / float64(dc)))
	stop := int(math.Ceil((init + float64(p.Smax)) / float64(dc)))
	start, stop = min(max(start, 0), ccol-1), min(max(stop, 0), ccol-1)
	var coarse []float64
	for c := start; c <= stop; c++ {
		coarse = append(coarse, float64(c))
	}
	search := newVoSearch(crow, ccol, p)
	cen := search.best(cs, coarse)
	offset := 0.0
	if dc > 1 {
		offset = 0.5 * float64(dc)
	}
	srad := math.Max(p.Srad, float64(dc))
	srad = math.Min(math.Max(math.Abs(srad), 1), float64(ncol/10-1))
	step := math.Min(math.Max(math.Abs(p.Step), 0.1), 1.1)
	c0 := math.Min(math.Max(cen*float64(dc)+offset, srad), float64(ncol)-srad-1)
	fine := make([]float64, int(math.Ceil((2*srad+step)/step))) // np.arange(-srad, srad+step, step)
	for i := range fine {
		fine[i] = c0 - srad + float64(i)*step
	}
	if crow != nrow || ccol != ncol {
		search = newVoSearch(nrow, ncol, p)
	}
	if c := search.best(fs, fine); c != 0 {
		return c
	}
	return init
}

// downsample averages blocks of dr × dc, dropping what is left over.
func downsample(x []float64, rows, cols, dr, dc int) ([]float64, int, int) {
	r, c := rows/dr, cols/dc
	out := make([]float64, r*c)
	for i := 0; i < r*dr; i++ {
		for j := 0; j < c*dc; j++ {
			out[(i/dr)*c+j/dc] += x[i*cols+j]
		}
	}
	for i := range out {
		out[i] /= float64(dr * dc)
	}
	return out, r, c
}

// voSearch evaluates Vo's metric for lists of candidate centres of
// sinograms of one size, one voMetric per core sharing the mask and the
// transformed rows: made once, for the coarse search and (at the same
// size) the fine one.
type voSearch struct{ ms []*voMetric }

func newVoSearch(nrow, ncol int, p CenterVo) *voSearch {
	base := newVoMetric(nrow, ncol, p)
	s := &voSearch{ms: []*voMetric{base}}
	for w := 1; w < runtime.GOMAXPROCS(0); w++ {
		s.ms = append(s.ms, base.clone())
	}
	return s
}

// best returns the candidate centre of sino with the least metric (the
// first of equals), the candidates shared among every core.
func (s *voSearch) best(sino []float64, list []float64) float64 {
	s.ms[0].setSinogram(sino)
	for _, m := range s.ms[1:] {
		m.sino = sino // the transformed rows are shared
	}
	metric := make([]float64, len(list))
	workers := min(len(s.ms), len(list))
	ncol := s.ms[0].ncol
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		m := s.ms[w]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(list); i += workers {
				metric[i] = m.metric(2 * (list[i] - float64(ncol-1)/2))
			}
		}()
	}
	wg.Wait()
	bi := 0
	for i, v := range metric {
		if v < metric[bi] {
			bi = i
		}
	}
	return list[bi]
}

// voMetric evaluates Vo's metric for candidate centres of one sinogram,
// with its scratch made once: the sinogram's rows already transformed
// (the top half of every candidate's stack), the mask, the stack.
type voMetric struct {
	sino       []float64
	nrow, ncol int
	mask       []float64 // 2·nrow × ncol, in unshifted FFT order
	top        []complex128
	mat        []complex128
	row, shift []float64
	coef       []float64
	fftR, fftC *fourier.CmplxFFT
	colBuf     []complex128
}

func newVoMetric(nrow, ncol int, p CenterVo) *voMetric {
	m := &voMetric{nrow: nrow, ncol: ncol,
		mat: make([]complex128, 2*nrow*ncol), row: make([]float64, ncol),
		shift: make([]float64, ncol), coef: make([]float64, ncol),
		fftR: fourier.NewCmplxFFT(ncol), fftC: fourier.NewCmplxFFT(2 * nrow),
		colBuf: make([]complex128, 2*nrow)}
	mask := voMask(2*nrow, ncol, 0.5*p.Ratio*float64(ncol), p.Drop)
	// The metric takes the mask over fftshift(F); unshifting the mask
	// instead (F[k] meets mask[(k + n/2) mod n]) saves shifting F.
	m.mask = make([]float64, len(mask))
	R, C := 2*nrow, ncol
	for k := 0; k < R; k++ {
		for l := 0; l < C; l++ {
			m.mask[k*C+l] = mask[((k+R/2)%R)*C+(l+C/2)%C]
		}
	}
	m.top = make([]complex128, nrow*ncol)
	return m
}

// setSinogram makes sino the sinogram whose candidates are evaluated,
// its rows transformed into the shared top half of the stacks.
func (m *voMetric) setSinogram(sino []float64) {
	m.sino = sino
	for i, v := range sino {
		m.top[i] = complex(v, 0)
	}
	for i := 0; i < m.nrow; i++ {
		r := m.top[i*m.ncol : (i+1)*m.ncol]
		m.fftR.Coefficients(r, r)
	}
}

// clone returns a voMetric sharing m's read-only arrays with scratch of
// its own.
func (m *voMetric) clone() *voMetric {
	c := *m
	c.mat = make([]complex128, len(m.mat))
	c.row, c.shift, c.coef = make([]float64, m.ncol), make([]float64, m.ncol), make([]float64, m.ncol)
	c.fftR, c.fftC = fourier.NewCmplxFFT(m.ncol), fourier.NewCmplxFFT(2*m.nrow)
	c.colBuf = make([]complex128, 2*m.nrow)
	return &c
}

// metric is tomopy's _calculate_metric: the mean of |fft2(mat)|·mask for
// mat the sinogram over its left-right mirror shifted by s columns.
func (m *voMetric) metric(s float64) float64 {
	nr, nc := m.nrow, m.ncol
	for i := 0; i < nr; i++ {
		src := m.sino[i*nc : (i+1)*nc]
		comp := m.sino[(nr-1-i)*nc : (nr-i)*nc] // flipud: the sinogram upside down
		for j := range m.row {
			m.row[j] = src[nc-1-j] // fliplr
		}
		m.shifted(s, comp)
		bottom := m.mat[(nr+i)*nc : (nr+i+1)*nc]
		for j := 0; j < nc; j++ {
			bottom[j] = complex(m.shift[j], 0)
		}
		m.fftR.Coefficients(bottom, bottom)
	}
	copy(m.mat, m.top)
	return m.maskedEnergy()
}

// shifted writes into m.shift the mirrored row m.row shifted by s, the
// columns shifted in taken from comp: np.roll for a whole shift,
// scipy's cubic-spline shift for a fractional one (tomopy's
// _calculate_metric).
func (m *voMetric) shifted(s float64, comp []float64) {
	nc := m.ncol
	if s == math.Floor(s) {
		k := int(s)
		for j := 0; j < nc; j++ {
			m.shift[j] = m.row[((j-k)%nc+nc)%nc]
		}
		if k >= 0 {
			copy(m.shift[:min(k, nc)], comp)
		} else {
			copy(m.shift[max(nc+k, 0):], comp[max(nc+k, 0):])
		}
		return
	}
	splineShift(m.shift, m.coef, m.row, s)
	if s >= 0 {
		k := min(int(math.Ceil(s)), nc)
		copy(m.shift[:k], comp)
	} else {
		k := max(nc+int(math.Floor(s)), 0)
		copy(m.shift[k:], comp[k:])
	}
}

// maskedEnergy is the mean over the 2D Fourier transform of the stack
// of |F| times the mask; m.mat holds the stack's rows transformed.
func (m *voMetric) maskedEnergy() float64 {
	R, C := 2*m.nrow, m.ncol
	var sum float64
	for j := 0; j < C; j++ {
		for i := 0; i < R; i++ {
			m.colBuf[i] = m.mat[i*C+j]
		}
		m.fftC.Coefficients(m.colBuf, m.colBuf)
		for i, v := range m.colBuf {
			if w := m.mask[i*C+j]; w != 0 {
				sum += w * math.Hypot(real(v), imag(v))
			}
		}
	}
	return sum / float64(R*C)
}

// voMask is tomopy's _create_mask (Vo 2014, eq. 3): ones outside the
// double wedge an object of the given radius leaves in a sinogram's
// Fourier transform (fftshifted), less drop rows about the middle and
// the three middle columns.
func voMask(nrow, ncol int, radius float64, drop int) []float64 {
	du := 1 / float64(ncol)
	dv := (float64(nrow) - 1) / (float64(nrow) * 2 * math.Pi)
	cenRow := int(math.Ceil(float64(nrow)/2) - 1)
	cenCol := int(math.Ceil(float64(ncol)/2) - 1)
	drop = min(drop, int(math.Ceil(0.05*float64(nrow))))
	mask := make([]float64, nrow*ncol)
	for i := 0; i < nrow; i++ {
		pos := int(math.Ceil((float64(i-cenRow) * dv / radius) / du))
		p1, p2 := -pos+cenCol, pos+cenCol
		if p1 > p2 {
			p1, p2 = p2, p1
		}
		p1, p2 = min(max(p1, 0), ncol-1), min(max(p2, 0), ncol-1)
		for j := p1; j <= p2; j++ {
			mask[i*ncol+j] = 1
		}
	}
	for i := max(cenRow-drop, 0); i <= min(cenRow+drop, nrow-1); i++ {
		for j := 0; j < ncol; j++ {
			mask[i*ncol+j] = 0
		}
	}
	for i := 0; i < nrow; i++ {
		for j := max(cenCol-1, 0); j <= min(cenCol+1, ncol-1); j++ {
			mask[i*ncol+j] = 0
		}
	}
	return mask
}
