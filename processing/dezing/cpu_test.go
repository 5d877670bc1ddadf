package dezing

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/zinger"
)

// naiveMedian is the reference remove_outlier: gather each neighbourhood
// with clamped indices, sort it fully, take the middle (float32 by
// totalOrder keys), and apply the two-sided test.
func naiveMedian[T uint16 | uint32](src []T, p MedianParams) []T {
	r := p.Kernel / 2
	out := make([]T, p.N*p.Rows*p.Cols)
	nb := make([]uint32, 0, p.Kernel*p.Kernel*p.Kernel)
	cl := func(v, n int) int { return min(max(v, 0), n-1) }
	at := func(z, y, x int) T { return src[(z*p.Rows+y)*p.Cols+x] }
	for z := 0; z < p.N; z++ {
		zc := p.Z0 + z
		for y := 0; y < p.Rows; y++ {
			for x := 0; x < p.Cols; x++ {
				nb = nb[:0]
				for dz := -r; dz <= r; dz++ {
					for dy := -r; dy <= r; dy++ {
						for dx := -r; dx <= r; dx++ {
							v := uint32(at(cl(zc+dz, p.Planes), cl(y+dy, p.Rows), cl(x+dx, p.Cols)))
							if p.Float32 {
								v = floatKey(v)
							}
							nb = append(nb, v)
						}
					}
				}
				slices.Sort(nb)
				mk := nb[len(nb)/2]
				v := at(zc, y, x)
				o := v
				if p.Float32 {
					m := math.Float32frombits(floatUnkey(mk))
					if float32(math.Abs(float64(math.Float32frombits(uint32(v))-m))) >= float32(p.Dif) {
						o = T(math.Float32bits(m))
					}
				} else if math.Abs(float64(v)-float64(mk)) >= p.Dif {
					o = T(mk)
				}
				out[(z*p.Rows+y)*p.Cols+x] = o
			}
		}
	}
	return out
}

// randomBlock makes data with runs of equal values, hot and cold spikes
// and (float32) NaN, ±Inf and −0, so that ties and the edges are
// exercised.
func randomU16(rng *rand.Rand, n int, levels int) []uint16 {
	s := make([]uint16, n)
	for i := range s {
		switch rng.IntN(20) {
		case 0:
			s[i] = 65535
		case 1:
			s[i] = 0
		default:
			s[i] = uint16(rng.IntN(levels) * (60000 / levels))
		}
	}
	return s
}

func randomF32(rng *rand.Rand, n int, levels int) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		var f float32
		switch rng.IntN(40) {
		case 0:
			f = float32(math.NaN())
		case 1:
			f = float32(math.Inf(1))
		case 2:
			f = float32(math.Inf(-1))
		case 3:
			f = float32(math.Copysign(0, -1))
		case 4:
			f = -float32(math.NaN()) // a NaN with the sign bit set
			s[i] = math.Float32bits(f) | 0x80000000
			continue
		case 5, 6:
			f = 1e6 * float32(rng.NormFloat64())
		default:
			f = float32(rng.IntN(levels))*700 - 3000 + float32(rng.Float64())
		}
		s[i] = math.Float32bits(f)
	}
	return s
}

