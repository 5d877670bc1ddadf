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
	const nang, cols = 720, 512
	angles := make([]float64, nang)
	for i := range angles {
		angles[i] = math.Pi * float64(i) / nang
	}
	sino := make([]float32, nang*cols)
	for i := range sino {
		sino[i] = float32(i%97) / 97
	}
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
	const nang, cols = 720, 512
	angles := make([]float64, nang)
	for i := range angles {
		angles[i] = math.Pi * float64(i) / nang
	}
	sino := make([]float32, nang*cols)
	for i := range sino {
		sino[i] = float32(i%97) / 97
	}
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

// reportCPU reports the CPU seconds per slice since start, all threads
// together: on a shared machine the wall time per slice says more of
// the load than of the code.
func reportCPU(b *testing.B, start float64) {
	if start >= 0 {
		b.ReportMetric((cpuSeconds()-start)/float64(b.N), "cpu-s/op")
	}
}
