package dezing

import (
	"fmt"

	"github.com/voxlab/voxlab/processing/volume"
)

// The kernels take uint16 (kept as uint16, as httomo's remove_outlier
// does) and float32. Other integer types are dezinged as float32: every
// 8- and 16-bit value is exact in float32, 32-bit ones up to ±2^24 (a
// block holding one beyond that fails, naming the value, rather than be
// rounded). The conversion widens each block in place in the block's own
// host buffer (volume.AsFloat32), so it adds no array to the plan: the
// plan counts the block at float32's size. float64 is refused rather
// than rounded.

// kernelType is the type a set of type dt is dezinged (and written) as.
func kernelType(dt volume.DType) volume.DType {
	if dt.IsInteger() && dt != volume.Uint16 {
		return volume.Float32
	}
	return dt
}

// kernelTypes returns s with each set's type as the kernels see it.
func (s Shapes) kernelTypes() Shapes {
	s.Projections.DType = kernelType(s.Projections.DType)
	s.Darks.DType = kernelType(s.Darks.DType)
	s.Flats.DType = kernelType(s.Flats.DType)
	return s
}

// kernel returns in with each set that is not of its kernel type read
// through a float32 view.
func (in Input) kernel() (Input, error) {
	for _, set := range []struct {
		name string
		src  *volume.Source
	}{{"projections", &in.Projections}, {"darks", &in.Darks}, {"flats", &in.Flats}} {
		if *set.src == nil {
			continue
		}
		dt := (*set.src).Info().DType
		if kernelType(dt) == dt {
			continue
		}
		v, err := volume.AsFloat32(*set.src)
		if err != nil {
			return in, fmt.Errorf("%s: %w", set.name, err)
		}
		*set.src = v
	}
	return in, nil
}
