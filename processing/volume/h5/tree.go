package h5

// Reading an HDF5 file as a tree of groups, attributes and datasets of
// any rank, for files that are not volumes: the Keras weight files of
// cellfinder's classifier (processing/classify/keras) keep a layer per
// group, its variable names in string attributes and its weights in 1-D
// to 5-D float datasets. gonum/hdf5 reads string attributes only as one
// scalar, so the string arrays (fixed-length, as h5py writes a NumPy
// bytes array, or variable-length) are read here through libhdf5's C API.

// #include <stdlib.h>
// #include <string.h>
// #include <hdf5.h>
//
// // attrStrings reads attribute name of object obj (a path from loc) as
// // n strings. Fixed-length strings land in buf (n*size bytes, *size
// // set); variable-length ones as n C strings in vbuf (freed by the
// // caller with freeVlen). Returns 0, or -1 (error), -2 (not a string).
// static int attrInfo(hid_t loc, const char *obj, const char *name, hssize_t *n, size_t *size, int *vlen) {
// 	hid_t a = H5Aopen_by_name(loc, obj, name, H5P_DEFAULT, H5P_DEFAULT);
// 	if (a < 0) return -1;
// 	hid_t t = H5Aget_type(a), s = H5Aget_space(a);
// 	int rc = 0;
// 	if (t < 0 || s < 0) rc = -1;
// 	else if (H5Tget_class(t) != H5T_STRING) rc = -2;
// 	else {
// 		*n = H5Sget_simple_extent_npoints(s);
// 		*size = H5Tget_size(t);
// 		*vlen = H5Tis_variable_str(t) > 0;
// 	}
// 	if (s >= 0) H5Sclose(s);
// 	if (t >= 0) H5Tclose(t);
// 	H5Aclose(a);
// 	return rc;
// }
//
// static int attrRead(hid_t loc, const char *obj, const char *name, void *buf, size_t size, int vlen) {
// 	hid_t a = H5Aopen_by_name(loc, obj, name, H5P_DEFAULT, H5P_DEFAULT);
// 	if (a < 0) return -1;
// 	hid_t m = H5Tcopy(H5T_C_S1);
// 	H5Tset_size(m, vlen ? H5T_VARIABLE : size);
// 	H5Tset_strpad(m, H5T_STR_NULLPAD);
// 	herr_t rc = H5Aread(a, m, buf);
// 	H5Tclose(m);
// 	H5Aclose(a);
// 	return rc < 0 ? -1 : 0;
// }
//
// static void freeStrings(char **v, hssize_t n) {
// 	for (hssize_t i = 0; i < n; i++) free(v[i]);
// }
//
// static int readFloats(hid_t ds, float *buf) {
// 	return H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0 ? -1 : 0;
// }
//
// static int attrExists(hid_t loc, const char *obj, const char *name) {
// 	return H5Aexists_by_name(loc, obj, name, H5P_DEFAULT) > 0;
// }
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/voxlab/voxlab/processing/volume"
	"gonum.org/v1/hdf5"
)

func init() {
	volume.RegisterTreeOpener(func(path string) (volume.Tree, error) {
		t, err := OpenTree(path)
		if err != nil {
			return nil, err
		}
		return t, nil
	})
	volume.RegisterTreeCreator(func(path string) (volume.TreeWriter, error) {
		f, err := Create(path)
		if err != nil {
			return nil, err
		}
		return f, nil
	})
}

// Tree is an HDF5 file opened read-only to walk its groups and read its
// attributes and datasets: a volume.Tree (registered as its opener).
// Its methods are safe for concurrent use (each holds the package's
// libhdf5 lock).
type Tree struct {
	f    *file
	path string
}

// OpenTree opens path read-only. A file that is not HDF5 is an error
// naming it.
func OpenTree(path string) (*Tree, error) {
	lib.Lock()
	defer lib.Unlock()
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	return &Tree{f: f, path: path}, nil
}

// Path returns the file's path.
func (t *Tree) Path() string { return t.path }

// Close closes the file.
func (t *Tree) Close() error {
	lib.Lock()
	defer lib.Unlock()
	if t.f == nil {
		return nil
	}
	err := t.f.release()
	t.f = nil
	return err
}

