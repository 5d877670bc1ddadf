package reconstruct

import (
	"context"
	"math"
	"testing"
)

// BenchmarkFBP reconstructs a 512-column slice from 720 angles (the
// size FIELD_NOTES records for scikit-image's iradon), ramp filter,
// padding to the diagonal: testdata/bench_iradon.py times scikit-image's
// iradon on the same sinogram, for BENCHMARKS.md's side-by-side figures.
func BenchmarkFBP(b *testing.B) {
	const cols = 512
	angles, sino := sawtooth(720, cols, 97)
	fbp, err := NewFBP(Geometry{Angles: angles, Columns: cols, Center: cols / 2, Pad: DiagonalPad(cols), PadZeros: true, MaskRadius: 1})
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]float32, cols*cols)
	b.ResetTimer()
	cpu := cpuSeconds()
	for range b.N {
		fbp.Slice(dst, sino)
	}
	reportCPU(b, cpu)
}

// BenchmarkGridrec is BenchmarkFBP's slice by gridrec.
func BenchmarkGridrec(b *testing.B) {
	const cols = 512
	angles, sino := sawtooth(720, cols, 97)
	gr, err := NewGridrec(Geometry{Angles: angles, Columns: cols, Center: cols / 2, Pad: DiagonalPad(cols), PadZeros: true, MaskRadius: 1})
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]float32, cols*cols)
	b.ResetTimer()
	cpu := cpuSeconds()
	for range b.N {
		if err := gr.SliceContext(context.Background(), dst, sino); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}

// sawtooth is nang angles evenly over the half-turn and a sinogram of
// cols columns for them whose values climb from 0 to 1 over every
// period values (a slice's speed does not depend on what it shows).
func sawtooth(nang, cols, period int) ([]float64, []float32) {
	angles := make([]float64, nang)
	for i := range angles {
		angles[i] = math.Pi * float64(i) / float64(nang)
	}
	sino := make([]float32, nang*cols)
	for i := range sino {
		sino[i] = float32(i%period) / float32(period)
	}
	return angles, sino
}

// reportCPU reports the CPU seconds per slice since start, all threads
// together: on a shared machine the wall time per slice says more of
// the load than of the code.
func reportCPU(b *testing.B, start float64) {
	if start >= 0 {
		b.ReportMetric((cpuSeconds()-start)/float64(b.N), "cpu-s/op")
	}
}
