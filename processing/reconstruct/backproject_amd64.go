package reconstruct

import "golang.org/x/sys/cpu"

// hasAVX512 says the AVX-512 back-projection loops (backproject_amd64.s)
// run here: they need AVX512F and AVX512DQ's 64-bit integer conversion.
var hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

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
// eight of acc's columns in AVX-512 where it can, returning how many it
// did; fu is then to be advanced by that many steps. The positions were
// checked by the caller's spans (detectorSpan) to lie within col, as the
// scalar loop's slicing would check them.
func accumulateVector(acc []float64, col []float32, fu, fc int64) int {
	g := len(acc) / 8
	if !hasAVX512 || g == 0 {
		return 0
	}
	p := lanes(fu, fc)
	lerpAdd8(&acc[0], g, &col[0], &p, 8*fc)
	return 8 * g
}

// accumulate2Vector is accumulateVector of two projections at once.
func accumulate2Vector(acc []float64, ca []float32, fa, fc int64, cb []float32, fb, fd int64) int {
	g := len(acc) / 8
	if !hasAVX512 || g == 0 {
		return 0
	}
	pa, pb := lanes(fa, fc), lanes(fb, fd)
	lerpAdd8x2(&acc[0], g, &ca[0], &pa, 8*fc, &cb[0], &pb, 8*fd)
	return 8 * g
}
