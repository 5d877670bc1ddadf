package h5

// Writing groups, string-array attributes and float32 datasets of any
// rank: what a Keras weight file holds (processing/classify/keras writes
// them for its tests and for users who convert weights).

// #include <stdlib.h>
// #include <hdf5.h>
//
// // setFixedStrings writes n fixed-length NULL-padded strings of size
// // bytes each (as h5py writes a NumPy bytes array) as attribute name of
// // object obj, a path from loc. Returns 0 or -1.
// static int setFixedStrings(hid_t loc, const char *obj, const char *name, const char *buf, hsize_t n, size_t size) {
// 	hid_t t = H5Tcopy(H5T_C_S1);
// 	H5Tset_size(t, size);
// 	H5Tset_strpad(t, H5T_STR_NULLPAD);
// 	hid_t s = H5Screate_simple(1, &n, NULL);
// 	hid_t a = H5Acreate_by_name(loc, obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
// 	int rc = -1;
// 	if (a >= 0) {
// 		rc = (n == 0 || H5Awrite(a, t, buf) >= 0) ? 0 : -1;
// 		H5Aclose(a);
// 	}
// 	H5Sclose(s);
// 	H5Tclose(t);
// 	return rc;
// }
//
// static int writeFloats(hid_t loc, const char *name, int rank, const hsize_t *dims, const float *buf) {
// 	hid_t s = H5Screate_simple(rank, dims, NULL);
// 	hid_t d = H5Dcreate2(loc, name, H5T_IEEE_F32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
// 	int rc = -1;
// 	if (d >= 0) {
// 		rc = H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0 ? -1 : 0;
// 		H5Dclose(d);
// 	}
// 	H5Sclose(s);
// 	return rc;
// }
import "C"

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unsafe"
)

// CreateGroup creates a group and its missing parents.
func (f *File) CreateGroup(group string) error {
	lib.Lock()
	defer lib.Unlock()
	if f.done {
		return errors.New("h5: file already committed or aborted")
	}
	return f.groups("/" + strings.Trim(group, "/"))
}

// SetStrings sets attribute name of object (a group, created with its
// parents if missing, or a dataset) to the strings vals as an array of
// fixed-length, NULL-padded strings as long as the longest (h5py's
// layout for a NumPy bytes array).
func (f *File) SetStrings(object, name string, vals []string) error {
	object = "/" + strings.Trim(object, "/")
	lib.Lock()
	defer lib.Unlock()
	if f.done {
		return errors.New("h5: file already committed or aborted")
	}
	if !exists(f.f, object) && object != "/" {
		if err := f.groups(object); err != nil {
			return err
		}
	}
	size := 1
	for _, v := range vals {
		size = max(size, len(v))
	}
	buf := make([]byte, size*max(len(vals), 1))
	for i, v := range vals {
		copy(buf[i*size:], v)
	}
	obj, attr := C.CString(object), C.CString(name)
	defer C.free(unsafe.Pointer(obj))
	defer C.free(unsafe.Pointer(attr))
	cbuf := C.CBytes(buf)
	defer C.free(cbuf)
	if C.setFixedStrings(C.hid_t(f.f.ID()), obj, attr, (*C.char)(cbuf), C.hsize_t(len(vals)), C.size_t(size)) != 0 {
		return fmt.Errorf("attribute %s of %s in %s: cannot write it (set twice?)", name, object, f.target)
	}
	return nil
}

// WriteFloat32s writes data, of the given shape (any rank, row-major),
// as a contiguous little-endian float32 dataset at name, creating its
// missing parent groups.
func (f *File) WriteFloat32s(name string, shape []int, data []float32) error {
	name = "/" + strings.Trim(name, "/")
	n := 1
	dims := make([]C.hsize_t, len(shape))
	for i, d := range shape {
		if d < 0 {
			return fmt.Errorf("write %s:%s: shape %v", f.target, name, shape)
		}
		n *= d
		dims[i] = C.hsize_t(d)
	}
	if n != len(data) {
		return fmt.Errorf("write %s:%s: shape %v holds %d values, got %d", f.target, name, shape, n, len(data))
	}
	lib.Lock()
	defer lib.Unlock()
	if f.done {
		return errors.New("h5: file already committed or aborted")
	}
	if err := f.groups(path.Dir(name)); err != nil {
		return err
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	// data holds no Go pointers and H5Dwrite keeps no reference to it
	// after it returns, so cgo lets C read it in place: a C copy of each
	// variable (tens of MB for a ResNet's largest kernels) left the C
	// heap holding that much after a model file was written.
	var buf unsafe.Pointer
	if n > 0 {
		buf = unsafe.Pointer(&data[0])
	}
	var dp *C.hsize_t
	if len(dims) > 0 {
		dp = &dims[0]
	}
	if C.writeFloats(C.hid_t(f.f.ID()), cname, C.int(len(dims)), dp, (*C.float)(buf)) != 0 {
		return fmt.Errorf("write %s:%s: cannot create the dataset (exists already?)", f.target, name)
	}
	return nil
}