// Kind says what path names: "group", "dataset", or "" when nothing (or
// something else, such as a named datatype) is there.
func (t *Tree) Kind(path string) string {
	lib.Lock()
	defer lib.Unlock()
	return t.kind(path)
}

func (t *Tree) kind(path string) string {
	path = "/" + strings.Trim(path, "/")
	if path == "/" {
		return "group"
	}
	if !exists(t.f.f, path) {
		return ""
	}
	if g, err := t.f.f.OpenGroup(path); err == nil {
		g.Close()
		return "group"
	}
	if d, err := t.f.f.OpenDataset(path); err == nil {
		d.Close()
		return "dataset"
	}
	return ""
}

// Members returns the names of the members of a group, in libhdf5's
// index order (by name).
func (t *Tree) Members(group string) ([]string, error) {
	lib.Lock()
	defer lib.Unlock()
	group = "/" + strings.Trim(group, "/")
	g, err := t.f.f.OpenGroup(group)
	if err != nil {
		return nil, fmt.Errorf("%s: no group %s", t.path, group)
	}
	defer g.Close()
	n, err := g.NumObjects()
	if err != nil {
		return nil, fmt.Errorf("%s: group %s: %w", t.path, group, err)
	}
	names := make([]string, 0, n)
	for i := range n {
		name, err := g.ObjectNameByIndex(i)
		if err != nil {
			return nil, fmt.Errorf("%s: group %s: %w", t.path, group, err)
		}
		names = append(names, name)
	}
	return names, nil
}

// HasAttr reports whether object (a group or dataset path) has an
// attribute name.
func (t *Tree) HasAttr(object, name string) bool {
	lib.Lock()
	defer lib.Unlock()
	if t.kind(object) == "" {
		return false
	}
	obj, attr := C.CString("/"+strings.Trim(object, "/")), C.CString(name)
	defer C.free(unsafe.Pointer(obj))
	defer C.free(unsafe.Pointer(attr))
	return C.attrExists(C.hid_t(t.f.f.ID()), obj, attr) != 0
}

// Strings reads a string attribute of object, a scalar or an array of
// fixed- or variable-length strings; fixed-length ones lose their
// padding NULs.
func (t *Tree) Strings(object, name string) ([]string, error) {
	lib.Lock()
	defer lib.Unlock()
	where := fmt.Sprintf("%s: attribute %s of %s", t.path, name, object)
	if t.kind(object) == "" {
		return nil, fmt.Errorf("%s: no object %s", t.path, object)
	}
	obj, attr := C.CString("/"+strings.Trim(object, "/")), C.CString(name)
	defer C.free(unsafe.Pointer(obj))
	defer C.free(unsafe.Pointer(attr))
	loc := C.hid_t(t.f.f.ID())
	if C.attrExists(loc, obj, attr) == 0 {
		return nil, fmt.Errorf("%s: missing", where)
	}
	var n C.hssize_t
	var size C.size_t
	var vlen C.int
	switch C.attrInfo(loc, obj, attr, &n, &size, &vlen) {
	case -2:
		return nil, fmt.Errorf("%s: not a string attribute", where)
	case 0:
	default:
		return nil, fmt.Errorf("%s: cannot be read", where)
	}
	if n < 0 || n > 1<<24 {
		return nil, fmt.Errorf("%s: %d strings", where, n)
	}
	out := make([]string, int(n))
	if n == 0 {
		return out, nil
	}
	if vlen != 0 {
		ptrs := (*[1 << 24]*C.char)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(uintptr(0)))))[:n:n]
		defer C.free(unsafe.Pointer(&ptrs[0]))
		if C.attrRead(loc, obj, attr, unsafe.Pointer(&ptrs[0]), 0, 1) != 0 {
			return nil, fmt.Errorf("%s: cannot be read", where)
		}
		defer C.freeStrings(&ptrs[0], n)
		for i, p := range ptrs {
			if p != nil {
				out[i] = C.GoString(p)
			}
		}
		return out, nil
	}
	if size == 0 || int64(size)*int64(n) > 1<<30 {
		return nil, fmt.Errorf("%s: %d strings of %d bytes", where, n, size)
	}
	buf := make([]byte, int(size)*int(n))
	if C.attrRead(loc, obj, attr, unsafe.Pointer(&buf[0]), size, 0) != 0 {
		return nil, fmt.Errorf("%s: cannot be read", where)
	}
	for i := range out {
		s := buf[i*int(size) : (i+1)*int(size)]
		if j := strings.IndexByte(string(s), 0); j >= 0 {
			s = s[:j]
		}
		out[i] = string(s)
	}
	return out, nil
}

