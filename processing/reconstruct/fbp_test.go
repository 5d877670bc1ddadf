package reconstruct

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// readNPY reads a committed golden file as float64 values and its shape.
func readNPY(t *testing.T, name string) ([]float64, [3]int) {
	t.Helper()
	v, err := volume.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	raw, err := v.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, v.Len())
	volume.ToFloat64(out, raw, v.DType)
	return out, v.Shape
}

func f32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

func radians(deg []float64) []float64 {
	out := make([]float64, len(deg))
	for i, d := range deg {
		out[i] = d * math.Pi / 180
	}
	return out
}

// naiveFBP is filtered back-projection written plainly from its textbook
// definition (Kak & Slaney ch. 3), independent of FBP's code: each
// projection zero-padded to p, its discrete Fourier transform summed
// term by term, multiplied by the filter written out from its formula,
// transformed back by the same sums, then each pixel's value read at
// u = centre + x·cos θ − y·sin θ by linear interpolation and summed. The
// detector is first widened by pad zeros on each side, as iradon does.
func naiveFBP(sino []float64, angles []float64, size, pad int, centre float64, filter string) []float64 {
	cols := size + 2*pad
	centre += float64(pad)
	p := 64
	for p < 2*cols {
		p *= 2
	}
	h := naiveFilter(p, filter)
	filtered := make([][]float64, len(angles))
	for a := range angles {
		row := make([]float64, cols)
		copy(row[pad:], sino[a*size:(a+1)*size])
		re, im := make([]float64, p), make([]float64, p)
		for k := 0; k < p; k++ {
			for n := 0; n < cols; n++ {
				s, c := math.Sincos(-2 * math.Pi * float64(k*n) / float64(p))
				re[k] += row[n] * c
				im[k] += row[n] * s
			}
		}
		out := make([]float64, cols)
		for n := range out {
			for k := 0; k < p; k++ {
				s, c := math.Sincos(2 * math.Pi * float64(k*n) / float64(p))
				out[n] += h[k] * (re[k]*c - im[k]*s) / float64(p) // the real part
			}
		}
		filtered[a] = out
	}
	img := make([]float64, size*size)
	r := size / 2
	for i := 0; i < size; i++ {
		for j := 0; j < size; j++ {
			x, y := float64(j-r), float64(i-r)
			if x*x+y*y > float64(r*r) {
				continue
			}
			var sum float64
			for a, th := range angles {
				u := centre + x*math.Cos(th) - y*math.Sin(th)
				k := math.Floor(u)
				if u < 0 || u > float64(cols-1) {
					continue
				}
				w := u - k
				v := filtered[a][int(k)] * (1 - w)
				if w > 0 {
					v += filtered[a][int(k)+1] * w
				}
				sum += v
			}
			img[i*size+j] = sum * math.Pi / float64(2*len(angles))
		}
	}
	return img
}

// naiveFilter is the response over p frequencies in FFT order: |f|
// made from the ramp's spatial kernel (h(0) = 1/4, h(n) = −1/(πn)² for
// odd n) by a plain DFT, times the window (Kak & Slaney; scikit-image's
// iradon documents the same windows).
func naiveFilter(p int, name string) []float64 {
	out := make([]float64, p)
	for k := range out {
		var s float64
		for n := -p/2 + 1; n <= p/2; n++ {
			var hn float64
			switch {
			case n == 0:
				hn = 0.25
			case n%2 != 0:
				hn = -1 / (math.Pi * math.Pi * float64(n*n))
			}
			s += hn * math.Cos(2*math.Pi*float64(k*n)/float64(p))
		}
		out[k] = 2 * s
	}
	for k := range out {
		f := float64(k) / float64(p) // frequency in cycles per sample
		if k >= p/2 {
			f -= 1
		}
		m := (k + p/2) % p // the window's own index, centred
		switch name {
		case "shepp":
			if k > 0 {
				out[k] *= math.Sin(math.Pi*f) / (math.Pi * f)
			}
		case "cosine":
			out[k] *= math.Sin(math.Pi * float64(m) / float64(p))
		case "hamming":
			out[k] *= 0.54 - 0.46*math.Cos(2*math.Pi*float64(m)/float64(p-1))
		case "hann":
			out[k] *= 0.5 - 0.5*math.Cos(2*math.Pi*float64(m)/float64(p-1))
		}
	}
	return out
}

func maxAbsDiff(a []float32, b []float64) (d, peak float64) {
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i])-b[i]))
		peak = math.Max(peak, math.Abs(b[i]))
	}
	return d, peak
}

