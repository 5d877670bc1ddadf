package h5

// Compressed datasets. libhdf5 decodes gzip, shuffle, fletcher32, nbit
// and scale-offset itself and loads other filters as plugins; Debian 12
// packages LZ4, BZip2, Blosc, LZF and ZFP as plugins in the serial
// library's plugin folder, its default. A user who points
// HDF5_PLUGIN_PATH elsewhere (a conda install, a beamline's own folder)
// replaces that default, so the folder is appended to the search path at
// start: the user's plugins still come first. Bitshuffle (32008), which
// Dectris Eiger files use, has no Debian package: bitshuffle.c decodes it
// and is registered here. Debian's LZF plugin (hdf5-plugin-lzf, built
// from h5py) leaves lzf_decompress to its host, which h5py provides; here
// liblzf (liblzf1) is loaded with its symbols global before any plugin,
// so the plugin finds them.

// #cgo LDFLAGS: -llz4 -ldl
// #include <dlfcn.h>
// #include <stdlib.h>
// #include <hdf5.h>
// #include "bitshuffle.h"
//
// // filterAt fetches filter i of a dataset's pipeline: its id (negative
// // on error), up to 16 client values (their count in *ncd) and flags.
// static int filterAt(hid_t ds, unsigned i, unsigned *cd, size_t *ncd, unsigned *flags) {
// 	hid_t dcpl = H5Dget_create_plist(ds);
// 	if (dcpl < 0) return -1;
// 	char name[64];
// 	unsigned config;
// 	*ncd = 16;
// 	H5Z_filter_t id = H5Pget_filter2(dcpl, i, flags, ncd, cd, sizeof name, name, &config);
// 	H5Pclose(dcpl);
// 	return (int)id;
// }
//
// static int nfilters(hid_t ds) {
// 	hid_t dcpl = H5Dget_create_plist(ds);
// 	if (dcpl < 0) return -1;
// 	int n = H5Pget_nfilters(dcpl);
// 	H5Pclose(dcpl);
// 	return n;
// }
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"unsafe"

	"gonum.org/v1/hdf5"
)

// pluginDir is Debian's plugin folder of the serial libhdf5.
var pluginDir = map[string]string{
	"amd64": "/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins",
	"arm64": "/usr/lib/aarch64-linux-gnu/hdf5/serial/plugins",
}[runtime.GOARCH]

// bitshuffleErr is set when the bitshuffle decoder could not be
// registered; files that need it then fail with it.
var bitshuffleErr error

func init() {
	lib.Lock()
	defer lib.Unlock()
	if C.voxlab_bshuf_register() < 0 {
		bitshuffleErr = fmt.Errorf("libhdf5 refused voxlab's bitshuffle decoder")
	}
	lzf := C.CString("liblzf.so.1")
	C.dlopen(lzf, C.RTLD_NOW|C.RTLD_GLOBAL) // missing: LZF files fail with a message naming liblzf1
	C.free(unsafe.Pointer(lzf))
	if st, err := os.Stat(pluginDir); err == nil && st.IsDir() {
		cs := C.CString(pluginDir)
		C.H5PLappend(cs)
		C.free(unsafe.Pointer(cs))
	}
}

// Filter is one stage of a dataset's filter pipeline.
type Filter struct {
	ID   int
	Name string
	// Params are the filter's client values as stored in the file.
	Params []uint
	// Optional filters may be skipped by the writer for a chunk.
	Optional bool
}

// knownFilter names a filter and the Debian 12 package that provides
// its plugin ("" for the ones built into libhdf5 or voxlab).
type knownFilter struct{ name, pkg string }

var knownFilters = map[int]knownFilter{
	1:     {"gzip", ""},
	2:     {"shuffle", ""},
	3:     {"fletcher32", ""},
	4:     {"szip", "libhdf5 built with libaec (Debian's is)"},
	5:     {"nbit", ""},
	6:     {"scaleoffset", ""},
	307:   {"bzip2", "hdf5-filter-plugin"},
	32000: {"lzf", "hdf5-plugin-lzf liblzf1"},
	32001: {"blosc", "hdf5-filter-plugin-blosc-serial"},
	32004: {"lz4", "hdf5-filter-plugin"},
	32008: {"bitshuffle", ""},
	32013: {"zfp", "hdf5-filter-plugin-zfp-serial"},
	32015: {"zstd", ""},
	32017: {"sz", ""},
	32026: {"blosc2", ""},
}

// filterName names a filter id the way h5py and hdf5plugin users know it.
func filterName(id int) string {
	if k, ok := knownFilters[id]; ok {
		return k.name
	}
	return fmt.Sprintf("filter %d", id)
}

// filters lists ds's filter pipeline in the order it was applied when
// writing. Call with lib held.
func filters(ds *hdf5.Dataset) ([]Filter, error) {
	id := C.hid_t(ds.ID())
	n := int(C.nfilters(id))
	if n < 0 {
		return nil, fmt.Errorf("cannot read the filter pipeline")
	}
	out := make([]Filter, 0, n)
	for i := 0; i < n; i++ {
		var cd [16]C.uint
		var ncd C.size_t
		var flags C.uint
		fid := int(C.filterAt(id, C.uint(i), &cd[0], &ncd, &flags))
		if fid < 0 {
			return nil, fmt.Errorf("cannot read filter %d of the pipeline", i)
		}
		f := Filter{ID: fid, Name: filterName(fid), Optional: flags&C.H5Z_FLAG_OPTIONAL != 0}
		for j := 0; j < int(min(ncd, 16)); j++ {
			f.Params = append(f.Params, uint(cd[j]))
		}
		out = append(out, f)
	}
	return out, nil
}

