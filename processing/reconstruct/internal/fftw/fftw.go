package fftw

// FFTW is linked statically (Debian's libfftw3-dev ships the archives),
// as hostblas links OpenBLAS: reconstruct's CUDA test binary then starts
// on a GPU machine without FFTW installed (scripts/gpu-check.sh), and the
// voxlab binary needs no libfftw3f at run time.

// #cgo LDFLAGS: -l:libfftw3f_threads.a -l:libfftw3f.a -lpthread -lm
// #include <stdlib.h>
// #include <fftw3.h>
//
// // Plans are made on arrays of FFTW's own alignment and freed with
// // them: every transform runs through the new-array interface on the
// // caller's arrays, aligned alike (alignedComplex64, alignedFloat32).
// static fftwf_plan planR2C(int n) {
// 	float *in = fftwf_alloc_real(n);
// 	fftwf_complex *out = fftwf_alloc_complex(n / 2 + 1);
// 	fftwf_plan p = fftwf_plan_dft_r2c_1d(n, in, out, FFTW_ESTIMATE);
// 	fftwf_free(in);
// 	fftwf_free(out);
// 	return p;
// }
//
// static fftwf_plan planC2R2(int n, int threads) {
// 	fftwf_complex *in = fftwf_alloc_complex((size_t)n * (n / 2 + 1));
// 	float *out = fftwf_alloc_real((size_t)n * n);
// 	fftwf_plan_with_nthreads(threads);
// 	fftwf_plan p = fftwf_plan_dft_c2r_2d(n, n, in, out, FFTW_ESTIMATE);
// 	fftwf_plan_with_nthreads(1);
// 	fftwf_free(in);
// 	fftwf_free(out);
// 	return p;
// }
//
// static void r2c(fftwf_plan p, float *in, void *out) { fftwf_execute_dft_r2c(p, in, (fftwf_complex *)out); }
// static void c2r(fftwf_plan p, void *in, float *out) { fftwf_execute_dft_c2r(p, (fftwf_complex *)in, out); }
import "C"

import (
	"sync"
	"unsafe"
)

// fftw holds the plans, made under its lock (the planner is not
// thread-safe).
var fftw struct {
	sync.Mutex
	threads bool
	r2c     map[int]C.fftwf_plan
	c2r     map[[2]int]C.fftwf_plan
}

// R2C is the plan of a real-to-complex transform.
type R2C struct{ p C.fftwf_plan }

// C2R2 is the plan of a complex-to-real 2D transform.
type C2R2 struct{ p C.fftwf_plan }

// NewR2C returns the plan of the real-to-complex transform of length n.
func NewR2C(n int) R2C { return R2C{r2cPlan(n)} }

// NewC2R2 returns the plan of the complex-to-real 2D transform of an
// n × n grid from its n × (n/2+1) half, on threads threads (FFTW's own:
// its split is fixed by the plan, so the result is the same every time).
func NewC2R2(n, threads int) C2R2 { return C2R2{c2r2Plan(n, threads)} }

func r2cPlan(n int) C.fftwf_plan {
	fftw.Lock()
	defer fftw.Unlock()
	if p, ok := fftw.r2c[n]; ok {
		return p
	}
	if fftw.r2c == nil {
		fftw.r2c = map[int]C.fftwf_plan{}
	}
	p := C.planR2C(C.int(n))
	fftw.r2c[n] = p
	return p
}

func c2r2Plan(n, threads int) C.fftwf_plan {
	fftw.Lock()
	defer fftw.Unlock()
	if p, ok := fftw.c2r[[2]int{n, threads}]; ok {
		return p
	}
	if !fftw.threads {
		C.fftwf_init_threads()
		fftw.threads = true
	}
	if fftw.c2r == nil {
		fftw.c2r = map[[2]int]C.fftwf_plan{}
	}
	p := C.planC2R2(C.int(n), C.int(threads))
	fftw.c2r[[2]int{n, threads}] = p
	return p
}

// Align is the alignment of the arrays transformed: FFTW's SIMD
// kernels need the alignment the plan was made with (fftwf_malloc's),
// which a cache line's satisfies.
const Align = 64

// Float32s returns n float32s starting on an Align boundary.
func Float32s(n int) []float32 {
	b := make([]float32, n+Align/4)
	off := (Align - int(uintptr(unsafe.Pointer(&b[0]))%Align)) % Align / 4
	return b[off : off+n : off+n]
}

// Complex64s returns n complex64s starting on an Align boundary.
func Complex64s(n int) []complex64 {
	b := make([]complex64, n+Align/8)
	off := (Align - int(uintptr(unsafe.Pointer(&b[0]))%Align)) % Align / 8
	return b[off : off+n : off+n]
}

// Forward writes the transform of in (its length n, aligned: Float32s)
// into out (n/2+1, aligned: Complex64s): sign −1, unnormalised, as
// gonum's FFT.Coefficients.
func (p R2C) Forward(out []complex64, in []float32) {
	C.r2c(p.p, (*C.float)(unsafe.Pointer(&in[0])), unsafe.Pointer(&out[0]))
}

// Inverse writes the 2D inverse transform (sign +1, unnormalised) of
// the Hermitian grid whose half is in (n × (n/2+1), aligned, destroyed)
// into out (n × n, aligned).
func (p C2R2) Inverse(out []float32, in []complex64) {
	C.c2r(p.p, unsafe.Pointer(&in[0]), (*C.float)(unsafe.Pointer(&out[0])))
}
