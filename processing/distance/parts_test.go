package distance

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSelectK: the k-th smallest value, for sizes below and above the
// count the radix select gathers (fewValues), with values spread over
// many octaves, few distinct values (every digit level runs and the key
// is found exactly) and values crowded into one first digit.
func TestSelectK(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 10, 101, 1000, 50000} {
		for _, kind := range []string{"spread", "dups", "narrow"} {
			v := make([]float32, n)
			for i := range v {
				switch kind {
				case "spread":
					v[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4)))
				case "dups":
					v[i] = float32(rng.IntN(4)) - 1.5
				default:
					v[i] = float32(7 + 1e-3*rng.Float64())
				}
				if i%17 == 3 && kind != "narrow" {
					v[i] = float32(math.Copysign(0, float64(v[i]))) // ±0
				}
			}
			sorted := slices.Clone(v)
			slices.Sort(sorted)
			for _, k := range []int{0, n / 2, (n - 1) / 2, n - 1} {
				w := slices.Clone(v)
				if got := selectK(w, k, newSelScratch()); got != sorted[k] {
					t.Errorf("n=%d %s: selectK(%d) = %g, sorted %g", n, kind, k, got, sorted[k])
				}
				if !slices.Equal(w, v) {
					t.Errorf("n=%d %s: selectK(%d) changed its input", n, kind, k)
				}
			}
		}
	}
}

