package volume

import "unsafe"

// Uint16s views b as []uint16 without copying. len(b) must be even and b
// must be 2-byte aligned (buffers from make are).
func Uint16s(b []byte) []uint16 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(b)/2)
}

// Float32s views b as []float32 without copying.
func Float32s(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// Float64s views b as []float64 without copying.
func Float64s(b []byte) []float64 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), len(b)/8)
}

// Bytes views a slice of numbers as its bytes without copying.
func Bytes[T uint8 | uint16 | float32 | float64](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(zero)))
}

// ToFloat32 converts src, values of type dt in native byte order, into
// dst, one float32 each: exactly for every uint8, uint16 and float32,
// rounded to nearest for float64.
func ToFloat32(dst []float32, src []byte, dt DType) {
	switch dt {
	case Uint8:
		for i, v := range src {
			dst[i] = float32(v)
		}
	case Uint16:
		for i, v := range Uint16s(src) {
			dst[i] = float32(v)
		}
	case Float32:
		copy(dst, Float32s(src))
	case Float64:
		for i, v := range Float64s(src) {
			dst[i] = float32(v)
		}
	}
}
