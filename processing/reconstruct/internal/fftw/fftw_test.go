package fftw

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestTransformsMatchTheDFT: Forward is the real input's DFT (sign −1,
// unnormalised) and Inverse the 2D inverse DFT (sign +1, unnormalised)
// of a Hermitian grid given by its half, each against the sums written
// out in float64, within single precision's error (1e-5 of the
// largest value), at an even length FFTW factors (12, 20 for gridrec's
// 3·2^k grids) and a prime one.
func TestTransformsMatchTheDFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{12, 20, 17} {
		in := Float32s(n)
		for i := range in {
			in[i] = float32(rng.NormFloat64())
		}
		out := Complex64s(n/2 + 1)
		NewR2C(n).Forward(out, in)
		for k := range out {
			var want complex128
			for j, x := range in {
				want += complex(float64(x), 0) * cmplx.Exp(complex(0, -2*math.Pi*float64(j*k)/float64(n)))
			}
			if d := cmplx.Abs(complex128(out[k]) - want); d > 1e-5*float64(n) {
				t.Errorf("n %d: Forward[%d] = %v, want %v", n, k, out[k], want)
			}
		}
	}
	for _, n := range []int{12, 20} {
		// A Hermitian grid: G(−ω) = conj G(ω), built from a random one.
		full := make([]complex128, n*n)
		r := make([]complex128, n*n)
		for i := range r {
			r[i] = complex(rng.NormFloat64(), rng.NormFloat64())
		}
		for y := range n {
			for x := range n {
				full[y*n+x] = r[y*n+x] + cmplx.Conj(r[((n-y)%n)*n+(n-x)%n])
			}
		}
		hw := n/2 + 1
		half := Complex64s(n * hw)
		for y := range n {
			for x := range hw {
				half[y*hw+x] = complex64(full[y*n+x])
			}
		}
		out := Float32s(n * n)
		NewC2R2(n, 2).Inverse(out, half)
		for i := range n {
			for j := range n {
				var want complex128
				for y := range n {
					for x := range n {
						want += full[y*n+x] * cmplx.Exp(complex(0, 2*math.Pi*float64(y*i+x*j)/float64(n)))
					}
				}
				if d := math.Abs(float64(out[i*n+j]) - real(want)); d > 1e-4*float64(n) {
					t.Errorf("n %d: Inverse[%d,%d] = %g, want %g", n, i, j, out[i*n+j], real(want))
				}
			}
		}
	}
}

// TestAligned: the arrays start on Align boundaries, as the plans need.
func TestAligned(t *testing.T) {
	for n := 1; n < 40; n++ {
		if a := Float32s(n); uintptrOf(&a[0])%Align != 0 || len(a) != n {
			t.Fatalf("Float32s(%d): misaligned or %d long", n, len(a))
		}
		if a := Complex64s(n); uintptrOf(&a[0])%Align != 0 || len(a) != n {
			t.Fatalf("Complex64s(%d): misaligned or %d long", n, len(a))
		}
	}
}

// uintptrOf is p's address.
func uintptrOf[T any](p *T) uintptr { return uintptr(unsafe.Pointer(p)) }
