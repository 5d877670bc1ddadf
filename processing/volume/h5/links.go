package h5

// Links: NeXus files keep their frames behind soft links (NXdata's data
// pointing at the detector's) and external links (the detector's data
// in a file of its own, as Diamond's GDA writes them). gonum/hdf5 lists
// an external link as neither group nor dataset, so links are resolved
// here, hop by hop, with libhdf5's link calls.

// #include <stdlib.h>
// #include <string.h>
// #include <hdf5.h>
//
// // linkAt describes link name (a path from loc): its type (-1: no such
// // link), and for a soft link its target path, for an external one its
// // file and object path.
// static int linkAt(hid_t loc, const char *name, char *file, size_t flen, char *obj, size_t olen) {
// 	H5L_info_t info;
// 	file[0] = obj[0] = 0;
// 	if (H5Lexists(loc, name, H5P_DEFAULT) <= 0) return -1;
// 	if (H5Lget_info(loc, name, &info, H5P_DEFAULT) < 0) return -1;
// 	if (info.type == H5L_TYPE_SOFT) {
// 		if (info.u.val_size > olen) return -1;
// 		if (H5Lget_val(loc, name, obj, olen, H5P_DEFAULT) < 0) return -1;
// 	} else if (info.type == H5L_TYPE_EXTERNAL) {
// 		char buf[4096];
// 		const char *f, *o;
// 		unsigned flags;
// 		if (info.u.val_size > sizeof buf) return -1;
// 		if (H5Lget_val(loc, name, buf, sizeof buf, H5P_DEFAULT) < 0) return -1;
// 		if (H5Lunpack_elink_val(buf, info.u.val_size, &flags, &f, &o) < 0) return -1;
// 		snprintf(file, flen, "%s", f);
// 		snprintf(obj, olen, "%s", o);
// 	}
// 	return (int)info.type;
// }
//
// // objAt returns the type of the object at name (links followed; -1
// // when it cannot be reached) and its address in its file.
// static int objAt(hid_t loc, const char *name, haddr_t *addr) {
// 	H5O_info_t oi;
// 	if (H5Oget_info_by_name2(loc, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0) return -1;
// 	*addr = oi.addr;
// 	return (int)oi.type;
// }
//
// // attrString reads the string attribute attr of the object at name
// // (fixed or variable length, scalar or one element) into buf.
// static int attrString(hid_t loc, const char *name, const char *attr, char *buf, size_t len) {
// 	buf[0] = 0;
// 	if (H5Aexists_by_name(loc, name, attr, H5P_DEFAULT) <= 0) return -1;
// 	hid_t a = H5Aopen_by_name(loc, name, attr, H5P_DEFAULT, H5P_DEFAULT);
// 	if (a < 0) return -1;
// 	int ok = -1;
// 	hid_t t = H5Aget_type(a), s = H5Aget_space(a), m = -1;
// 	if (t < 0 || s < 0 || H5Tget_class(t) != H5T_STRING || H5Sget_simple_extent_npoints(s) != 1) goto done;
// 	m = H5Tcopy(H5T_C_S1);
// 	H5Tset_cset(m, H5Tget_cset(t)); // libhdf5 does not convert ASCII to UTF-8
// 	if (H5Tis_variable_str(t) > 0) {
// 		char *v = NULL;
// 		H5Tset_size(m, H5T_VARIABLE);
// 		if (H5Aread(a, m, &v) >= 0 && v != NULL) {
// 			snprintf(buf, len, "%s", v);
// 			H5free_memory(v);
// 			ok = 0;
// 		}
// 	} else {
// 		size_t n = H5Tget_size(t);
// 		char *v = calloc(n + 1, 1);
// 		H5Tset_size(m, n + 1);
// 		if (v != NULL && H5Aread(a, m, v) >= 0) {
// 			snprintf(buf, len, "%s", v);
// 			ok = 0;
// 		}
// 		free(v);
// 	}
// done:
// 	if (m >= 0) H5Tclose(m);
// 	if (s >= 0) H5Sclose(s);
// 	if (t >= 0) H5Tclose(t);
// 	H5Aclose(a);
// 	return ok;
// }
import "C"

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unsafe"
)

