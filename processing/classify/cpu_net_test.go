package classify

import (
	"math"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// testCubes returns n cubes of shape in, values like raw grey levels.
func testCubes(in [4]int, n int, seed uint64) []float32 {
	cubes := make([]float32, n*in[0]*in[1]*in[2]*in[3])
	for i := range cubes {
		cubes[i] = float32(synth.SplitMix64(seed+uint64(i))>>54) + 100
	}
	return cubes
}

// runNet runs the CPU engine on cubes with w workers.
func runNet(t *testing.T, net *resnet.Net, cubes []float32, batch, workers int) []float32 {
	t.Helper()
	be := gpu.NewCPUWorkers(workers)
	e := newCPUNet(be)
	if err := e.Prepare(net, batch); err != nil {
		t.Fatal(err)
	}
	defer e.Release()
	cl := CubeLen(net.Arch)
	n := len(cubes) / cl
	src, err := be.Alloc("cubes", int64(4*batch*cl))
	if err != nil {
		t.Fatal(err)
	}
	defer be.Free(src)
	probs := make([]float32, 2*n)
	for b0 := 0; b0 < n; b0 += batch {
		m := min(batch, n-b0)
		copy(f32(src.HostBytes()), cubes[b0*cl:(b0+m)*cl])
		if err := e.Forward(probs[2*b0:], src, m); err != nil {
			t.Fatal(err)
		}
	}
	return probs
}

// TestConvAgainstNaive holds single convolutions of the engine (im2col
// blocks + sgemm + epilogue) against the direct convolution, padding and
// per-z batch normalisation: every kernel shape, stride and padding the
// network has, with and without a residual.
func TestConvAgainstNaive(t *testing.T) {
	for _, c := range []struct {
		in      [4]int
		k, s, p [3]int
		cout    int
		res     bool
	}{
		{[4]int{11, 9, 8, 2}, [3]int{7, 7, 3}, [3]int{2, 2, 2}, [3]int{3, 3, 3}, 16, false},
		{[4]int{6, 5, 4, 3}, [3]int{3, 3, 3}, [3]int{1, 1, 1}, [3]int{1, 1, 1}, 32, true},
		{[4]int{6, 5, 4, 3}, [3]int{3, 3, 3}, [3]int{2, 2, 2}, [3]int{1, 1, 1}, 16, false},
		{[4]int{5, 5, 3, 6}, [3]int{1, 1, 1}, [3]int{2, 2, 2}, [3]int{}, 48, false},
		{[4]int{5, 4, 3, 6}, [3]int{1, 1, 1}, [3]int{1, 1, 1}, [3]int{}, 16, true},
	} {
		const n = 3
		out := [4]int{}
		for i := range 3 {
			out[i] = (c.in[i]+2*c.p[i]-c.k[i])/c.s[i] + 1
		}
		out[3] = c.cout
		kshape := []int{c.k[0], c.k[1], c.k[2], c.in[3], c.cout}
		kern := resnet.Tensor{Shape: kshape, Data: make([]float32, kshape[0]*kshape[1]*kshape[2]*kshape[3]*kshape[4])}
		for i := range kern.Data {
			kern.Data[i] = float32(synth.Uniform("k", 0, i))
		}
		bn := map[string]resnet.Tensor{}
		for v, name := range resnet.BNWeights {
			d := make([]float32, out[2])
			for i := range d {
				d[i] = float32(synth.Uniform("bn", v, i)*0.5 + []float64{1, 0, 0, 1}[v])
			}
			bn[name] = resnet.Tensor{Shape: []int{out[2]}, Data: d}
		}
		conv := &resnet.Conv{Kernel: c.k, Stride: c.s, Pad: c.p, In: c.in, Out: out, W: kern.Data}
		conv.Scale, conv.Shift = foldForTest(bn)
		in := testCubes(c.in, n, 1)
		cin := c.in[0] * c.in[1] * c.in[2] * c.in[3]
		per := resnet.Positions(out) * c.cout
		var res []float32
		if c.res {
			res = testCubes(out, n, 2)
			for i := range res {
				res[i] -= 400
			}
		}
		for _, workers := range []int{1, 3} {
			e := newCPUNet(gpu.NewCPUWorkers(workers))
			e.scratch = make([][]float32, workers)
			for i := range e.scratch {
				e.scratch[i] = make([]float32, convRows(conv)*conv.K())
				e.gsc = append(e.gsc, newGemmScratch())
			}
			e.packed = map[*resnet.Conv][]float32{conv: packStrips(conv.W, conv.K(), c.cout)}
			got := make([]float32, n*per)
			if err := e.conv(conv, in, got, n, res, true); err != nil {
				t.Fatal(err)
			}
			for b := range n {
				x := newTensor(c.in)
				for i := range cin {
					x.v[i] = float64(in[b*cin+i])
				}
				if c.p != [3]int{} {
					x = naivePad(x, c.p[0])
				}
				conv := naiveConv(x, kern, c.s[0])
				// The float32 sums' rounding grows with the terms'
				// magnitudes: the bound takes the convolution of |x| and |w|.
				absConv := naiveConv(absTensor(x), absKernel(kern), c.s[0])
				want := naiveBN(conv, bn)
				if c.res {
					r := newTensor(out)
					for i := range r.v {
						r.v[i] = float64(res[b*per+i])
					}
					want = naiveAdd(want, r)
				}
				want = naiveRelu(want)
				for i, w := range want.v {
					g := float64(got[b*per+i])
					z := (i / c.cout) % out[2]
					tol := 1e-5*(1+math.Abs(w)) + 2e-7*math.Sqrt(float64(conv1K(kshape)))*absConv.v[i]*math.Abs(float64(scaleOf(bn, z)))
					if math.Abs(g-w) > tol {
						t.Fatalf("conv %v stride %v pad %v, %d workers: cube %d value %d = %g, direct convolution %g", c.k, c.s, c.p, workers, b, i, g, w)
					}
				}
			}
		}
	}
}

func foldForTest(bn map[string]resnet.Tensor) (scale, shift []float32) {
	g, b, m, v := bn["gamma"].Data, bn["beta"].Data, bn["moving_mean"].Data, bn["moving_variance"].Data
	scale, shift = make([]float32, len(g)), make([]float32, len(g))
	for i := range g {
		s := float64(g[i]) / math.Sqrt(float64(v[i])+1e-5)
		scale[i], shift[i] = float32(s), float32(float64(b[i])-float64(m[i])*s)
	}
	return
}

// TestNetAgainstNaive runs whole networks of depth 18, 34 and 50 on
// small cubes (1 and 2 channels) through the engine and the direct
// float64 reference: probabilities agree to 1e-5. Under -race -short the
// engine still runs all three cubes of each network in two batches on
// two workers, but only the first cube is held against the reference
// (its nested loops, one goroutine, are most of the test's time under
// the race detector); the plain pass compares all three.
func TestNetAgainstNaive(t *testing.T) {
	checked := 3
	if raceShort() {
		checked = 1
	}
	for _, c := range []struct {
		depth int
		in    [4]int
	}{{18, [4]int{20, 20, 8, 2}}, {50, [4]int{12, 14, 6, 2}}, {34, [4]int{16, 16, 6, 1}}} {
		arch := resnet.Arch{Depth: c.depth, Input: c.in}
		w := synth.Weights(arch, nil)
		net, err := resnet.Build(arch, w)
		if err != nil {
			t.Fatal(err)
		}
		cubes := testCubes(c.in, 3, 7)
		for i := range cubes {
			cubes[i] /= 500
		}
		got := runNet(t, net, cubes, 2, 2)
		cl := CubeLen(arch)
		for b := range checked {
			want := naiveForward(c.depth, c.in, cubes[b*cl:(b+1)*cl], w)
			if math.Abs(float64(got[2*b+1])-want[1]) > 1e-5 || math.Abs(float64(got[2*b])-want[0]) > 1e-5 {
				t.Errorf("depth %d cube %d: p = %v, direct reference %v", c.depth, b, got[2*b:2*b+2], want)
			}
		}
		t.Logf("depth %d: p(cell) %v", c.depth, []float32{got[1], got[3], got[5]})
	}
}

func absTensor(t tensor) tensor {
	o := newTensor(t.s)
	for i, v := range t.v {
		o.v[i] = math.Abs(v)
	}
	return o
}

func absKernel(k resnet.Tensor) resnet.Tensor {
	o := resnet.Tensor{Shape: k.Shape, Data: make([]float32, len(k.Data))}
	for i, v := range k.Data {
		o.Data[i] = float32(math.Abs(float64(v)))
	}
	return o
}

func conv1K(shape []int) int { return shape[0] * shape[1] * shape[2] * shape[3] }

// scaleOf is the batch normalisation's scale γ/√(var+ε) at z.
func scaleOf(bn map[string]resnet.Tensor, z int) float64 {
	return float64(bn["gamma"].Data[z]) / math.Sqrt(float64(bn["moving_variance"].Data[z])+1e-5)
}
