package volume

import "fmt"

// AsFloat32 returns src as a source of float32 voxels, for kernels that
// take float32 (dezinging) reading data of another type: every integer
// type converts, exactly up to 2^24 (all 8- and 16-bit values). A
// float32 source is returned as it is; float64 is refused, since
// narrowing would round every value silently.
//
// The view needs no buffer of its own: a float32 is at least as wide as
// any type it converts, so the stored values are read into the tail of
// the caller's buffer and widened front to back (element i is written to
// bytes [4i, 4i+4) only after the stored elements up to i have been
// read), the scheme rawSource uses for MRC's float16.
func AsFloat32(src Source) (Source, error) {
	in := src.Info()
	switch {
	case in.DType == Float32:
		return src, nil
	case in.DType == Float64:
		return nil, fmt.Errorf("float64 data would be rounded to float32: convert them first if that is intended (arr.astype('<f4'))")
	case in.DType.Size() == 0:
		return nil, fmt.Errorf("unsupported dtype")
	}
	out := in
	out.DType = Float32
	return &float32View{src: src, in: in, info: out}, nil
}

type float32View struct {
	src      Source
	in, info Info
}

func (v *float32View) Info() Info { return v.info }

func (v *float32View) ReadSlab(z0, z1 int, dst []byte) error {
	if err := CheckSlab(v.info, z0, z1, len(dst)); err != nil {
		return err
	}
	n := len(dst) / 4
	stored := dst[len(dst)-n*v.in.DType.Size():]
	if err := v.src.ReadSlab(z0, z1, stored); err != nil {
		return err
	}
	if err := widenFloat32(dst, stored, v.in.DType); err != nil {
		return fmt.Errorf("planes [%d, %d): %w", z0, z1, err)
	}
	return nil
}

// ReadBox reads a box through the source's own ReadBox when it has one
// (an HDF5 dataset), widened the same way.
func (v *float32View) ReadBox(b Box, dst []byte) error {
	br, ok := AsBoxReader(v.src)
	if !ok {
		return fmt.Errorf("the source reads whole planes only")
	}
	if err := CheckBox(v.info, b, len(dst)); err != nil {
		return err
	}
	n := len(dst) / 4
	stored := dst[len(dst)-n*v.in.DType.Size():]
	if err := br.ReadBox(b, stored); err != nil {
		return err
	}
	return widenFloat32(dst, stored, v.in.DType)
}

// base is the underlying source, whose reader is the view's.
func (v *float32View) base() Source { return v.src }

func (v *float32View) Close() error { return v.src.Close() }

// widenFloat32 converts the values of type dt in stored, the tail of dst,
// into float32 values filling dst. stored's element i lies at or after
// dst's element i, so writing element i (front to back) never overwrites a
// stored value not yet read; stored is aligned for its type, since its
// start is a multiple of its element size away from dst's. A 32-bit
// integer beyond ±2^24 has no exact float32: widenFloat32 then fails
// rather than round it (as AsFloat32 refuses float64), naming the value.
func widenFloat32(dst, stored []byte, dt DType) error {
	out := Float32s(dst)
	switch dt {
	case Uint8:
		for i := range out {
			out[i] = float32(stored[i])
		}
	case Int8:
		for i := range out {
			out[i] = float32(int8(stored[i]))
		}
	case Uint16:
		s := Uint16s(stored)
		for i := range out {
			out[i] = float32(s[i])
		}
	case Int16:
		s := Int16s(stored)
		for i := range out {
			out[i] = float32(s[i])
		}
	case Uint32:
		s := Uint32s(stored)
		for i := range out {
			x := s[i]
			if x > maxExact32 {
				return inexact(int64(x), dt)
			}
			out[i] = float32(x)
		}
	case Int32:
		s := Int32s(stored)
		for i := range out {
			x := s[i]
			if x > maxExact32 || x < -maxExact32 {
				return inexact(int64(x), dt)
			}
			out[i] = float32(x)
		}
	}
	return nil
}

// maxExact32 is 2^24: every integer of at most this magnitude is exact in
// float32, and 2^24 + 1 is the first that is not.
const maxExact32 = 1 << 24

func inexact(x int64, dt DType) error {
	return fmt.Errorf("%s value %d has no exact float32 (beyond ±2^24 = 16777216), which this computation needs: convert the data to float32 first if rounding is intended", dt, x)
}
