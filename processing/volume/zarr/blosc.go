package zarr

// Blosc goes through c-blosc (Debian's libblosc-dev) rather than a Go
// decoder: a Blosc buffer may hold any of five internal compressors
// (blosclz, lz4, lz4hc, zlib, zstd) behind byte or bit shuffles, split in
// blocks; the C library is the reference that every writer (numcodecs,
// zarrita's WebAssembly build) uses, it decodes all of them, and its
// SIMD unshuffles are faster than a hand-written Go port would be.

/*
#cgo LDFLAGS: -lblosc
#include <stdlib.h>
#include <blosc.h>
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// bloscFrame returns the Blosc frame at the start of src: writers that
// pad a chunk after its frame (z5py writes 16 bytes more) are read as
// zarr-python and zarrita read them, up to the compressed size the
// frame's header gives (bytes 12-15, little endian). A header promising
// more than src holds is left for validation to refuse.
func bloscFrame(src []byte) []byte {
	if len(src) < C.BLOSC_MIN_HEADER_LENGTH {
		return src
	}
	if cbytes := binary.LittleEndian.Uint32(src[12:16]); cbytes >= C.BLOSC_MIN_HEADER_LENGTH && uint64(cbytes) < uint64(len(src)) {
		return src[:cbytes]
	}
	return src
}

// bloscDecode decompresses src, refusing a buffer whose header says it
// holds more than limit bytes.
func bloscDecode(src []byte, limit int) ([]byte, error) {
	if len(src) < C.BLOSC_MIN_HEADER_LENGTH {
		return nil, fmt.Errorf("blosc: %d bytes is shorter than a header", len(src))
	}
	src = bloscFrame(src)
	var n C.size_t
	// validate checks the header's sizes against the buffer before any
	// decoding, so a damaged header is an error, not a read past src.
	if C.blosc_cbuffer_validate(unsafe.Pointer(&src[0]), C.size_t(len(src)), &n) < 0 {
		return nil, fmt.Errorf("blosc: the header is damaged (%d bytes)", len(src))
	}
	if int(n) > limit {
		return nil, fmt.Errorf("blosc: the header says %d bytes, more than the chunk can hold", int(n))
	}
	dst := make([]byte, int(n))
	if len(dst) == 0 {
		return dst, nil
	}
	// One internal thread: chunks are decoded in parallel already.
	r := C.blosc_decompress_ctx(unsafe.Pointer(&src[0]), unsafe.Pointer(&dst[0]), C.size_t(len(dst)), 1)
	if int(r) != len(dst) {
		return nil, fmt.Errorf("blosc: decompression failed (code %d)", int(r))
	}
	return dst, nil
}

// bloscDecodeInto decompresses src into dst, which the buffer must fill
// exactly.
func bloscDecodeInto(dst, src []byte) error {
	if len(src) < C.BLOSC_MIN_HEADER_LENGTH {
		return fmt.Errorf("blosc: %d bytes is shorter than a header", len(src))
	}
	src = bloscFrame(src)
	var n C.size_t
	if C.blosc_cbuffer_validate(unsafe.Pointer(&src[0]), C.size_t(len(src)), &n) < 0 {
		return fmt.Errorf("blosc: the header is damaged (%d bytes)", len(src))
	}
	if int(n) != len(dst) {
		return fmt.Errorf("blosc: the buffer holds %d bytes, want %d", int(n), len(dst))
	}
	if len(dst) == 0 {
		return nil
	}
	if r := C.blosc_decompress_ctx(unsafe.Pointer(&src[0]), unsafe.Pointer(&dst[0]), C.size_t(len(dst)), 1); int(r) != len(dst) {
		return fmt.Errorf("blosc: decompression failed (code %d)", int(r))
	}
	return nil
}

// bloscName returns the internal compressor of a Blosc buffer.
func bloscName(src []byte) string {
	if len(src) < C.BLOSC_MIN_HEADER_LENGTH {
		return ""
	}
	return C.GoString(C.blosc_cbuffer_complib(unsafe.Pointer(&src[0])))
}

// bloscEncode compresses src (elements of typesize bytes) with cname at
// clevel and byte shuffle; for tests and writers.
func bloscEncode(src []byte, typesize int, cname string, clevel int, shuffle int) ([]byte, error) {
	dst := make([]byte, len(src)+C.BLOSC_MAX_OVERHEAD)
	cs := C.CString(cname)
	defer C.free(unsafe.Pointer(cs))
	var p unsafe.Pointer
	if len(src) > 0 {
		p = unsafe.Pointer(&src[0])
	}
	n := C.blosc_compress_ctx(C.int(clevel), C.int(shuffle), C.size_t(typesize), C.size_t(len(src)), p,
		unsafe.Pointer(&dst[0]), C.size_t(len(dst)), cs, 0, 1)
	if n <= 0 {
		return nil, fmt.Errorf("blosc: compression with %s failed (code %d)", cname, int(n))
	}
	return dst[:n], nil
}