// Link types of libhdf5.
const (
	linkHard     = C.H5L_TYPE_HARD
	linkSoft     = C.H5L_TYPE_SOFT
	linkExternal = C.H5L_TYPE_EXTERNAL
)

// linkInfo describes the link at p (an absolute path in f).
type linkInfo struct {
	kind      int    // -1: no such link
	file, obj string // external: target file and object; soft: obj
}

func linkAt(f *file, p string) linkInfo {
	cp := C.CString(p)
	defer C.free(unsafe.Pointer(cp))
	var file, obj [4096]C.char
	k := int(C.linkAt(C.hid_t(f.f.ID()), cp, &file[0], 4096, &obj[0], 4096))
	return linkInfo{kind: k, file: C.GoString(&file[0]), obj: C.GoString(&obj[0])}
}

// target is where a path ends up once its links are followed.
type target struct {
	// key identifies the object: its address in f, or the external
	// file and path it is in; "" when it cannot be reached.
	key string
	// via describes the links followed ("soft link to /a, external link
	// to k11/x.h5:/entry/data/data"), "" for a plain object.
	via string
	// missing says why a dangling link cannot be followed.
	missing string
	dataset bool
}

// resolve follows the links of path p in f. Call with lib held.
func resolve(f *file, p string) target {
	var hops []string
	cur := p
	for i := 0; i < 16; i++ {
		li := linkAt(f, cur)
		switch li.kind {
		case linkSoft:
			next := li.obj
			if !strings.HasPrefix(next, "/") {
				next = path.Join(path.Dir(cur), next)
			}
			hops = append(hops, "soft link to "+next)
			cur = next
			continue
		case linkExternal:
			hops = append(hops, "external link to "+li.file+":"+li.obj)
			t := target{key: "ext:" + externalPath(f, li.file) + ":" + li.obj, via: strings.Join(hops, ", ")}
			if ep := externalPath(f, li.file); !fileExists(ep) {
				t.key, t.missing = "", fmt.Sprintf("links to %s, which is missing", li.file)
				return t
			}
			typ, _ := objAt(f, p)
			if typ < 0 {
				t.key, t.missing = "", fmt.Sprintf("links to %s:%s, which that file does not hold (or cannot be opened)", li.file, li.obj)
				return t
			}
			t.dataset = typ == C.H5O_TYPE_DATASET
			return t
		case linkHard:
			typ, addr := objAt(f, cur)
			if typ < 0 {
				return target{via: strings.Join(hops, ", "), missing: "cannot be opened"}
			}
			return target{key: fmt.Sprintf("addr:%d", addr), via: strings.Join(hops, ", "), dataset: typ == C.H5O_TYPE_DATASET}
		default:
			if len(hops) > 0 {
				return target{via: strings.Join(hops, ", "), missing: fmt.Sprintf("links to %s, which does not exist", cur)}
			}
			return target{missing: "does not exist"}
		}
	}
	return target{via: strings.Join(hops, ", "), missing: "more than 16 links in a row (a cycle?)"}
}

// externalPath is where libhdf5 finds an external link's file: as given
// when absolute, else beside the file holding the link (or, failing
// that, relative to the working folder).
func externalPath(f *file, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	beside := filepath.Join(filepath.Dir(f.path), name)
	if fileExists(beside) || !fileExists(name) {
		return beside
	}
	return name
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func objAt(f *file, p string) (typ int, addr uint64) {
	cp := C.CString(p)
	defer C.free(unsafe.Pointer(cp))
	var a C.haddr_t
	t := int(C.objAt(C.hid_t(f.f.ID()), cp, &a))
	return t, uint64(a)
}

// attrString reads a string attribute of the object at p ("" when it
// has none). Call with lib held.
func attrString(f *file, p, attr string) string {
	cp, ca := C.CString(p), C.CString(attr)
	defer C.free(unsafe.Pointer(cp))
	defer C.free(unsafe.Pointer(ca))
	var buf [1024]C.char
	if C.attrString(C.hid_t(f.f.ID()), cp, ca, &buf[0], 1024) < 0 {
		return ""
	}
	return C.GoString(&buf[0])
}
