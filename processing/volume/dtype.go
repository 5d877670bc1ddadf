package volume

import (
	"fmt"
	"math"
	"strings"
)

// DType is the element type of a volume.
type DType int

// The element types voxlab reads and writes. The values of the first
// five are kept as they were when voxlab knew only those.
const (
	InvalidDType DType = iota
	Uint8
	Uint16
	Float32
	Float64
	Int8
	Int16
	Int32
	Uint32
)

// DTypes lists every valid element type, smallest first within a kind.
var DTypes = []DType{Uint8, Int8, Uint16, Int16, Uint32, Int32, Float32, Float64}

// Size returns the number of bytes of one element, or 0 for InvalidDType.
func (d DType) Size() int {
	switch d {
	case Uint8, Int8:
		return 1
	case Uint16, Int16:
		return 2
	case Float32, Uint32, Int32:
		return 4
	case Float64:
		return 8
	}
	return 0
}

// String returns the NumPy-style name of the type ("uint16", "float32", ...).
func (d DType) String() string {
	switch d {
	case Uint8:
		return "uint8"
	case Uint16:
		return "uint16"
	case Uint32:
		return "uint32"
	case Int8:
		return "int8"
	case Int16:
		return "int16"
	case Int32:
		return "int32"
	case Float32:
		return "float32"
	case Float64:
		return "float64"
	}
	return "invalid"
}

// IsInteger reports whether d is an integer type, signed or not.
func (d DType) IsInteger() bool { return d.IsUnsigned() || d.IsSigned() }

// IsUnsigned reports whether d is an unsigned integer type.
func (d DType) IsUnsigned() bool { return d == Uint8 || d == Uint16 || d == Uint32 }

// IsSigned reports whether d is a signed integer type.
func (d DType) IsSigned() bool { return d == Int8 || d == Int16 || d == Int32 }

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool { return d == Float32 || d == Float64 }

// MaxValue returns the largest value the type holds (for float types, the
// largest finite value).
func (d DType) MaxValue() float64 {
	switch d {
	case Uint8:
		return math.MaxUint8
	case Uint16:
		return math.MaxUint16
	case Uint32:
		return math.MaxUint32
	case Int8:
		return math.MaxInt8
	case Int16:
		return math.MaxInt16
	case Int32:
		return math.MaxInt32
	case Float32:
		return math.MaxFloat32
	case Float64:
		return math.MaxFloat64
	}
	return 0
}

// MinValue returns the smallest value the type holds (for float types,
// the most negative finite value).
func (d DType) MinValue() float64 {
	switch d {
	case Int8:
		return math.MinInt8
	case Int16:
		return math.MinInt16
	case Int32:
		return math.MinInt32
	case Float32:
		return -math.MaxFloat32
	case Float64:
		return -math.MaxFloat64
	}
	return 0
}

// ParseDType parses a NumPy-style type name ("int16", "i2", "<i2").
func ParseDType(s string) (DType, error) {
	name := strings.ToLower(s)
	if len(name) == 3 && strings.ContainsRune("<>|=", rune(name[0])) {
		name = name[1:]
	}
	switch name {
	case "uint8", "u1":
		return Uint8, nil
	case "uint16", "u2":
		return Uint16, nil
	case "uint32", "u4":
		return Uint32, nil
	case "int8", "i1":
		return Int8, nil
	case "int16", "i2":
		return Int16, nil
	case "int32", "i4":
		return Int32, nil
	case "float32", "f4":
		return Float32, nil
	case "float64", "f8":
		return Float64, nil
	}
	return InvalidDType, fmt.Errorf("unsupported dtype %q (voxlab handles int8, uint8, int16, uint16, int32, uint32, float32 and float64)", s)
}
