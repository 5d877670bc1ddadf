package classify

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func randMatrix(rng *rand.Rand, n int) []float32 {
	m := make([]float32, n)
	for i := range m {
		m[i] = rng.Float32()*2 - 1
	}
	return m
}

// TestGemmAgainstNaive: the product agrees with a float64 triple loop
// for shapes with partial row panels, several k and n blocks, k of 0.
func TestGemmAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range []struct{ m, n, k int }{{1, 16, 1}, {7, 32, 3}, {13, 64, 300}, {6, 272, 513}, {20, 16, 0}} {
		a, w := randMatrix(rng, s.m*s.k), randMatrix(rng, s.k*s.n)
		c := make([]float32, s.m*s.n)
		for i := range c {
			c[i] = 99 // overwritten
		}
		gemm(s.m, s.n, s.k, a, s.k, packStrips(w, s.k, s.n), c, s.n, newGemmScratch())
		for r := range s.m {
			for j := range s.n {
				want := 0.0
				for p := range s.k {
					want += float64(a[r*s.k+p]) * float64(w[p*s.n+j])
				}
				if got := float64(c[r*s.n+j]); math.Abs(got-want) > 1e-5*(1+math.Sqrt(float64(s.k))) {
					t.Fatalf("%v: c[%d][%d] = %v, want %v", s, r, j, got, want)
				}
			}
		}
	}
}

// TestGemmRowInvariant: a row's product is the same bits wherever it
// sits in a call and whatever the call's size (what OpenBLAS does not
// give, and batch-independent results need).
func TestGemmRowInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const m, n, k = 100, 48, 700
	a, w := randMatrix(rng, m*k), randMatrix(rng, k*n)
	b := packStrips(w, k, n)
	sc := newGemmScratch()
	full := make([]float32, m*n)
	gemm(m, n, k, a, k, b, full, n, sc)
	for _, sub := range [][2]int{{0, 1}, {37, 24}, {16, 16}, {5, 3}, {93, 7}, {1, 99}} {
		part := make([]float32, sub[1]*n)
		gemm(sub[1], n, k, a[sub[0]*k:], k, b, part, n, sc)
		for i, v := range part {
			if math.Float32bits(v) != math.Float32bits(full[sub[0]*n+i]) {
				t.Fatalf("rows %v: element %d = %v, in the whole product %v", sub, i, v, full[sub[0]*n+i])
			}
		}
	}
}

// TestKernelGoMatchesAsm: where the AVX2 kernel runs, the Go kernel
// agrees with it (to the last bit but for the double rounding its
// comment allows).
func TestKernelGoMatchesAsm(t *testing.T) {
	if !hasFMA {
		t.Skip("no AVX2 and FMA here: only the Go kernel runs")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	const k = 300
	a, b := randMatrix(rng, 6*k), randMatrix(rng, k*16)
	c1, c2 := randMatrix(rng, 6*16), make([]float32, 6*16)
	copy(c2, c1)
	kernel6x16(k, a, k, 1, b, c1, 16, true)
	kernel6x16Go(k, a, k, 1, b, c2, 16, true)
	differ := 0
	for i := range c1 {
		if c1[i] != c2[i] {
			differ++
			if math.Abs(float64(c1[i]-c2[i])) > 1e-6*math.Abs(float64(c1[i]))+1e-30 {
				t.Fatalf("element %d: asm %v, Go %v", i, c1[i], c2[i])
			}
		}
	}
	t.Logf("%d of 96 elements differ in the last bit", differ)
}

// BenchmarkGemm times the kernel on the products of a ResNet-50's
// convolutions (rows x features x kernel volume·channels), one thread.
func BenchmarkGemm(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, s := range []struct{ m, n, k int }{
		{7500, 64, 294}, {864, 64, 1728}, {864, 256, 64}, {256, 64, 1728}, {256, 512, 13824}, {1152, 128, 3456},
	} {
		b.Run(fmtShape(s.m, s.n, s.k), func(b *testing.B) {
			a, w := randMatrix(rng, s.m*s.k), randMatrix(rng, s.k*s.n)
			p := packStrips(w, s.k, s.n)
			c := make([]float32, s.m*s.n)
			sc := newGemmScratch()
			for b.Loop() {
				gemm(s.m, s.n, s.k, a, s.k, p, c, s.n, sc)
			}
			b.ReportMetric(float64(2*s.m*s.n*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

func fmtShape(m, n, k int) string { return fmt.Sprintf("%dx%dx%d", m, n, k) }