func bytesOf[T uint16 | uint32](s []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

func runMedian(t testing.TB, be *gpu.CPUBackend, src []byte, p MedianParams) []byte {
	t.Helper()
	in, err := be.Alloc("in", int64(len(src)))
	if err != nil {
		t.Fatal(err)
	}
	defer be.Free(in)
	copy(in.HostBytes(), src)
	out, _ := be.Alloc("out", p.DstBytes())
	defer be.Free(out)
	scr, _ := be.Alloc("scratch", (cpuOps{be}).MedianScratch(p))
	defer be.Free(scr)
	if err := (cpuOps{be}).Median(out, in, scr, p); err != nil {
		t.Fatal(err)
	}
	return slices.Clone(out.HostBytes())
}

// bothMethods runs a test with the bound method for kernels of 5 or more
// (switching to slabs where the data are noisy) and with slabs only.
func bothMethods(t *testing.T, test func(t *testing.T)) {
	t.Run("bounds", test)
	zinger.SlabOnly = true
	defer func() { zinger.SlabOnly = false }()
	t.Run("slabs", test)
}

func TestDezingMedianMatchesNaive(t *testing.T) { bothMethods(t, testMatchesNaive) }

func testMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := [][3]int{{1, 1, 1}, {1, 5, 7}, {4, 3, 2}, {5, 9, 8}, {7, 16, 13}, {3, 2, 31}, {9, 14, 15}}
	for _, kernel := range []int{3, 5, 7, 9, 13} {
		for _, sh := range shapes {
			if kernel >= 9 && sh[0]*sh[1]*sh[2] > 1000 {
				continue // the naive reference is slow for large kernels
			}
			for _, float := range []bool{false, true} {
				for _, workers := range []int{1, 3} {
					levels := 1 + rng.IntN(30)
					p := MedianParams{Float32: float, Planes: sh[0], Rows: sh[1], Cols: sh[2], Z0: 0, N: sh[0], Kernel: kernel, Dif: 1000}
					if sh[0] > 2 {
						p.Z0, p.N = 1, sh[0]-2
					}
					name := fmt.Sprintf("k%d/%v/f%v/w%d", kernel, sh, float, workers)
					be := gpu.NewCPUWorkers(workers)
					var got, want []byte
					if float {
						src := randomF32(rng, sh[0]*sh[1]*sh[2], levels)
						want = bytesOf(naiveMedian(src, p))
						got = runMedian(t, be, bytesOf(src), p)
					} else {
						src := randomU16(rng, sh[0]*sh[1]*sh[2], levels)
						want = bytesOf(naiveMedian(src, p))
						got = runMedian(t, be, bytesOf(src), p)
					}
					if !slices.Equal(got, want) {
						t.Errorf("%s: differs from the naive reference", name)
					}
				}
			}
		}
	}
}

func TestDezingMedianLargeRandom(t *testing.T) { bothMethods(t, testLargeRandom) }

func testLargeRandom(t *testing.T) {
	// Larger, noisier blocks through both kernel-3 paths (row pairs and a
	// single last row, odd and even widths) and the slab path.
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ kernel, z, y, x int }{{3, 6, 33, 64}, {3, 5, 32, 65}, {5, 5, 21, 40}, {7, 9, 12, 19}} {
		for _, float := range []bool{false, true} {
			p := MedianParams{Float32: float, Planes: tc.z, Rows: tc.y, Cols: tc.x, N: tc.z, Kernel: tc.kernel, Dif: 300}
			be := gpu.NewCPUWorkers(2)
			var got, want []byte
			if float {
				src := randomF32(rng, tc.z*tc.y*tc.x, 1000)
				want, got = bytesOf(naiveMedian(src, p)), runMedian(t, be, bytesOf(src), p)
			} else {
				src := randomU16(rng, tc.z*tc.y*tc.x, 5000)
				want, got = bytesOf(naiveMedian(src, p)), runMedian(t, be, bytesOf(src), p)
			}
			if !slices.Equal(got, want) {
				t.Errorf("kernel %d %dx%dx%d float=%v: differs from the naive reference", tc.kernel, tc.z, tc.y, tc.x, float)
			}
		}
	}
}

