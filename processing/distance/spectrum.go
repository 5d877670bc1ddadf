package distance

import (
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Shells lays out the half spectrum of a box³ map (the real-input FFT's
// coefficients, kx in 0…box/2) by Fourier shell: shell s holds the
// frequencies k = (kz, ky, kx), in FFT index units with kz, ky signed as
// numpy.fft.fftfreq(box)·box, with |k| in [s − ½, s + ½), for s = 1…K,
// K = box/2. The DC term (shell 0) and the corners beyond K + ½ are left
// out, as the challenge's FSC leaves them out.
//
// Each coefficient is stored as two reals, weighted by √w: w = 2 where its
// mirror −k lies outside the half spectrum (0 < kx < box/2, or kx > 0 for
// an odd box) and w = 1 where it lies inside. Products and powers of the
// weighted half spectrum are then the sums over the full spectrum the FSC
// is defined with: Σ_full Re(A·B̄) = Σ_half w·(Re A·Re B + Im A·Im B).
type Shells struct {
	Box, K int
	// Start[s−1] … Start[s] are the reals of shell s (2 per coefficient).
	Start []int
	// src is each coefficient's index (z·box + y)·(box/2+1) + kx in the
	// half spectrum, in shell order; weight its √w.
	src    []int32
	weight []float64
}

// NewShells lays out the shells of a box³ map.
func NewShells(box int) *Shells {
	h := box/2 + 1
	K := box / 2
	buckets := make([][]int32, K+1)
	freq := func(i int) int {
		if i < (box+1)/2 {
			return i
		}
		return i - box
	}
	for z := 0; z < box; z++ {
		fz := freq(z)
		for y := 0; y < box; y++ {
			fy := freq(y)
			for x := 0; x < h; x++ {
				s := shellOf(fz*fz + fy*fy + x*x)
				if s >= 1 && s <= K {
					buckets[s] = append(buckets[s], int32((z*box+y)*h+x))
				}
			}
		}
	}
	sh := &Shells{Box: box, K: K, Start: make([]int, K+1)}
	for s := 1; s <= K; s++ {
		for _, i := range buckets[s] {
			kx := int(i) % h
			w := math.Sqrt2
			if kx == 0 || (box%2 == 0 && kx == box/2) {
				w = 1
			}
			sh.src = append(sh.src, i)
			sh.weight = append(sh.weight, w)
		}
		sh.Start[s] = 2 * len(sh.src)
	}
	return sh
}

// shellOf returns s with (s − ½)² ≤ r2 < (s + ½)², i.e. 4·r2 in
// [(2s−1)², (2s+1)²), in integers so that no rounding moves a frequency
// across a shell boundary.
func shellOf(r2 int) int {
	s := int(math.Sqrt(float64(r2)) + 0.5)
	for s > 0 && 4*r2 < (2*s-1)*(2*s-1) {
		s--
	}
	for 4*r2 >= (2*s+1)*(2*s+1) {
		s++
	}
	return s
}

// Len returns the number of reals of the shells' spectrum.
func (sh *Shells) Len() int { return sh.Start[sh.K] }

// Bytes is the memory the shells' tables hold.
func (sh *Shells) Bytes() int64 {
	return int64(len(sh.src))*4 + int64(len(sh.weight))*8 + int64(len(sh.Start))*8
}

// fft3 is one worker's 3D real-input FFT of box³ maps, done as 1D passes
// along x (real input), then y and z (complex) with gonum's fourier
// package (FFTPACK, any box size).
type fft3 struct {
	box  int
	r    *fourier.FFT
	c    *fourier.CmplxFFT
	half []complex128 // box·box·(box/2+1), index (z·box + y)·h + kx
	line []float64
	col  []complex128
}

func newFFT3(box int) *fft3 {
	h := box/2 + 1
	return &fft3{
		box:  box,
		r:    fourier.NewFFT(box),
		c:    fourier.NewCmplxFFT(box),
		half: make([]complex128, box*box*h),
		line: make([]float64, box),
		col:  make([]complex128, box),
	}
}

// fft3Bytes is the memory one fft3 holds (for the planner).
func fft3Bytes(box int) int64 {
	b, h := int64(box), int64(box/2+1)
	// half spectrum + line + column + gonum's work arrays (real: 3n,
	// complex: 4n float64s, roughly).
	return b*b*h*16 + b*8 + b*16 + 8*b*8
}

// transform computes the half spectrum of the map whose x row r
// (= z·box + y) is written by fill(r, line) into a zeroed line.
func (f *fft3) transform(fill func(r int, line []float64)) {
	box, h := f.box, f.box/2+1
	for r := 0; r < box*box; r++ {
		clear(f.line)
		fill(r, f.line)
		f.r.Coefficients(f.half[r*h:(r+1)*h], f.line)
	}
	// Along y: for each z and kx, the column of stride h.
	for z := 0; z < box; z++ {
		base := z * box * h
		for kx := 0; kx < h; kx++ {
			f.pass(base+kx, h)
		}
	}
	// Along z: stride box·h.
	for y := 0; y < box; y++ {
		for kx := 0; kx < h; kx++ {
			f.pass(y*h+kx, box*h)
		}
	}
}

// pass transforms the box values of f.half at start, start+stride, ….
func (f *fft3) pass(start, stride int) {
	for i := range f.col {
		f.col[i] = f.half[start+i*stride]
	}
	f.c.Coefficients(f.col, f.col)
	for i, v := range f.col {
		f.half[start+i*stride] = v
	}
}

// gather writes the weighted shells of f's spectrum into dst (sh.Len()
// reals) and the power of each shell into power[0…K−1].
func (sh *Shells) gather(dst, power []float64, half []complex128) {
	for s := 1; s <= sh.K; s++ {
		var p float64
		for q := sh.Start[s-1] / 2; q < sh.Start[s]/2; q++ {
			c, w := half[sh.src[q]], sh.weight[q]
			re, im := w*real(c), w*imag(c)
			dst[2*q], dst[2*q+1] = re, im
			p += re*re + im*im
		}
		power[s-1] = p
	}
}
