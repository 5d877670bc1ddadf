//go:build cuda

package dezing

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/voxlab/voxlab/gpu"
)

// The CUDA dezinging kernels must give the CPU kernels' bits exactly.

// opsOf returns be's dezinging ops, failing the test when it has none.
func opsOf(t testing.TB, be gpu.Backend) Ops {
	t.Helper()
	ops, err := OpsFor(be)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

func dzRoundTrip(t testing.TB, be gpu.Backend, label string, data []byte) *gpu.Buffer {
	t.Helper()
	b, err := be.Alloc(label, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 {
		if err := be.Upload(b, 0, data); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func dzDownload(t testing.TB, be gpu.Backend, b *gpu.Buffer) []byte {
	t.Helper()
	out := make([]byte, b.Len())
	if err := be.Download(out, b, 0); err != nil {
		t.Fatal(err)
	}
	return out
}

func dzMedianOn(t testing.TB, be gpu.Backend, src []byte, p MedianParams) []byte {
	t.Helper()
	in := dzRoundTrip(t, be, "in", src)
	defer be.Free(in)
	out := dzRoundTrip(t, be, "out", make([]byte, p.DstBytes()))
	defer be.Free(out)
	scr := dzRoundTrip(t, be, "scratch", make([]byte, opsOf(t, be).MedianScratch(p)))
	defer be.Free(scr)
	if err := opsOf(t, be).Median(out, in, scr, p); err != nil {
		t.Fatal(err)
	}
	return dzDownload(t, be, out)
}

func TestCUDADezingMedianParity(t *testing.T) {
	c := openCUDA(t)
	cpu := gpu.NewCPU()
	rng := rand.New(rand.NewPCG(11, 12))
	for _, kernel := range []int{3, 5, 7, 13} {
		for _, sh := range [][3]int{{1, 1, 1}, {3, 9, 40}, {7, 33, 65}, {16, 70, 100}} {
			for _, float := range []bool{false, true} {
				p := MedianParams{Float32: float, Planes: sh[0], Rows: sh[1], Cols: sh[2], N: sh[0], Kernel: kernel, Dif: 500}
				if sh[0] > 2 {
					p.Z0, p.N = 1, sh[0]-2
				}
				var src []byte
				switch n := sh[0] * sh[1] * sh[2]; {
				case float && rng.IntN(2) == 0:
					src = bytesOf(randomF32(rng, n, 50))
				case float:
					src = benchPhantom(sh[0], sh[1], sh[2], true)
				case rng.IntN(2) == 0:
					src = bytesOf(randomU16(rng, n, 50))
				default:
					src = benchPhantom(sh[0], sh[1], sh[2], false)
				}
				want := dzMedianOn(t, cpu, src, p)
				got := dzMedianOn(t, c, src, p)
				if !slices.Equal(got, want) {
					t.Errorf("kernel %d shape %v float32 %v: CUDA differs from the CPU backend", kernel, sh, float)
				}
			}
		}
	}
}

func TestCUDADezingReduceParity(t *testing.T) {
	c := openCUDA(t)
	cpu := gpu.NewCPU()
	rng := rand.New(rand.NewPCG(13, 14))
	for _, frames := range []int{1, 4, 7, 50} {
		for _, float := range []bool{false, true} {
			for _, median := range []bool{false, true} {
				p := ReduceParams{Float32: float, Frames: frames, Pixels: 5000, Median: median}
				var src []byte
				if float {
					src = bytesOf(randomF32(rng, frames*p.Pixels, 1000))
				} else {
					src = bytesOf(randomU16(rng, frames*p.Pixels, 1000))
				}
				run := func(be gpu.Backend) []byte {
					in := dzRoundTrip(t, be, "in", src)
					defer be.Free(in)
					out := dzRoundTrip(t, be, "out", make([]byte, p.Pixels*4))
					defer be.Free(out)
					scr := dzRoundTrip(t, be, "scratch", make([]byte, opsOf(t, be).ReduceScratch(p)))
					defer be.Free(scr)
					if err := opsOf(t, be).Reduce(out, in, scr, p); err != nil {
						t.Fatal(err)
					}
					return dzDownload(t, be, out)
				}
				if !slices.Equal(run(c), run(cpu)) {
					t.Errorf("reduce frames %d float32 %v median %v: CUDA differs from the CPU backend", frames, float, median)
				}
			}
		}
	}
}

func TestCUDADezingFlatFieldParity(t *testing.T) {
	c := openCUDA(t)
	cpu := gpu.NewCPU()
	rng := rand.New(rand.NewPCG(15, 16))
	pixels, frames := 7000, 5
	dark, flat := make([]float32, pixels), make([]float32, pixels)
	for i := range dark {
		dark[i] = float32(100 + 10*rng.NormFloat64())
		flat[i] = float32(20000 + 3000*rng.NormFloat64())
		if i%97 == 0 {
			flat[i] = dark[i] // zero denominator
		}
	}
	f32b := func(s []float32) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*4) }
	for _, float := range []bool{false, true} {
		for _, p := range []FlatFieldParams{
			{Low: -1e12, High: 1e12},
			{Low: 0.01, High: 2, MinusLog: true},
			{Low: -1e12, High: 1e12, MinusLog: true},
		} {
			p.Float32, p.Frames, p.Pixels = float, frames, pixels
			var src []byte
			if float {
				s := make([]float32, frames*pixels)
				for i := range s {
					s[i] = float32(rng.Float64() * 30000)
				}
				src = f32b(s)
			} else {
				src = bytesOf(randomU16(rng, frames*pixels, 3000))
			}
			run := func(be gpu.Backend) ([]byte, int64) {
				in := dzRoundTrip(t, be, "in", src)
				defer be.Free(in)
				d, f := dzRoundTrip(t, be, "dark", f32b(dark)), dzRoundTrip(t, be, "flat", f32b(flat))
				defer be.Free(d)
				defer be.Free(f)
				out := dzRoundTrip(t, be, "out", make([]byte, frames*pixels*4))
				defer be.Free(out)
				scr := dzRoundTrip(t, be, "scratch", make([]byte, opsOf(t, be).FlatFieldScratch(p)))
				defer be.Free(scr)
				n, err := opsOf(t, be).FlatField(out, in, d, f, scr, p)
				if err != nil {
					t.Fatal(err)
				}
				return dzDownload(t, be, out), n
			}
			got, gn := run(c)
			want, wn := run(cpu)
			if !slices.Equal(got, want) || gn != wn {
				t.Errorf("flat-field %+v: CUDA differs from the CPU backend (clipped %d vs %d)", p, gn, wn)
			}
		}
	}
}

// BenchmarkCUDADezingMedian reports the kernel's voxels/s on data already
// on the device (the pipeline benchmark in processing/dezing adds the
// transfers).
func BenchmarkCUDADezingMedian(b *testing.B) {
	c := openCUDA(b)
	for _, kernel := range []int{3, 5, 7, 13} {
		for _, float := range []bool{false, true} {
			b.Run(fmt.Sprintf("k%d/float32=%v", kernel, float), func(b *testing.B) {
				z, y, x := 64, 512, 512
				p := MedianParams{Float32: float, Planes: z, Rows: y, Cols: x, N: z, Kernel: kernel, Dif: 1000}
				in := dzRoundTrip(b, c, "in", benchPhantom(z, y, x, float))
				defer c.Free(in)
				out := dzRoundTrip(b, c, "out", make([]byte, p.DstBytes()))
				defer c.Free(out)
				ops := opsOf(b, c)
				if err := ops.Median(out, in, nil, p); err != nil {
					b.Fatal(err)
				}
				c.Sync()
				b.ResetTimer()
				start := time.Now()
				for i := 0; i < b.N; i++ {
					if err := ops.Median(out, in, nil, p); err != nil {
						b.Fatal(err)
					}
				}
				if err := c.Sync(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(z*y*x)*float64(b.N)/time.Since(start).Seconds()/1e6, "Mvox/s")
			})
		}
	}
}
