package reconstruct

import (
	"math"
	"math/bits"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Paganin is single-material phase retrieval (Paganin et al., J.
// Microscopy 206, 2002) as httomolibgpu's prep/phase.py paganin_filter
// defines it, over flat-field corrected projections (not −log): each
// projection edge-padded to the power of two above each side, its 2D
// Fourier transform multiplied by the Lorentzian 1/(1 + α·(kx² + ky²))
// normalised to a peak of 1, with α = λ·distance·(δ/β)/(4π), transformed
// back, cropped, and −log taken. A Paganin holds its scratch for
// projections of one size and is not safe for concurrent use.
type Paganin struct {
	rows, cols     int
	pr, pc         int // padded sizes
	top, left      int // padding before
	filter         []float64
	grid           []complex128
	col            []complex128
	fftRow, fftCol *fourier.CmplxFFT
}

// PaganinParams are paganin_filter's physical parameters.
type PaganinParams struct {
	// PixelSize is the detector's pixel in microns.
	PixelSize float64 `json:"pixel_size_um"`
	// Distance is the propagation distance, sample to detector, in metres.
	Distance float64 `json:"distance_m"`
	// Energy is the beam's energy in keV.
	Energy float64 `json:"energy_kev"`
	// Ratio is δ/β of the material.
	Ratio float64 `json:"ratio_delta_beta"`
}

// DefaultPaganin is httomolibgpu's default.
var DefaultPaganin = PaganinParams{PixelSize: 1.28, Distance: 1, Energy: 53, Ratio: 250}

// wavelengthMicron is httomolibgpu's _wavelength_micron: 2πħc/E.
func wavelengthMicron(energy float64) float64 {
	const c = 299792458e2 * 10000.0 // microns/s
	const hbar = 6.58211928e-19     // keV·s
	return 2 * math.Pi * hbar * c / energy
}

// paddedPow2 is httomolibgpu's _shift_bit_length(n + 1): the power of
// two above n.
func paddedPow2(n int) int { return 1 << bits.Len(uint(n)) }

// reciprocal is httomolibgpu's _reciprocal_coord: n values from −(n−1)
// to n−1 in steps of 2, times 2π/((n−1)·pixel).
func reciprocal(pixel float64, n int) []float64 {
	m := float64(n - 1)
	out := make([]float64, n)
	for i := range out {
		out[i] = (-m + 2*float64(i)) * 2 * math.Pi / (m * pixel)
	}
	return out
}

// NewPaganin prepares phase retrieval of projections of rows × cols.
func NewPaganin(p PaganinParams, rows, cols int) *Paganin {
	g := &Paganin{rows: rows, cols: cols, pr: paddedPow2(rows), pc: paddedPow2(cols)}
	g.top, g.left = (g.pr-rows)/2, (g.pc-cols)/2
	alpha := wavelengthMicron(p.Energy) * (p.Distance / 1e-6) / (4 * math.Pi) * p.Ratio
	ky, kx := reciprocal(p.PixelSize, g.pr), reciprocal(p.PixelSize, g.pc)
	g.filter = make([]float64, g.pr*g.pc)
	peak := 0.0
	for i := 0; i < g.pr; i++ {
		for j := 0; j < g.pc; j++ {
			// fftshift: entry (i, j) of the shifted filter is entry
			// ((i − n/2) mod n, …) of the centred one (even n).
			a, b := (i+g.pr/2)%g.pr, (j+g.pc/2)%g.pc
			v := 1 / (1 + alpha*(ky[a]*ky[a]+kx[b]*kx[b]))
			g.filter[i*g.pc+j] = v
			peak = math.Max(peak, v)
		}
	}
	for i := range g.filter {
		g.filter[i] /= peak
	}
	g.grid = make([]complex128, g.pr*g.pc)
	g.col = make([]complex128, g.pr)
	g.fftRow, g.fftCol = fourier.NewCmplxFFT(g.pc), fourier.NewCmplxFFT(g.pr)
	return g
}

// Apply writes into dst (rows × cols) the phase-retrieved src, one
// projection; dst may be src.
func (g *Paganin) Apply(dst, src []float32) {
	for i := 0; i < g.pr; i++ {
		si := min(max(i-g.top, 0), g.rows-1)
		for j := 0; j < g.pc; j++ {
			sj := min(max(j-g.left, 0), g.cols-1)
			g.grid[i*g.pc+j] = complex(float64(src[si*g.cols+sj]), 0)
		}
	}
	g.transform(false)
	for i, f := range g.filter {
		g.grid[i] *= complex(f, 0)
	}
	g.transform(true)
	n := float64(g.pr * g.pc)
	for i := 0; i < g.rows; i++ {
		for j := 0; j < g.cols; j++ {
			v := real(g.grid[(i+g.top)*g.pc+j+g.left]) / n
			dst[i*g.cols+j] = float32(-math.Log(float64(float32(v))))
		}
	}
}

// transform is the 2D FFT of g.grid in place (unnormalised; inverse
// when inv).
func (g *Paganin) transform(inv bool) {
	for i := 0; i < g.pr; i++ {
		r := g.grid[i*g.pc : (i+1)*g.pc]
		if inv {
			g.fftRow.Sequence(r, r)
		} else {
			g.fftRow.Coefficients(r, r)
		}
	}
	for j := 0; j < g.pc; j++ {
		for i := range g.col {
			g.col[i] = g.grid[i*g.pc+j]
		}
		if inv {
			g.fftCol.Sequence(g.col, g.col)
		} else {
			g.fftCol.Coefficients(g.col, g.col)
		}
		for i, v := range g.col {
			g.grid[i*g.pc+j] = v
		}
	}
}