func TestDezingMedianErrors(t *testing.T) {
	be := gpu.NewCPU()
	ok := MedianParams{Planes: 3, Rows: 4, Cols: 5, N: 3, Kernel: 3, Dif: 1}
	in, _ := be.Alloc("in", ok.SrcBytes())
	out, _ := be.Alloc("out", ok.DstBytes())
	scr, _ := be.Alloc("scratch", (cpuOps{be}).MedianScratch(ok))
	for _, tc := range []struct {
		name string
		edit func(*MedianParams)
		want string
	}{
		{"even kernel", func(p *MedianParams) { p.Kernel = 4 }, "must be odd"},
		{"kernel 15", func(p *MedianParams) { p.Kernel = 15 }, "from 3 to 13"},
		{"dif 0", func(p *MedianParams) { p.Dif = 0 }, "must be positive"},
		{"dif NaN", func(p *MedianParams) { p.Dif = math.NaN() }, "must be positive"},
		{"planes", func(p *MedianParams) { p.N = 4 }, "outside"},
		{"small input", func(p *MedianParams) { p.Planes = 4; p.N = 4 }, "needs"},
	} {
		p := ok
		tc.edit(&p)
		err := (cpuOps{be}).Median(out, in, scr, p)
		if err == nil || !contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if err := (cpuOps{be}).Median(out, in, scr, ok); err != nil {
		t.Errorf("valid call: %v", err)
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && stringIndex(s, sub) >= 0)
}

func stringIndex(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestDezingKeyOrder(t *testing.T) {
	vals := []float32{float32(math.Inf(-1)), -3e38, -1, -1e-45, float32(math.Copysign(0, -1)), 0, 1e-45, 1, 3e38, float32(math.Inf(1))}
	for i := 1; i < len(vals); i++ {
		a, b := floatKey(math.Float32bits(vals[i-1])), floatKey(math.Float32bits(vals[i]))
		if a >= b {
			t.Errorf("key(%v) = %#x is not below key(%v) = %#x", vals[i-1], a, vals[i], b)
		}
	}
	nan := math.Float32bits(float32(math.NaN()))
	if floatKey(nan) <= floatKey(math.Float32bits(float32(math.Inf(1)))) {
		t.Error("+NaN must sort above +Inf")
	}
	if floatKey(nan|0x80000000) >= floatKey(math.Float32bits(float32(math.Inf(-1)))) {
		t.Error("−NaN must sort below −Inf")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 100000; i++ {
		b := rng.Uint32()
		if floatUnkey(floatKey(b)) != b {
			t.Fatalf("unkey(key(%#x)) = %#x", b, floatUnkey(floatKey(b)))
		}
	}
}

func TestDezingLog(t *testing.T) {
	// The portable log must agree with math.Log to the last bit on the
	// values −log sees (float32 inputs), and must be exact where log is.
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 200000; i++ {
		x := float64(math.Float32frombits(rng.Uint32() & 0x7fffffff))
		if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
			continue
		}
		got, want := portableLog(x), math.Log(x)
		if got != want && math.Abs(got-want) > 1e-15*math.Abs(want) {
			t.Fatalf("portableLog(%g) = %v, math.Log = %v", x, got, want)
		}
	}
	for _, tc := range []struct{ x, want float64 }{{1, 0}, {0, math.Inf(-1)}, {math.Inf(1), math.Inf(1)}} {
		if got := portableLog(tc.x); got != tc.want {
			t.Errorf("portableLog(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
	if !math.IsNaN(portableLog(-1)) || !math.IsNaN(portableLog(math.NaN())) {
		t.Error("portableLog of a negative number or NaN must be NaN")
	}
}

func TestDezingReduce(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, frames := range []int{1, 2, 5, 20} {
		for _, float := range []bool{false, true} {
			for _, median := range []bool{false, true} {
				pixels := 3000 // more than one chunk
				p := ReduceParams{Float32: float, Frames: frames, Pixels: pixels, Median: median}
				var src []byte
				vals := make([][]float64, pixels)
				if float {
					s := make([]float32, frames*pixels)
					for i := range s {
						s[i] = float32(rng.NormFloat64()*100 + 500)
						vals[i%pixels] = append(vals[i%pixels], float64(s[i]))
					}
					src = unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*4)
				} else {
					s := randomU16(rng, frames*pixels, 100)
					for i, v := range s {
						vals[i%pixels] = append(vals[i%pixels], float64(v))
					}
					src = bytesOf(s)
				}
				be := gpu.NewCPUWorkers(2)
				in, _ := be.Alloc("in", int64(len(src)))
				copy(in.HostBytes(), src)
				out, _ := be.Alloc("out", int64(pixels)*4)
				scr, _ := be.Alloc("scratch", (cpuOps{be}).ReduceScratch(p))
				if err := (cpuOps{be}).Reduce(out, in, scr, p); err != nil {
					t.Fatal(err)
				}
				got := dzF32b(out.HostBytes())
				for i, v := range vals {
					var want float32
					if median {
						slices.Sort(v)
						h := len(v) / 2
						if len(v)%2 == 1 {
							want = float32(v[h])
						} else {
							want = float32((v[h-1] + v[h]) / 2)
						}
					} else {
						s := 0.0
						for _, x := range v {
							s += x
						}
						want = float32(s / float64(len(v)))
					}
					if got[i] != want {
						t.Fatalf("frames %d float %v median %v pixel %d: %v, want %v", frames, float, median, i, got[i], want)
					}
				}
			}
		}
	}
}

func TestDezingFlatField(t *testing.T) {
	be := gpu.NewCPUWorkers(2)
	pixels, frames := 4, 3
	dark := []float32{100, 100, 100, float32(math.NaN())}
	flat := []float32{1100, 100, 50, 1000}
	proj := []uint16{600, 300, 100, 600, 1100, 100, 0, 5, 100, 250, 65535, 7}
	mk := func(b []byte) *gpu.Buffer {
		buf, _ := be.Alloc("b", int64(len(b)))
		copy(buf.HostBytes(), b)
		return buf
	}
	d := mk(unsafe.Slice((*byte)(unsafe.Pointer(&dark[0])), 16))
	f := mk(unsafe.Slice((*byte)(unsafe.Pointer(&flat[0])), 16))
	in := mk(bytesOf(proj))
	out, _ := be.Alloc("out", int64(pixels*frames*4))
	for _, p := range []FlatFieldParams{
		{Frames: frames, Pixels: pixels, Low: -1e12, High: 1e12},
		{Frames: frames, Pixels: pixels, Low: -1e9, High: 1e9},
		{Frames: frames, Pixels: pixels, Low: 1e-3, High: 1e9, MinusLog: true},
	} {
		clipped, err := (cpuOps{be}).FlatField(out, in, d, f, nil, p)
		if err != nil {
			t.Fatal(err)
		}
		got := dzF32b(out.HostBytes())
		wantClipped := int64(0)
		for i, v := range proj {
			px := i % pixels
			// The formula in float64, rounded once: it agrees with the
			// float32 arithmetic here because every term is exact.
			den := float64(flat[px]) - float64(dark[px])
			if den < 1e-7 {
				den = float64(float32(1e-7))
			}
			want := float32((float64(v) - float64(dark[px])) / den)
			if want < p.Low {
				want, wantClipped = p.Low, wantClipped+1
			} else if want > p.High {
				want, wantClipped = p.High, wantClipped+1
			}
			if p.MinusLog {
				want = float32(-math.Log(float64(want)))
			}
			if math.Float32bits(got[i]) != math.Float32bits(want) && !(math.IsNaN(float64(got[i])) && math.IsNaN(float64(want))) {
				t.Errorf("%+v: value %d: %v, want %v", p, i, got[i], want)
			}
		}
		if clipped != wantClipped {
			t.Errorf("%+v: clipped %d values, want %d", p, clipped, wantClipped)
		}
	}
}

func TestDezingMedianPhantom(t *testing.T) { bothMethods(t, testPhantom) }

func testPhantom(t *testing.T) {
	// Smooth data with sparse zingers: most rows are settled by the
	// bounds, a few voxels take the single-voxel path; with a small dif
	// the dense path runs too. All must equal the naive reference.
	for _, tc := range []struct {
		kernel int
		dif    float64
	}{{3, 1000}, {3, 150}, {3, 5000}, {5, 1000}, {7, 600}} {
		for _, float := range []bool{false, true} {
			z, y, x := 5, 37, 70
			src := benchPhantom(z, y, x, float)
			p := MedianParams{Float32: float, Planes: z, Rows: y, Cols: x, N: z, Kernel: tc.kernel, Dif: tc.dif}
			var want []byte
			if float {
				want = bytesOf(naiveMedian(unsafe.Slice((*uint32)(unsafe.Pointer(&src[0])), len(src)/4), p))
			} else {
				want = bytesOf(naiveMedian(unsafe.Slice((*uint16)(unsafe.Pointer(&src[0])), len(src)/2), p))
			}
			got := runMedian(t, gpu.NewCPUWorkers(2), src, p)
			if !slices.Equal(got, want) {
				t.Errorf("kernel %d dif %v float %v: differs from the naive reference", tc.kernel, tc.dif, float)
			}
			if slices.Equal(want, src) {
				t.Errorf("kernel %d dif %v float %v: nothing was replaced; the test would not see a wrong median", tc.kernel, tc.dif, float)
			}
		}
	}
}

func TestDezingMedianFloatBoundary(t *testing.T) { bothMethods(t, testFloatBoundary) }

// testFloatBoundary puts voxels at, just inside and just outside dif from
// their median, and large values where float32 rounding of x − m decides,
// so that every path's float32 test is checked where it is tight.
func testFloatBoundary(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, kernel := range []int{3, 5, 7} {
		for _, tc := range []struct {
			base, dif float32
		}{{0, 1000}, {1e8, 1}, {1e8, 8}, {3e7, 2.5}, {-5e6, 0.75}, {1e-3, 1e-6}} {
			z, y, x := 5, 9, 11
			s := make([]uint32, z*y*x)
			for i := range s {
				s[i] = math.Float32bits(tc.base)
			}
			// Sprinkle values at dif, one ulp either side, and multiples.
			for i := 0; i < len(s)/4; i++ {
				d := tc.dif * float32(rng.IntN(3))
				v := tc.base + d
				switch rng.IntN(3) {
				case 0:
					v = math.Nextafter32(v, float32(math.Inf(1)))
				case 1:
					v = math.Nextafter32(v, float32(math.Inf(-1)))
				}
				if rng.IntN(2) == 0 {
					v = tc.base - (v - tc.base)
				}
				s[rng.IntN(len(s))] = math.Float32bits(v)
			}
			p := MedianParams{Float32: true, Planes: z, Rows: y, Cols: x, N: z, Kernel: kernel, Dif: float64(tc.dif)}
			want := bytesOf(naiveMedian(s, p))
			got := runMedian(t, gpu.NewCPUWorkers(2), bytesOf(s), p)
			if !slices.Equal(got, want) {
				t.Errorf("kernel %d base %g dif %g: differs from the naive reference", kernel, tc.base, tc.dif)
			}
		}
	}
}

// TestDezingCanonicalNaN: NaN outputs of the reduction and the flat-field
// are 0x7fc00000 whatever the input NaN's payload, so the CPU and CUDA
// backends (whose NaN payloads differ) write the same bits.
func TestDezingCanonicalNaN(t *testing.T) {
	cpu := gpu.NewCPU()
	odd := math.Float32frombits(0xffc00123) // a negative NaN with a payload
	src := []float32{odd, 1, 2, odd}
	in, _ := cpu.Alloc("in", 16)
	copy(in.HostBytes(), unsafe.Slice((*byte)(unsafe.Pointer(&src[0])), 16))
	out, _ := cpu.Alloc("out", 8)
	if err := (cpuOps{cpu}).Reduce(out, in, nil, ReduceParams{Float32: true, Frames: 2, Pixels: 2}); err != nil {
		t.Fatal(err)
	}
	for i, v := range unsafe.Slice((*uint32)(unsafe.Pointer(&out.HostBytes()[0])), 2) {
		if v != canonicalNaN {
			t.Errorf("mean %d: bits %#x, want %#x", i, v, canonicalNaN)
		}
	}
	dark, _ := cpu.Alloc("dark", 8)
	flat, _ := cpu.Alloc("flat", 8)
	copy(flat.HostBytes(), unsafe.Slice((*byte)(unsafe.Pointer(&[]float32{10, 10}[0])), 8))
	ff, _ := cpu.Alloc("ff", 16)
	p := FlatFieldParams{Float32: true, Frames: 2, Pixels: 2, Low: -1e12, High: 1e12, MinusLog: true}
	if _, err := (cpuOps{cpu}).FlatField(ff, in, dark, flat, nil, p); err != nil {
		t.Fatal(err)
	}
	got := unsafe.Slice((*uint32)(unsafe.Pointer(&ff.HostBytes()[0])), 4)
	for _, i := range []int{0, 3} {
		if got[i] != canonicalNaN {
			t.Errorf("flat-field %d: bits %#x, want %#x", i, got[i], canonicalNaN)
		}
	}
}
