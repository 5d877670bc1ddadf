// Package fftw is the part of FFTW 3 (Frigo and Johnson, "The design
// and implementation of FFTW3", Proc. IEEE 93, 2005) that gridrec
// needs, in single precision through cgo: Debian's libfftw3-single3
// (libfftw3-dev, in the Makefile's APT_PKGS), whose SSE/AVX kernels
// are several times gonum's fftpack (scalar, float64), where the
// transforms were half of a gridrec slice's time. A package of its own
// because Go does not build cgo and Go assembly (the reconstruct
// package's AVX-512 back-projection) in one package.
//
// FFTW's planner is not thread-safe, so plans are made under one lock,
// once per size (and thread count), and kept for the process. They are
// made with FFTW_ESTIMATE: the same plan whatever the run or machine
// load (FFTW_MEASURE times candidates and could pick another algorithm
// the next time, changing the last bits of a slice), so every slice goes
// through the same arithmetic. Executing a plan is thread-safe: every
// core runs a shared plan on its own arrays, through FFTW's new-array
// interface, aligned as the plans were made (Float32s, Complex64s).
package fftw
