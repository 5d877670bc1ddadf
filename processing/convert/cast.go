package convert

import (
	"fmt"
	"math"

	"github.com/voxlab/voxlab/processing/volume"
)

// number is every pixel type voxlab reads and writes.
type number interface {
	~uint8 | ~int8 | ~uint16 | ~int16 | ~uint32 | ~int32 | ~float32 | ~float64
}

// asSlice views b as a slice of dt's Go type, as any.
func asSlice(b []byte, dt volume.DType) any {
	switch dt {
	case volume.Uint8:
		return b
	case volume.Int8:
		return volume.Int8s(b)
	case volume.Uint16:
		return volume.Uint16s(b)
	case volume.Int16:
		return volume.Int16s(b)
	case volume.Uint32:
		return volume.Uint32s(b)
	case volume.Int32:
		return volume.Int32s(b)
	case volume.Float32:
		return volume.Float32s(b)
	case volume.Float64:
		return volume.Float64s(b)
	}
	panic("convert: invalid dtype")
}

// castError says which value does not fit the output type.
type castError struct {
	value float64
	from  volume.DType
	to    volume.DType
	at    [3]int
}

func (e *castError) Error() string {
	why := "outside its range"
	if e.to.IsInteger() && e.value == e.value && e.value >= e.to.MinValue() && e.value <= e.to.MaxValue() {
		why = "not a whole number"
	} else if e.value != e.value {
		why = "NaN"
	}
	return fmt.Sprintf("--dtype %s: the %s value %v at (z, y, x) = (%d, %d, %d) does not fit (%s; %s holds %v to %v): choose a wider type, or rescale the data first",
		e.to, e.from, e.value, e.at[0], e.at[1], e.at[2], why, e.to, e.to.MinValue(), e.to.MaxValue())
}

// castInto converts src (of type from) into dst (of type to), element by
// element; it returns the index of the first value that does not fit
// to exactly (an integer type: a whole number in range; a float type: a
// value in range, rounded to the nearest float32), or -1. The value is
// returned too.
func castInto(dst []byte, to volume.DType, src []byte, from volume.DType) (int, float64) {
	s := asSlice(src, from)
	switch d := asSlice(dst, to).(type) {
	case []uint8:
		return castFrom(d, s, to)
	case []int8:
		return castFrom(d, s, to)
	case []uint16:
		return castFrom(d, s, to)
	case []int16:
		return castFrom(d, s, to)
	case []uint32:
		return castFrom(d, s, to)
	case []int32:
		return castFrom(d, s, to)
	case []float32:
		return castFrom(d, s, to)
	case []float64:
		return castFrom(d, s, to)
	}
	panic("convert: invalid dtype")
}

func castFrom[D number](dst []D, src any, to volume.DType) (int, float64) {
	switch s := src.(type) {
	case []uint8:
		return cast(dst, s, to)
	case []int8:
		return cast(dst, s, to)
	case []uint16:
		return cast(dst, s, to)
	case []int16:
		return cast(dst, s, to)
	case []uint32:
		return cast(dst, s, to)
	case []int32:
		return cast(dst, s, to)
	case []float32:
		return cast(dst, s, to)
	case []float64:
		return cast(dst, s, to)
	}
	panic("convert: invalid dtype")
}

// cast converts through float64, which holds every value of every type
// exactly.
func cast[D, S number](dst []D, src []S, to volume.DType) (int, float64) {
	lo, hi := to.MinValue(), to.MaxValue()
	integer := to.IsInteger()
	for i, x := range src {
		v := float64(x)
		if integer {
			if !(v >= lo && v <= hi) || v != math.Trunc(v) {
				return i, v
			}
		} else if (v > hi || v < lo) && !math.IsInf(v, 0) {
			return i, v
		}
		dst[i] = D(v)
	}
	return -1, 0
}
