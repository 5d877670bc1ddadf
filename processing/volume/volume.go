package volume

import (
	"errors"
	"fmt"
	"math"
)

// Info describes a volume without its data.
type Info struct {
	// Shape is (z, y, x): planes, rows, columns.
	Shape [3]int
	DType DType
	// VoxelSize is (z, y, x) in the file's unit (microns for light sheet,
	// Ångström for cryo-EM); zero where the file does not say.
	VoxelSize [3]float64
}

// PlaneLen returns the number of voxels in one z plane.
func (in Info) PlaneLen() int { return in.Shape[1] * in.Shape[2] }

// PlaneBytes returns the number of bytes in one z plane.
func (in Info) PlaneBytes() int64 { return int64(in.PlaneLen()) * int64(in.DType.Size()) }

// Len returns the number of voxels.
func (in Info) Len() int64 { return int64(in.Shape[0]) * int64(in.PlaneLen()) }

// Bytes returns the size of the whole volume in bytes.
func (in Info) Bytes() int64 { return in.Len() * int64(in.DType.Size()) }

// Validate checks that the shape is positive, that its byte size does not
// overflow an int64 and that the dtype is supported.
func (in Info) Validate() error {
	if in.DType.Size() == 0 {
		return errors.New("unsupported dtype")
	}
	total := int64(in.DType.Size())
	for i, n := range in.Shape {
		if n <= 0 {
			return fmt.Errorf("shape %v: dimension %d is %d, must be positive", in.Shape, i, n)
		}
		if total > math.MaxInt64/int64(n) {
			return fmt.Errorf("shape %v of %s overflows: the volume would be larger than 2^63 bytes", in.Shape, in.DType)
		}
		total *= int64(n)
	}
	return nil
}

// Source reads slabs of whole z planes. Implementations must not read more
// of the underlying file than the slab asked for; they are safe for use by
// one goroutine at a time unless they say otherwise.
type Source interface {
	Info() Info
	// ReadSlab reads planes [z0, z1) into dst, which must hold exactly
	// (z1-z0) planes of Info().DType in native byte order.
	ReadSlab(z0, z1 int, dst []byte) error
	Close() error
}

// Box is a sub-volume [Z0, Z1) x [Y0, Y1) x [X0, X1) of a volume.
type Box struct {
	Z0, Z1, Y0, Y1, X0, X1 int
}

// Len returns the number of voxels in the box.
func (b Box) Len() int64 { return int64(b.Z1-b.Z0) * int64(b.Y1-b.Y0) * int64(b.X1-b.X0) }

// BoxReader is implemented by sources that read part of each plane
// without reading the rest (HDF5 hyperslabs): a y or x slice of a scan
// stored one frame per chunk then reads one row of each frame instead of
// every frame whole.
type BoxReader interface {
	// ReadBox reads box b into dst (C order: z, then y, then x), which
	// must hold exactly b.Len() voxels. b must lie inside the volume
	// (CheckBox).
	ReadBox(b Box, dst []byte) error
}

// CheckBox validates a box request against a volume's info.
func CheckBox(in Info, b Box, dstLen int) error {
	if b.Z0 < 0 || b.Y0 < 0 || b.X0 < 0 || b.Z1 > in.Shape[0] || b.Y1 > in.Shape[1] || b.X1 > in.Shape[2] ||
		b.Z0 > b.Z1 || b.Y0 > b.Y1 || b.X0 > b.X1 {
		return fmt.Errorf("box %v outside volume of shape %v", b, in.Shape)
	}
	if want := b.Len() * int64(in.DType.Size()); int64(dstLen) != want {
		return fmt.Errorf("box %v: buffer of %d bytes, want %d", b, dstLen, want)
	}
	return nil
}

// AsBoxReader returns src, or the source a wrapper of it reads, as a
// BoxReader, if it is one.
func AsBoxReader(src Source) (BoxReader, bool) {
	br, ok := unwrap(src).(BoxReader)
	return br, ok
}

// unwrap returns the source a wrapper (a pipeline's view of a volume)
// says it reads, else src.
func unwrap(src Source) Source {
	for {
		w, ok := src.(interface{ Source() Source })
		if !ok {
			return src
		}
		src = w.Source()
	}
}

// Volume is a named, lazily read volume.
type Volume struct {
	Info
	// Name is the file (and dataset) the volume came from, for messages.
	Name string
	src  Source
}

// New wraps a Source as a Volume.
func New(name string, src Source) *Volume {
	return &Volume{Info: src.Info(), Name: name, src: src}
}

// Source returns the underlying source.
func (v *Volume) Source() Source { return v.src }

// ReadSlab reads planes [z0, z1) into dst after checking the range and the
// buffer size, so sources only see valid requests.
func (v *Volume) ReadSlab(z0, z1 int, dst []byte) error {
	// Only the shape and type: the viewer's layer controls may set
	// VoxelSize on the UI goroutine while a loader reads planes.
	if err := CheckSlab(Info{Shape: v.Shape, DType: v.DType}, z0, z1, len(dst)); err != nil {
		return fmt.Errorf("read slab %d-%d of %s: %w", z0, z1, v.Name, err)
	}
	if err := v.src.ReadSlab(z0, z1, dst); err != nil {
		return fmt.Errorf("read slab %d-%d of %s: %w", z0, z1, v.Name, err)
	}
	return nil
}

// ReadAll reads the whole volume. Use it only for volumes known to be small.
func (v *Volume) ReadAll() ([]byte, error) {
	buf := make([]byte, v.Bytes())
	return buf, v.ReadSlab(0, v.Shape[0], buf)
}

// Close closes the underlying source.
func (v *Volume) Close() error { return v.src.Close() }

// CheckSlab validates a slab request against a volume's info.
func CheckSlab(in Info, z0, z1, dstLen int) error {
	if z0 < 0 || z1 > in.Shape[0] || z0 > z1 {
		return fmt.Errorf("planes [%d,%d) outside [0,%d)", z0, z1, in.Shape[0])
	}
	want := int64(z1-z0) * in.PlaneBytes()
	if int64(dstLen) != want {
		return fmt.Errorf("buffer holds %d bytes, slab needs %d", dstLen, want)
	}
	return nil
}