// TestFBPSheppLogan reconstructs the Shepp-Logan phantom's sinogram (64
// columns, 90 angles; testdata/gen_golden.py) with each filter and
// compares the slice with scikit-image's iradon and with naiveFBP: within
// 1e-6 of the slice's peak (FBP keeps the filtered projections and the
// slice in float32; iradon works in float64). Seen: 6e-8.
func TestFBPSheppLogan(t *testing.T) {
	sino, ss := readNPY(t, "shepp_sino.npy")
	deg, _ := readNPY(t, "shepp_angles.npy")
	golden, gs := readNPY(t, "shepp_iradon.npy")
	nang, cols := ss[1], ss[2]
	if len(deg) != nang || gs[0] != 5 || gs[1] != cols {
		t.Fatalf("golden shapes %v %v, %d angles", ss, gs, len(deg))
	}
	angles := radians(deg)
	for fi, name := range []string{"ramp", "shepp", "cosine", "hamming", "hann"} {
		f, err := ParseFilter(name)
		if err != nil {
			t.Fatal(err)
		}
		fbp, err := NewFBP(Geometry{Angles: angles, Columns: cols, Center: float64(cols / 2),
			Pad: DiagonalPad(cols), PadZeros: true, MaskRadius: 1, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float32, cols*cols)
		fbp.Slice(got, f32(sino))
		want := golden[fi*cols*cols : (fi+1)*cols*cols]
		if d, peak := maxAbsDiff(got, want); d > 1e-6*peak || peak < 0.5 {
			t.Errorf("%s: differs from skimage's iradon by %.3g (peak %.3g)", name, d, peak)
		} else {
			t.Logf("%s: max |FBP − iradon| %.2g (peak %.3g)", name, d, peak)
		}
		naive := naiveFBP(sino, angles, cols, DiagonalPad(cols), float64(cols/2), name)
		if d, peak := maxAbsDiff(got, naive); d > 1e-6*peak {
			t.Errorf("%s: differs from the naive FBP by %.3g (peak %.3g)", name, d, peak)
		} else {
			t.Logf("%s: max |FBP − naive| %.2g", name, d)
		}
	}
}

// TestFBPCentreAndPadding: a sinogram whose axis sits off the detector's
// middle reconstructs, given that centre, as the centred one does; with
// the sinogram's edge columns zero (radon's last column holds a sliver
// of the phantom, cleared here), padding with edge values (AutoPad) gives
// what zeros to the diagonal give, while no padding cuts the ramp's
// tails and differs by > 1 %.
func TestFBPCentreAndPadding(t *testing.T) {
	sino, ss := readNPY(t, "shepp_sino.npy")
	deg, _ := readNPY(t, "shepp_angles.npy")
	nang, cols := ss[1], ss[2]
	angles := radians(deg)
	g := Geometry{Angles: angles, Columns: cols, Center: 32, Pad: DiagonalPad(cols), PadZeros: true, MaskRadius: 1}
	base := recon(t, g, f32(sino))

	// The same projections with 6 columns of zeros added on the left: the
	// axis is now at column 38 of 70.
	wide := make([]float32, nang*(cols+6))
	for a := 0; a < nang; a++ {
		for c := 0; c < cols; c++ {
			wide[a*(cols+6)+6+c] = float32(sino[a*cols+c])
		}
	}
	shifted := recon(t, Geometry{Angles: angles, Columns: cols + 6, Center: 38, Size: cols,
		Pad: DiagonalPad(cols), PadZeros: true, MaskRadius: 1}, wide)
	if d, peak := maxAbsDiff(shifted, f64(base)); d > 1e-6*peak {
		t.Errorf("off-centre axis: differs from the centred slice by %.3g (peak %.3g)", d, peak)
	}
	for a := 0; a < nang; a++ {
		sino[a*cols+cols-1] = 0
	}
	base = recon(t, g, f32(sino))
	g.Pad, g.PadZeros = AutoPad(cols), false
	if d, peak := maxAbsDiff(recon(t, g, f32(sino)), f64(base)); d > 1e-6*peak {
		t.Errorf("edge padding %d: differs from zeros to the diagonal by %.3g (peak %.3g)", g.Pad, d, peak)
	}
	g.Pad = 0
	if d, peak := maxAbsDiff(recon(t, g, f32(sino)), f64(base)); d < 0.01*peak {
		t.Errorf("no padding: within %.3g of the padded slice (peak %.3g), the tails should matter", d, peak)
	}
}

func recon(t *testing.T, g Geometry, sino []float32) []float32 {
	t.Helper()
	fbp, err := NewFBP(g)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, fbp.Size()*fbp.Size())
	fbp.Slice(out, sino)
	return out
}

func f64(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// TestGeometryCheck: a centre outside the detector, no angles and a
// one-column detector are refused with what is wrong.
func TestGeometryCheck(t *testing.T) {
	for _, g := range []Geometry{
		{Angles: []float64{0}, Columns: 64, Center: 64},
		{Angles: []float64{0}, Columns: 64, Center: -0.5},
		{Angles: []float64{0}, Columns: 64, Center: math.NaN()},
		{Columns: 64, Center: 32},
		{Angles: []float64{0}, Columns: 1},
	} {
		if _, err := NewFBP(g); err == nil {
			t.Errorf("%+v: accepted", g)
		}
	}
}
