// Package kbspread spreads gridrec's polar Fourier samples onto its
// Cartesian grid through the Kaiser-Bessel kernel (Beatty, Nishimura
// and Pauly, "Rapid gridding reconstruction with a minimal oversampling
// ratio", IEEE TMI 24, 2005; tomopy's libtomo/gridrec/gridrec.c does
// the same loop in C): in C, because each sample adds to 7 × 7 complex
// cells, 14 adjacent floats a row, which GCC vectorises (one 16-float
// vector a row: AVX-512 and AVX2 clones where the CPU has them,
// target_clones) and Go's compiler does not; the
// spreading was four fifths of a slice's time once the transforms were
// FFTW's. The whole round is one call: a cgo call per sample would cost
// more than the sample. Floating-point contraction is off, so both
// clones and both paths (the vectorised one for samples whose cells lie
// inside the band, the indexed one at its edges and the grid's wrap)
// add the same float products to each cell in the same order: a grid
// does not depend on the CPU's clone chosen beyond that, nor on how many
// cores split it into bands.
package kbspread

// #cgo CFLAGS: -O3
// #include "spread.h"
import "C"

import "unsafe"

// Width is the kernel's width in grid cells.
const Width = C.KBW

// Round adds the na projections' transforms in spectra (stride values
// apart, frequencies 0…len(phase)−1 each) times phase, frequency k at
// radius k·scale along (cos θ, −sin θ) (−k·scale for k = nyq), to the
// columns [b0, b1) of the g × g grid cells through the kernel whose
// weights by offset are rows (steps+1 rows of Width+1).
func Round(cells []complex64, g int, spectra []complex64, stride, na int, phase []complex128, nyq int, scale float64,
	cos, sin, rows []float64, steps, b0, b1 int) {
	if na == 0 || len(phase) == 0 {
		return
	}
	if len(cells) < g*g || len(spectra) < (na-1)*stride+len(phase) || len(cos) < na || len(sin) < na || len(rows) < (steps+1)*(Width+1) {
		panic("kbspread: Round: arrays shorter than their sizes")
	}
	C.kb_round((*C.float)(unsafe.Pointer(&cells[0])), C.int(g), (*C.float)(unsafe.Pointer(&spectra[0])), C.int(stride), C.int(na),
		(*C.double)(unsafe.Pointer(&phase[0])), C.int(len(phase)), C.int(nyq), C.double(scale),
		(*C.double)(unsafe.Pointer(&cos[0])), (*C.double)(unsafe.Pointer(&sin[0])),
		(*C.double)(unsafe.Pointer(&rows[0])), C.int(steps), C.int(b0), C.int(b1))
}

// One adds the sample v at (x, y), in cells from the zero frequency, to
// the whole grid, as Round adds each of its samples.
func One(cells []complex64, g int, x, y float64, v complex128, rows []float64, steps int) {
	if len(cells) < g*g || len(rows) < (steps+1)*(Width+1) {
		panic("kbspread: One: arrays shorter than their sizes")
	}
	C.kb_spread((*C.float)(unsafe.Pointer(&cells[0])), C.int(g), C.double(x), C.double(y), C.double(real(v)), C.double(imag(v)),
		(*C.double)(unsafe.Pointer(&rows[0])), C.int(steps), 0, C.int(g))
}