// Float32s reads a whole dataset of any rank and numeric type as
// float32 (libhdf5 converts integers and float64), with its shape.
func (t *Tree) Float32s(name string) (data []float32, shape []int, err error) {
	lib.Lock()
	defer lib.Unlock()
	name = "/" + strings.Trim(name, "/")
	if !exists(t.f.f, name) {
		return nil, nil, fmt.Errorf("%s: no dataset %s", t.path, name)
	}
	ds, err := t.f.f.OpenDataset(name)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %s is not a dataset", t.path, name)
	}
	defer ds.Close()
	dt, err := ds.Datatype()
	if err != nil {
		return nil, nil, fmt.Errorf("%s:%s: cannot read its type: %w", t.path, name, err)
	}
	class := dt.Class()
	dt.Close()
	if class != hdf5.T_FLOAT && class != hdf5.T_INTEGER {
		return nil, nil, fmt.Errorf("%s:%s: not a numeric dataset", t.path, name)
	}
	space := ds.Space()
	if space == nil {
		return nil, nil, fmt.Errorf("%s:%s: cannot read its dataspace", t.path, name)
	}
	defer space.Close()
	shape, err = dims(space)
	if err != nil {
		return nil, nil, fmt.Errorf("%s:%s: %w", t.path, name, err)
	}
	n := int64(1)
	for _, d := range shape {
		n *= int64(d)
	}
	if n > 1<<31 {
		return nil, nil, fmt.Errorf("%s:%s: %d values are too many to read at once", t.path, name, n)
	}
	data = make([]float32, n)
	if n == 0 {
		return data, shape, nil
	}
	if C.readFloats(C.hid_t(ds.ID()), (*C.float)(unsafe.Pointer(&data[0]))) != 0 {
		return nil, nil, fmt.Errorf("%s:%s: cannot read the values (damaged, or a filter is missing)", t.path, name)
	}
	return data, shape, nil
}

// numberAttr reads the numeric attribute name of dataset (Create's
// "/data" when empty) as ExportOptions.Attrs recorded it (SetAttrs: a
// number or a list of them), converted to float64; ok false where the
// dataset has no such attribute.
func numberAttr(p, dataset, name string) (vals []float64, ok bool, err error) {
	if dataset == "" {
		dataset = "/data"
	}
	dataset = "/" + strings.Trim(dataset, "/")
	where := fmt.Sprintf("%s: attribute %s of %s", p, name, dataset)
	err = withFile(p, func(f *file) error {
		if !exists(f.f, dataset) {
			return fmt.Errorf("%s: no dataset %s", p, dataset)
		}
		obj, attr := C.CString(dataset), C.CString(name)
		defer C.free(unsafe.Pointer(obj))
		defer C.free(unsafe.Pointer(attr))
		if C.attrExists(C.hid_t(f.f.ID()), obj, attr) == 0 {
			return nil
		}
		d, err := f.f.OpenDataset(dataset)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		defer d.Close()
		a, err := d.OpenAttribute(name)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		defer a.Close()
		s := a.Space()
		defer s.Close()
		n := s.SimpleExtentNPoints()
		if n < 1 || n > 1<<20 {
			return fmt.Errorf("%s: %d values", where, n)
		}
		vals = make([]float64, n)
		// libhdf5 converts integers and floats to double, and refuses
		// strings.
		if err := a.Read(&vals[0], hdf5.T_NATIVE_DOUBLE); err != nil {
			return fmt.Errorf("%s: not a number (%w)", where, err)
		}
		ok = true
		return nil
	})
	return vals, ok, err
}
