package volume

import "unsafe"

// view reinterprets b as a slice of T without copying. len(b) must be a
// multiple of T's size and b aligned for T (buffers from make are).
func view[T any](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(zero)))
}

// Uint16s views b as []uint16 without copying. len(b) must be even and b
// must be 2-byte aligned (buffers from make are).
func Uint16s(b []byte) []uint16 { return view[uint16](b) }

// Float32s views b as []float32 without copying.
func Float32s(b []byte) []float32 { return view[float32](b) }

// Float64s views b as []float64 without copying.
func Float64s(b []byte) []float64 { return view[float64](b) }

// Int8s views b as []int8 without copying.
func Int8s(b []byte) []int8 { return view[int8](b) }

// Int16s views b as []int16 without copying.
func Int16s(b []byte) []int16 { return view[int16](b) }

// Int32s views b as []int32 without copying.
func Int32s(b []byte) []int32 { return view[int32](b) }

// Uint32s views b as []uint32 without copying.
func Uint32s(b []byte) []uint32 { return view[uint32](b) }

// Number is an element type of a volume.
type Number interface {
	uint8 | int8 | uint16 | int16 | uint32 | int32 | float32 | float64
}

// Bytes views a slice of numbers as its bytes without copying.
func Bytes[T Number](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(zero)))
}

// ToFloat32 converts src, values of type dt in native byte order, into
// dst, one float32 each: exactly for every 8- and 16-bit integer and
// float32, rounded to nearest for 32-bit integers beyond 2^24 and for
// float64.
func ToFloat32(dst []float32, src []byte, dt DType) {
	if dt == Float32 {
		copy(dst, Float32s(src))
		return
	}
	toFloat(dst, src, dt)
}

// ToFloat64 converts src, values of type dt in native byte order, into
// dst, exactly for every type.
func ToFloat64(dst []float64, src []byte, dt DType) {
	if dt == Float64 {
		copy(dst, Float64s(src))
		return
	}
	toFloat(dst, src, dt)
}

// toFloat converts src, values of type dt, into dst.
func toFloat[F float32 | float64](dst []F, src []byte, dt DType) {
	switch dt {
	case Uint8:
		convert(dst, src)
	case Int8:
		convert(dst, Int8s(src))
	case Uint16:
		convert(dst, Uint16s(src))
	case Int16:
		convert(dst, Int16s(src))
	case Uint32:
		convert(dst, Uint32s(src))
	case Int32:
		convert(dst, Int32s(src))
	case Float32:
		convert(dst, Float32s(src))
	case Float64:
		convert(dst, Float64s(src))
	}
}

// At returns voxel i of b, values of type dt in native byte order, as a
// float64 (exact for every type). For one value; loops use ToFloat64.
func At(b []byte, dt DType, i int) float64 {
	switch dt {
	case Uint8:
		return float64(b[i])
	case Int8:
		return float64(int8(b[i]))
	case Uint16:
		return float64(Uint16s(b)[i])
	case Int16:
		return float64(Int16s(b)[i])
	case Uint32:
		return float64(Uint32s(b)[i])
	case Int32:
		return float64(Int32s(b)[i])
	case Float32:
		return float64(Float32s(b)[i])
	case Float64:
		return Float64s(b)[i]
	}
	return 0
}

func convert[D float32 | float64, S Number](dst []D, src []S) {
	for i, v := range src {
		dst[i] = D(v)
	}
}