// checkFilters returns an error naming the first filter of fs that this
// libhdf5 cannot decode, and the Debian package that provides it. A
// filter libhdf5 does not list as available is confirmed missing by
// probe failing. Call with lib held.
func checkFilters(fs []Filter, probe func() error) error {
	for _, f := range fs {
		if f.ID == 32008 && bitshuffleErr != nil {
			return bitshuffleErr
		}
		if f.ID == 32008 && len(f.Params) > 4 && f.Params[4] != 0 && f.Params[4] != 2 {
			return fmt.Errorf("compressed with bitshuffle and compressor %d (zstd?), which voxlab's bitshuffle decoder lacks (it decodes bitshuffle alone and bitshuffle+LZ4)", f.Params[4])
		}
		if C.H5Zfilter_avail(C.H5Z_filter_t(f.ID)) > 0 || probe() == nil {
			continue
		}
		return missingFilter(f.ID)
	}
	return nil
}

// missingFilter is the error for a filter libhdf5 cannot decode: it names
// the filter and what provides it.
func missingFilter(id int) error {
	k, known := knownFilters[id]
	switch {
	case known && k.pkg != "":
		return fmt.Errorf("compressed with the %s filter (HDF5 filter %d), which libhdf5 cannot load: install Debian's %s (apt-get install %s), or set HDF5_PLUGIN_PATH to a folder holding the plugin", k.name, id, k.pkg, k.pkg)
	case known:
		return fmt.Errorf("compressed with the %s filter (HDF5 filter %d), which no Debian 12 package provides: set HDF5_PLUGIN_PATH to a folder holding its plugin (e.g. hdf5plugin's from PyPI), or rewrite the file with another filter", k.name, id)
	}
	return fmt.Errorf("compressed with HDF5 filter %d, which voxlab does not know and libhdf5 cannot load: set HDF5_PLUGIN_PATH to a folder holding its plugin (see the HDF Group's list of registered filters)", id)
}

// codecText describes a filter pipeline for `voxlab info`: "bitshuffle
// (block 0) + lz4", "blosc (lz4, level 5, byte shuffle)", "none".
func codecText(fs []Filter) string {
	if len(fs) == 0 {
		return "none"
	}
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = filterText(f)
	}
	return strings.Join(parts, " | ")
}

func filterText(f Filter) string {
	p := func(i int) (uint, bool) {
		if i < len(f.Params) {
			return f.Params[i], true
		}
		return 0, false
	}
	switch f.ID {
	case 1:
		if lvl, ok := p(0); ok {
			return fmt.Sprintf("gzip (level %d)", lvl)
		}
	case 32001:
		// hdf5-blosc's values: revision, version, type size, buffer
		// size, level, shuffle, compressor.
		var s []string
		if c, ok := p(6); ok {
			s = append(s, map[uint]string{0: "blosclz", 1: "lz4", 2: "lz4hc", 3: "snappy", 4: "zlib", 5: "zstd"}[c])
		}
		if lvl, ok := p(4); ok {
			s = append(s, fmt.Sprintf("level %d", lvl))
		}
		if sh, ok := p(5); ok {
			s = append(s, map[uint]string{0: "no shuffle", 1: "byte shuffle", 2: "bit shuffle"}[sh])
		}
		if len(s) > 0 {
			return "blosc (" + strings.Join(s, ", ") + ")"
		}
	case 32008:
		// bitshuffle's values: filter version, library version, element
		// size, block size (0: default), compressor (2: LZ4).
		s := "bitshuffle"
		if b, ok := p(3); ok {
			s += fmt.Sprintf(" (block %d)", b)
		}
		if c, _ := p(4); c == 2 {
			s += " + lz4"
		}
		return s
	case 32013:
		return "zfp"
	}
	return f.Name
}

// decodeBitshuffle decodes one bitshuffle chunk of elem-byte elements
// into dst, which must hold the decoded size (with lz4, the size its
// header gives: bitshuffleSize). It is the decoder libhdf5 calls, exposed
// for tests and fuzzing.
func decodeBitshuffle(dst, src []byte, elem, block int, lz4 bool) error {
	if elem <= 0 || block < 0 {
		return fmt.Errorf("bitshuffle: element size %d, block %d", elem, block)
	}
	var in, out *C.uchar
	if len(src) > 0 {
		in = (*C.uchar)(unsafe.Pointer(&src[0]))
	}
	if len(dst) > 0 {
		out = (*C.uchar)(unsafe.Pointer(&dst[0]))
	}
	l := 0
	if lz4 {
		l = 1
	}
	r := C.voxlab_bshuf_decode(in, C.size_t(len(src)), out, C.size_t(len(dst)), C.size_t(elem), C.size_t(block), C.int(l))
	if r >= 0 {
		return nil
	}
	return fmt.Errorf("bitshuffle: %s", map[C.longlong]string{
		C.BSHUF_ERR_HEADER:  "invalid header or sizes",
		C.BSHUF_ERR_TRUNC:   "chunk truncated",
		C.BSHUF_ERR_LZ4:     "LZ4 block does not decode to its size",
		C.BSHUF_ERR_OUTSIZE: "output size differs from the header's",
		C.BSHUF_ERR_NOMEM:   "out of memory",
	}[r])
}

// bitshuffleSize returns the decoded size an LZ4 bitshuffle chunk's
// header gives.
func bitshuffleSize(src []byte, elem int) (int, error) {
	if len(src) < 12 || elem <= 0 {
		return 0, fmt.Errorf("bitshuffle: chunk of %d bytes has no header", len(src))
	}
	r := C.voxlab_bshuf_lz4_size((*C.uchar)(unsafe.Pointer(&src[0])), C.size_t(len(src)), C.size_t(elem))
	if r < 0 {
		return 0, fmt.Errorf("bitshuffle: invalid header")
	}
	return int(r), nil
}