func TestNormStats(t *testing.T) {
	// Even count: the lower middle value (torch.median), std with n−1.
	v := []float32{4, 1, 3, 2}
	hist := newSelScratch()
	shift, scale, err := normStats(MedianZScore, v, hist)
	if err != nil {
		t.Fatal(err)
	}
	if shift != 2 || math.Abs(scale-math.Sqrt(5.0/3)) > 1e-15 {
		t.Errorf("median %g std %g, want 2 and √(5/3)", shift, scale)
	}
	if s, c, _ := normStats(NoNormalization, []float32{5, 6}, hist); s != 0 || c != 1 {
		t.Errorf("none: %g %g", s, c)
	}
	if _, _, err := normStats(MedianZScore, []float32{2, 2, 2}, hist); err == nil || !strings.Contains(err.Error(), "constant") {
		t.Errorf("constant: %v", err)
	}
	for _, s := range []string{"median-zscore", "median_zscore", "none"} {
		if _, err := ParseNormalization(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseNormalization("minmax"); err == nil {
		t.Error("minmax accepted")
	}
}

func TestShellOf(t *testing.T) {
	for r2 := 0; r2 < 20000; r2++ {
		want := int(math.Floor(math.Sqrt(float64(r2)) + 0.5))
		if got := shellOf(r2); got != want {
			t.Fatalf("shellOf(%d) = %d, want %d", r2, got, want)
		}
	}
}

// TestShellsCoverFullSpectrum: the weights make the half spectrum count
// every frequency of the full spectrum in shells 1…K exactly once.
func TestShellsCoverFullSpectrum(t *testing.T) {
	for _, box := range []int{2, 5, 8, 9, 16} {
		sh := NewShells(box)
		var weighted float64
		for _, w := range sh.weight {
			weighted += w * w
		}
		full := 0
		f := func(i int) int {
			if i < (box+1)/2 {
				return i
			}
			return i - box
		}
		for z := 0; z < box; z++ {
			for y := 0; y < box; y++ {
				for x := 0; x < box; x++ {
					if s := shellOf(f(z)*f(z) + f(y)*f(y) + f(x)*f(x)); s >= 1 && s <= box/2 {
						full++
					}
				}
			}
		}
		if math.Abs(weighted-float64(full)) > 1e-9 {
			t.Errorf("box %d: weights sum to %g, the full spectrum has %d frequencies in shells", box, weighted, full)
		}
	}
}

// TestSpectrumParseval: a map's shell powers plus the DC term and the
// corners sum to box³·Σx² (Parseval), so the 3D transform is whole.
func TestSpectrumParseval(t *testing.T) {
	for _, box := range []int{6, 7} {
		m := testMaps(t, 1, box, 9)
		full, _ := FullMask(box)
		sh := NewShells(box)
		lay := newLayout([]Metric{FSC}, full.Len(), sh)
		p := newPreparer(lay, full, sh, NoNormalization, 1, nil)
		row := make([]float64, lay.RowLen)
		if err := p.prepare(row, m.Data, 1, 0, "test"); err != nil {
			t.Fatal(err)
		}
		var power, sumsq float64
		for s := 0; s < sh.K; s++ {
			power += row[lay.StatOff+2+s]
		}
		for _, x := range m.Data {
			sumsq += float64(x) * float64(x)
		}
		// Add what the shells leave out, from a naive DFT.
		left := naiveOutsidePower(m.Data, box)
		if got, want := power+left, float64(box*box*box)*sumsq; math.Abs(got-want) > 1e-9*want {
			t.Errorf("box %d: shells %g + outside %g = %g, Parseval %g", box, power, left, got, want)
		}
	}
}

// naiveOutsidePower is Σ|F(k)|² over the frequencies in no shell (DC and
// |k| ≥ K + ½), by a direct DFT.
func naiveOutsidePower(m []float32, box int) float64 {
	f := func(i int) int {
		if i < (box+1)/2 {
			return i
		}
		return i - box
	}
	var total float64
	for kz := 0; kz < box; kz++ {
		for ky := 0; ky < box; ky++ {
			for kx := 0; kx < box; kx++ {
				s := shellOf(f(kz)*f(kz) + f(ky)*f(ky) + f(kx)*f(kx))
				if s >= 1 && s <= box/2 {
					continue
				}
				var re, im float64
				for z := 0; z < box; z++ {
					for y := 0; y < box; y++ {
						for x := 0; x < box; x++ {
							ph := -2 * math.Pi * float64(kz*z+ky*y+kx*x) / float64(box)
							v := float64(m[(z*box+y)*box+x])
							re += v * math.Cos(ph)
							im += v * math.Sin(ph)
						}
					}
				}
				total += re*re + im*im
			}
		}
	}
	return total
}

func TestMasks(t *testing.T) {
	m, err := SphereMask(5, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Centre (2,2,2) and its 6 neighbours.
	if m.Len() != 7 || m.Index[3] != (2*5+2)*5+2 {
		t.Errorf("sphere of radius 1 in 5³: %v", m.Index)
	}
	runs := m.rowRuns()
	if got := runs[2*5+2+1] - runs[2*5+2]; got != 3 {
		t.Errorf("row (2,2) holds %d voxels, want 3", got)
	}
	vals := make([]float32, 27)
	vals[4], vals[20] = 1, -2
	if mm, err := MaskFromMap(3, vals); err != nil || !equalInts(mm.Index, []int32{4, 20}) {
		t.Errorf("MaskFromMap: %v %v", mm, err)
	}
	for _, bad := range []func() error{
		func() error { _, err := SphereMask(8, 0); return err },
		func() error { _, err := SphereMask(8, 0.1); return err },
		func() error { _, err := MaskFromMap(3, make([]float32, 27)); return err },
		func() error { _, err := MaskFromMap(3, make([]float32, 26)); return err },
		func() error { _, err := FullMask(1); return err },
	} {
		if bad() == nil {
			t.Error("bad mask accepted")
		}
	}
}

func TestParseMetrics(t *testing.T) {
	ms, err := ParseMetrics("l2, corr,bioem,fsc,res,l2sq,corr-distance")
	if err != nil || len(ms) != 7 {
		t.Fatalf("%v %v", ms, err)
	}
	for _, bad := range []string{"", "l2,l2", "l3"} {
		if _, err := ParseMetrics(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if !Corr.Similarity() || L2.Similarity() || !strings.Contains(Corr.Describe(), "similarity") {
		t.Error("corr must say it is a similarity")
	}
}

// TestMaskAndNormalize: each row keeps the mask's voxels in order, has
// lower median 0 and sample standard deviation 1.
func TestMaskAndNormalize(t *testing.T) {
	m := testMaps(t, 3, 6, 4)
	mask, _ := SphereMask(6, 2.5)
	rows, err := MaskAndNormalize(m.Data, 3, mask, MedianZScore)
	if err != nil {
		t.Fatal(err)
	}
	k := mask.Len()
	for i := 0; i < 3; i++ {
		r := rows[i*k : (i+1)*k]
		sorted := slices.Clone(r)
		slices.Sort(sorted)
		var mean, ss float64
		for _, x := range r {
			mean += x / float64(k)
		}
		for _, x := range r {
			ss += (x - mean) * (x - mean)
		}
		if sorted[(k-1)/2] != 0 || math.Abs(math.Sqrt(ss/float64(k-1))-1) > 1e-12 {
			t.Errorf("map %d: median %g, std %g", i, sorted[(k-1)/2], math.Sqrt(ss/float64(k-1)))
		}
		// Order kept: the largest raw voxel is the largest normalised one.
		best := 0
		for j, idx := range mask.Index {
			if m.Data[i*216+int(idx)] > m.Data[i*216+int(mask.Index[best])] {
				best = j
			}
		}
		if r[best] != sorted[k-1] {
			t.Errorf("map %d: voxel order not kept", i)
		}
	}
	if _, err := MaskAndNormalize(m.Data[:10], 3, mask, MedianZScore); err == nil {
		t.Error("short input accepted")
	}
}
