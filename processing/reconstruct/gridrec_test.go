package reconstruct

import (
	"context"
	"math"
	"runtime"
	"testing"
)

// directFourier is the slice gridrec approximates, summed plainly at
// pixel (i, j): FBP with band-limited instead of linear interpolation,
// Σ over angles and frequencies k of w_k·P_a(k)·e^{2πik·s/p} with
// s = x·cos θ − y·sin θ, P_a the DFT of projection a zero-padded by pad
// columns and then to p about the axis, and w_k = π·H(k)/(2·angles·p)
// with H the test's own filter (naiveFilter), its even part.
func directFourier(sino []float64, angles []float64, cols, pad, p int, centre float64, filter string, i, j, n int) float64 {
	h := naiveFilter(p, filter)
	x, y := float64(j-n/2), float64(i-n/2)
	var sum float64
	for a, th := range angles {
		s := x*math.Cos(th) - y*math.Sin(th)
		for k := -p / 2; k < p/2; k++ {
			var re, im float64 // P_a(k)
			for d := 0; d < cols; d++ {
				sn, cs := math.Sincos(-2 * math.Pi * float64(k) * (float64(d) - centre) / float64(p))
				re += sino[a*cols+d] * cs
				im += sino[a*cols+d] * sn
			}
			w := math.Pi * (h[(k+p)%p] + h[(p-k)%p]) / 2 / float64(2*len(angles)*p)
			sn, cs := math.Sincos(2 * math.Pi * float64(k) * s / float64(p))
			sum += w * (re*cs - im*sn)
		}
	}
	return sum
}

// TestGridrec compares gridrec of the Shepp-Logan sinogram (64 columns,
// 90 angles) with directFourier at a grid of pixels, within 1e-4 of the
// peak (the Kaiser-Bessel kernel's error; seen 7e-6), and with FBP's slice: its
// root-mean-square difference within 10 % of FBP's own (FBP's linear
// interpolation blurs edges gridrec keeps; seen 8 % with the ramp), at
// the centre and off it (the axis at 38 of 70 columns).
func TestGridrec(t *testing.T) {
	sino, ss := readNPY(t, "shepp_sino.npy")
	deg, _ := readNPY(t, "shepp_angles.npy")
	nang, cols := ss[1], ss[2]
	angles := radians(deg)
	wide := make([]float32, nang*(cols+6))
	for a := 0; a < nang; a++ {
		for c := 0; c < cols; c++ {
			wide[a*(cols+6)+6+c] = float32(sino[a*cols+c])
		}
	}
	pad := DiagonalPad(cols)
	for _, f := range []Filter{Ramp, SheppLogan, Cosine, Hamming, Hann} {
		for _, c := range []struct {
			sino    []float32
			columns int
			centre  float64
		}{{f32(sino), cols, 32}, {wide, cols + 6, 38}} {
			g := Geometry{Angles: angles, Columns: c.columns, Center: c.centre, Size: cols,
				Pad: pad, PadZeros: true, MaskRadius: 1, Filter: f}
			fbp := recon(t, g, c.sino)
			gr, err := NewGridrec(g)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float32, cols*cols)
			if err := gr.SliceContext(context.Background(), got, c.sino); err != nil {
				t.Fatal(err)
			}
			var d2, f2 float64
			for i := range got {
				d := float64(got[i] - fbp[i])
				d2, f2 = d2+d*d, f2+float64(fbp[i])*float64(fbp[i])
			}
			if math.Sqrt(d2) > 0.1*math.Sqrt(f2) {
				t.Errorf("%s, centre %g: rms |gridrec − FBP| is %.1f %% of FBP's", f, c.centre, 100*math.Sqrt(d2/f2))
			}
			if c.centre != 32 || (f != Ramp && f != Hamming) {
				continue // the direct sum is slow: two filters, once
			}
			worst := 0.0
			for i := 4; i < cols; i += 9 {
				for j := 4; j < cols; j += 9 {
					if (i-32)*(i-32)+(j-32)*(j-32) > 32*32 {
						continue
					}
					want := directFourier(sino, angles, cols, pad, gr.p, 32, f.String(), i, j, cols)
					worst = math.Max(worst, math.Abs(float64(got[i*cols+j])-want))
				}
			}
			if worst > 1e-4*0.85 {
				t.Errorf("%s: gridrec differs from the direct Fourier sum by %.3g", f, worst)
			} else {
				t.Logf("%s: max |gridrec − direct sum| %.2g, rms |gridrec − FBP| %.1f %%", f, worst, 100*math.Sqrt(d2/f2))
			}
		}
	}
}

// TestGridrecSameWhateverTheCores: a slice is the same, bit for bit,
// whatever the number of cores that spread it onto bands of the grid
// (1, 2, 3, and 16 as on the GPU machine, where bands are a few cache
// lines wide: a sample at a band's edge is spread by two cores, each its
// own cells, through kbspread's indexed path, where one core takes the
// vectorised one) and the FFTW threads that transform it, and the same
// when reconstructed again: a run's slices do not depend on the node a
// task ran on, nor on the block of rows.
func TestGridrecSameWhateverTheCores(t *testing.T) {
	sino, ss := readNPY(t, "shepp_sino.npy")
	deg, _ := readNPY(t, "shepp_angles.npy")
	cols := ss[2]
	small := Geometry{Angles: radians(deg), Columns: cols, Center: 31.7, Size: cols,
		Pad: DiagonalPad(cols), PadZeros: true, MaskRadius: 1, Filter: Ramp}
	// BenchmarkGridrec's size: a 768² grid, FFTW's threaded plans at
	// the size that matters.
	const bcols = 512
	angles, bench := sawtooth(720, bcols, 97)
	large := Geometry{Angles: angles, Columns: bcols, Center: bcols / 2, Pad: DiagonalPad(bcols), PadZeros: true, MaskRadius: 1}
	for _, c := range []struct {
		g    Geometry
		sino []float32
	}{{small, f32(sino)}, {large, bench}} {
		n := c.g.Columns
		slice := func(procs int) []float32 {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			gr, err := NewGridrec(c.g)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]float32, n*n)
			if err := gr.SliceContext(context.Background(), out, c.sino); err != nil {
				t.Fatal(err)
			}
			return out
		}
		want := slice(1)
		for _, procs := range []int{2, 3, 16, 1} {
			got := slice(procs)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Errorf("%d columns, %d cores: pixel %d is %g, with 1 core %g", n, procs, i, got[i], want[i])
					break
				}
			}
		}
	}
}

// TestGridrecAllocatesNothingPerSlice: a slice allocates nothing on the
// Go heap once the Gridrec is made (crew), so that a run of thousands of
// slices leaves no garbage to pile up to the CLI's soft memory limit
// above the plan.
func TestGridrecAllocatesNothingPerSlice(t *testing.T) {
	const cols = 64
	angles, sino := sawtooth(90, cols, 13)
	gr, err := NewGridrec(Geometry{Angles: angles, Columns: cols, Center: 31.5, Pad: DiagonalPad(cols), PadZeros: true, MaskRadius: 1})
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float32, cols*cols)
	if n := testing.AllocsPerRun(5, func() { gr.SliceContext(context.Background(), dst, sino) }); n != 0 {
		t.Errorf("%.0f allocations a slice", n)
	}
}
