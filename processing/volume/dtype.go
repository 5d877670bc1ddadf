package volume

import (
	"fmt"
	"strings"
)

// DType is the element type of a volume.
type DType int

// The element types voxlab reads and writes.
const (
	InvalidDType DType = iota
	Uint8
	Uint16
	Float32
	Float64
)

// Size returns the number of bytes of one element, or 0 for InvalidDType.
func (d DType) Size() int {
	switch d {
	case Uint8:
		return 1
	case Uint16:
		return 2
	case Float32:
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
	case Float32:
		return "float32"
	case Float64:
		return "float64"
	}
	return "invalid"
}

// IsInteger reports whether d is an unsigned integer type.
func (d DType) IsInteger() bool { return d == Uint8 || d == Uint16 }

// MaxValue returns the largest value the type holds (for float types, the
// largest finite value).
func (d DType) MaxValue() float64 {
	switch d {
	case Uint8:
		return 255
	case Uint16:
		return 65535
	case Float32:
		return 3.4028234663852886e38
	case Float64:
		return 1.7976931348623157e308
	}
	return 0
}

// ParseDType parses a NumPy-style type name.
func ParseDType(s string) (DType, error) {
	switch strings.ToLower(s) {
	case "uint8", "u1":
		return Uint8, nil
	case "uint16", "u2":
		return Uint16, nil
	case "float32", "f4":
		return Float32, nil
	case "float64", "f8":
		return Float64, nil
	}
	return InvalidDType, fmt.Errorf("unsupported dtype %q (voxlab handles uint8, uint16, float32 and float64)", s)
}
