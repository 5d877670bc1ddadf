package reconstruct

import "golang.org/x/sys/cpu"

// hasAVX512 says the AVX-512 back-projection loops (backproject_amd64.s)
// run here: they need AVX512F and AVX512DQ's 64-bit integer conversion.
// hasAVX2 says the AVX2 loops (backproject_avx2_amd64.s, the same steps
// four columns at a time) can run where those cannot: AVX2 and FMA.
var (
	hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ
	hasAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasFMA
)

//go:noescape
func lerpAdd4(acc *float64, groups int, col *float32, pos *[4]int64, step int64)

//go:noescape
func lerpAdd4x2(acc *float64, groups int, ca *float32, pa *[4]int64, sa int64, cb *float32, pb *[4]int64, sb int64)

//go:noescape
func lerpAdd8(acc *float64, groups int, col *float32, pos *[8]int64, step int64)

//go:noescape
func lerpAdd8x2(acc *float64, groups int, ca *float32, pa *[8]int64, sa int64, cb *float32, pb *[8]int64, sb int64)

// lanes is the positions fu, fu+fc, … fu+7·fc of eight columns.
func lanes(fu, fc int64) (p [8]int64) {
	for i := range p {
		p[i] = fu + int64(i)*fc
	}
	return p
}

// accumulateVector runs accumulate's loop over the first multiple of
// eight (AVX-512) or four (AVX2) of acc's columns where the CPU has
// either, returning how many it did; fu is then to be advanced by that
// many steps. The positions were checked by the caller's spans
// (detectorSpan) to lie within col, as the scalar loop's slicing would
// check them.
func accumulateVector(acc []float64, col []float32, fu, fc int64) int {
	return accumulateLanes(vectorLanes, acc, col, fu, fc)
}

// accumulate2Vector is accumulateVector of two projections at once.
func accumulate2Vector(acc []float64, ca []float32, fa, fc int64, cb []float32, fb, fd int64) int {
	return accumulate2Lanes(vectorLanes, acc, ca, fa, fc, cb, fb, fd)
}

// vectorLanes is how many columns a step of the back-projection's
// vector loops takes on this CPU: 8 (AVX-512), 4 (AVX2) or 0 (none).
var vectorLanes = func() int {
	switch {
	case hasAVX512:
		return 8
	case hasAVX2:
		return 4
	}
	return 0
}()

// accumulateLanes is accumulateVector in the loops of n lanes (8 or 4;
// 0 does nothing).
func accumulateLanes(n int, acc []float64, col []float32, fu, fc int64) int {
	if n == 0 || len(acc) < n {
		return 0
	}
	g, p := len(acc)/n, lanes(fu, fc)
	if n == 8 {
		lerpAdd8(&acc[0], g, &col[0], &p, 8*fc)
	} else {
		lerpAdd4(&acc[0], g, &col[0], (*[4]int64)(p[:4]), 4*fc)
	}
	return n * g
}

// accumulate2Lanes is accumulate2Vector in the loops of n lanes.
func accumulate2Lanes(n int, acc []float64, ca []float32, fa, fc int64, cb []float32, fb, fd int64) int {
	if n == 0 || len(acc) < n {
		return 0
	}
	g, pa, pb := len(acc)/n, lanes(fa, fc), lanes(fb, fd)
	if n == 8 {
		lerpAdd8x2(&acc[0], g, &ca[0], &pa, 8*fc, &cb[0], &pb, 8*fd)
	} else {
		lerpAdd4x2(&acc[0], g, &ca[0], (*[4]int64)(pa[:4]), 4*fc, &cb[0], (*[4]int64)(pb[:4]), 4*fd)
	}
	return n * g
}
