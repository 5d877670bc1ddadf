package h5

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/voxlab/voxlab/processing/volume"
	"gonum.org/v1/hdf5"
)

// lib serialises every call into libhdf5 (Debian builds it thread-safe,
// other builds are not) and pins the goroutine to one OS thread while it
// holds the lock: libhdf5 keeps its error-printing switch per thread, and
// gonum/hdf5 turns printing off only on the thread that ran its init.
var lib libLock

type libLock struct{ mu sync.Mutex }

func (l *libLock) Lock() {
	l.mu.Lock()
	runtime.LockOSThread()
	hdf5.DisplayErrors(false) // errors are reported as Go errors instead
}

func (l *libLock) Unlock() {
	runtime.UnlockOSThread()
	l.mu.Unlock()
}

// fileType is an HDF5 file datatype voxlab knows by name.
type fileType struct {
	t      *hdf5.Datatype
	name   string
	dt     volume.DType // InvalidDType: listed, not read as a volume
	big    bool
	signed bool
	float  bool
	size   int
}

var fileTypes = []fileType{
	{hdf5.T_STD_U8LE, "uint8", volume.Uint8, false, false, false, 1},
	{hdf5.T_STD_U8BE, "uint8", volume.Uint8, true, false, false, 1},
	{hdf5.T_STD_U16LE, "uint16", volume.Uint16, false, false, false, 2},
	{hdf5.T_STD_U16BE, "uint16", volume.Uint16, true, false, false, 2},
	{hdf5.T_IEEE_F32LE, "float32", volume.Float32, false, false, true, 4},
	{hdf5.T_IEEE_F32BE, "float32", volume.Float32, true, false, true, 4},
	{hdf5.T_IEEE_F64LE, "float64", volume.Float64, false, false, true, 8},
	{hdf5.T_IEEE_F64BE, "float64", volume.Float64, true, false, true, 8},
	{hdf5.T_STD_I8LE, "int8", volume.Int8, false, true, false, 1},
	{hdf5.T_STD_I8BE, "int8", volume.Int8, true, true, false, 1},
	{hdf5.T_STD_I16LE, "int16", volume.Int16, false, true, false, 2},
	{hdf5.T_STD_I16BE, "int16", volume.Int16, true, true, false, 2},
	{hdf5.T_STD_I32LE, "int32", volume.Int32, false, true, false, 4},
	{hdf5.T_STD_I32BE, "int32", volume.Int32, true, true, false, 4},
	{hdf5.T_STD_I64LE, "int64", 0, false, true, false, 8},
	{hdf5.T_STD_I64BE, "int64", 0, true, true, false, 8},
	{hdf5.T_STD_U32LE, "uint32", volume.Uint32, false, false, false, 4},
	{hdf5.T_STD_U32BE, "uint32", volume.Uint32, true, false, false, 4},
	{hdf5.T_STD_U64LE, "uint64", 0, false, false, false, 8},
	{hdf5.T_STD_U64BE, "uint64", 0, true, false, false, 8},
}

// typeOf identifies a dataset's file type; ok is false for types outside
// the table (strings, compounds, enums, float16, ...), whose name still
// says what they are. Call with lib held.
func typeOf(t *hdf5.Datatype) (ft fileType, name string, ok bool) {
	for _, f := range fileTypes {
		if t.Equal(f.t) {
			return f, f.name, true
		}
	}
	switch t.Class() {
	case hdf5.T_STRING:
		return ft, "string", false
	case hdf5.T_COMPOUND:
		return ft, "compound", false
	case hdf5.T_ENUM:
		return ft, "enum", false
	case hdf5.T_FLOAT:
		return ft, fmt.Sprintf("float%d", 8*t.Size()), false
	case hdf5.T_INTEGER:
		return ft, fmt.Sprintf("int%d", 8*t.Size()), false
	case hdf5.T_VLEN:
		return ft, "variable-length", false
	case hdf5.T_ARRAY:
		return ft, "array", false
	case hdf5.T_REFERENCE:
		return ft, "reference", false
	case hdf5.T_OPAQUE:
		return ft, "opaque", false
	case hdf5.T_BITFIELD:
		return ft, "bitfield", false
	}
	return ft, "unknown", false
}

// nativeType returns the in-memory (little-endian) HDF5 type of dt.
func nativeType(dt volume.DType) (*hdf5.Datatype, error) {
	switch dt {
	case volume.Uint8:
		return hdf5.T_NATIVE_UINT8, nil
	case volume.Uint16:
		return hdf5.T_NATIVE_UINT16, nil
	case volume.Int8:
		return hdf5.T_NATIVE_INT8, nil
	case volume.Int16:
		return hdf5.T_NATIVE_INT16, nil
	case volume.Int32:
		return hdf5.T_NATIVE_INT32, nil
	case volume.Uint32:
		return hdf5.T_NATIVE_UINT32, nil
	case volume.Float32:
		return hdf5.T_NATIVE_FLOAT, nil
	case volume.Float64:
		return hdf5.T_NATIVE_DOUBLE, nil
	}
	return nil, fmt.Errorf("HDF5: unsupported dtype %s", dt)
}

// decode converts n numbers of type ft stored in b to float64 (image keys
// and angles come as any integer or float type).
func (ft fileType) decode(b []byte) []float64 {
	var bo binary.ByteOrder = binary.LittleEndian
	if ft.big {
		bo = binary.BigEndian
	}
	out := make([]float64, len(b)/ft.size)
	for i := range out {
		p := b[i*ft.size:]
		var u uint64
		switch ft.size {
		case 1:
			u = uint64(p[0])
		case 2:
			u = uint64(bo.Uint16(p))
		case 4:
			u = uint64(bo.Uint32(p))
		case 8:
			u = bo.Uint64(p)
		}
		switch {
		case ft.float && ft.size == 4:
			out[i] = float64(math.Float32frombits(uint32(u)))
		case ft.float:
			out[i] = math.Float64frombits(u)
		case ft.signed:
			shift := 64 - 8*ft.size
			out[i] = float64(int64(u<<shift) >> shift)
		default:
			out[i] = float64(u)
		}
	}
	return out
}

// swap reverses the byte order of each size-byte element of b.
func swap(b []byte, size int) {
	for i := 0; i+size <= len(b); i += size {
		for j := 0; j < size/2; j++ {
			b[i+j], b[i+size-1-j] = b[i+size-1-j], b[i+j]
		}
	}
}

// dims returns a dataspace's dimensions; a scalar or null space has none.
// (gonum's SimpleExtentDims indexes its result and panics on rank 0.)
func dims(s *hdf5.Dataspace) ([]int, error) {
	rank := s.SimpleExtentNDims()
	if rank < 0 {
		return nil, fmt.Errorf("cannot read the dataspace")
	}
	if rank == 0 {
		return nil, nil
	}
	d, _, err := s.SimpleExtentDims()
	if err != nil {
		return nil, err
	}
	out := make([]int, len(d))
	for i, n := range d {
		if n > uint(math.MaxInt) {
			return nil, fmt.Errorf("dimension %d is too large", n)
		}
		out[i] = int(n)
	}
	return out, nil
}
