package h5

// Compressed datasets. libhdf5 decodes gzip, shuffle, fletcher32, szip,
// nbit and scaleoffset itself and loads other filters as plugins; Debian
// 12 packages LZ4, BZip2, Blosc, LZF and ZFP as plugins in the serial
// library's plugin folder, its default. A user who points
// HDF5_PLUGIN_PATH elsewhere (a conda install, a beamline's own folder)
// replaces that default, so the folder is appended to the search path at
// start: the user's plugins still come first.
//
// Every filter a dataset uses decodes through voxlab's guard (guard.c):
// gzip, BZip2, LZF, LZ4, Blosc, zstd (32015, which Debian does not
// package) and bitshuffle (32008, with LZ4 or zstd; Dectris Eiger files
// use it, and Debian has no plugin) through voxlab's own decoders
// (codecs.c, bitshuffle.c) over the compression libraries, which never
// allocate more than a chunk holds; the others (shuffle, fletcher32,
// szip, nbit, scaleoffset, ZFP and any other plugin) through the real
// filter. Either way a chunk that does not decode to exactly its size is
// an error naming the file, dataset and chunk, never heap bytes passed
// off as data.

// #cgo LDFLAGS: -llz4 -lzstd -lz -lbz2 -llzf -lblosc -ldl
// #include <stdlib.h>
// #include <hdf5.h>
// #include "bitshuffle.h"
// #include "guard.h"
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

// guardErr is set when voxlab's decoders could not be registered; every
// compressed dataset then fails to open with it.
var guardErr error

func init() {
	lib.Lock()
	defer lib.Unlock()
	if pluginDir != "" {
		if st, err := os.Stat(pluginDir); err == nil && st.IsDir() {
			cs := C.CString(pluginDir)
			C.H5PLappend(cs)
			C.free(unsafe.Pointer(cs))
		}
	}
	var msg [C.VOX_MSG]C.char
	if C.vox_init(&msg[0], C.VOX_MSG) < 0 {
		guardErr = fmt.Errorf("voxlab's HDF5 decoders could not be registered: %s", C.GoString(&msg[0]))
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
	32015: {"zstd", ""}, // voxlab's decoder
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
// libhdf5 cannot decode, and the Debian package that provides it; every
// other filter is made to decode through voxlab's guard. Call with lib
// held.
func checkFilters(fs []Filter) error {
	if len(fs) > C.VOX_MAXF {
		return fmt.Errorf("%d filters in the pipeline, more than voxlab reads (%d)", len(fs), C.VOX_MAXF)
	}
	for _, f := range fs {
		if guardErr != nil {
			return guardErr
		}
		if f.ID == 32008 && len(f.Params) > 4 && f.Params[4] != 0 && f.Params[4] != 2 && f.Params[4] != 3 {
			return fmt.Errorf("compressed with bitshuffle and compressor %d, which voxlab's bitshuffle decoder does not know (it decodes bitshuffle alone, bitshuffle+LZ4 and bitshuffle+zstd)", f.Params[4])
		}
		var msg [C.VOX_MSG]C.char
		switch C.vox_guard(C.int(f.ID), &msg[0], C.VOX_MSG) {
		case 0:
			continue
		case -2:
			return missingFilter(f.ID)
		default:
			return fmt.Errorf("%s filter (HDF5 filter %d): %s", f.Name, f.ID, C.GoString(&msg[0]))
		}
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
		switch c, _ := p(4); c {
		case 2:
			s += " + lz4"
		case 3:
			s += " + zstd"
			if lvl, ok := p(5); ok {
				s += fmt.Sprintf(" (level %d)", lvl)
			}
		}
		return s
	case 32013:
		return "zfp"
	case 32015:
		if lvl, ok := p(0); ok {
			return fmt.Sprintf("zstd (level %d)", lvl)
		}
	}
	return f.Name
}

// decodeBitshuffle decodes one bitshuffle chunk of elem-byte elements
// into dst, which must hold the decoded size (with a compressor, the size
// its header gives: bitshuffleSize); comp is the compressor (0 none,
// 2 LZ4, 3 zstd). It is the decoder libhdf5 calls, exposed for tests and
// fuzzing.
func decodeBitshuffle(dst, src []byte, elem, block, comp int) error {
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
	r := C.voxlab_bshuf_decode(in, C.size_t(len(src)), out, C.size_t(len(dst)), C.size_t(elem), C.size_t(block), C.int(comp))
	if r >= 0 {
		return nil
	}
	return fmt.Errorf("bitshuffle: %s", C.GoString(C.voxlab_bshuf_error(r)))
}

// bitshuffleSize returns the decoded size a compressed bitshuffle
// chunk's header gives.
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
