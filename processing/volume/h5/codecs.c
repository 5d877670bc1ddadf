// voxlab's decoders of the HDF5 filters whose chunks say nothing of
// their size (gzip, BZip2, LZF: libhdf5's and the plugins' decoders grow
// their buffer until the stream ends, so a small chunk can decode to
// gigabytes) or whose plugins trust the chunk (the LZ4 and Blosc plugins
// read past a truncated chunk). Each one decodes into a buffer of at most
// the size the caller allows, with the compression library itself
// (zlib, libbz2, liblzf, liblz4, libblosc, libzstd): only the HDF5
// framing around the compressed bytes is voxlab's. The framings are the
// filters' own: H5Zdeflate.c (zlib stream), H5Zbzip2.c of PyTables (one
// bzip2 stream), lzf_filter.c of h5py (raw LZF), H5Zlz4.c of the HDF
// Group's plugins (header and blocks, below), hdf5-blosc (one Blosc
// buffer), HDF5Plugin-Zstandard (one zstd frame) and bitshuffle's
// (bitshuffle.c).

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <blosc.h>
#include <bzlib.h>
#include <hdf5.h>
#include <lz4.h>
#include <liblzf/lzf.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "bitshuffle.h"
#include "codecs.h"

static void say(char *msg, size_t len, const char *format, ...) {
	va_list ap;
	va_start(ap, format);
	vsnprintf(msg, len, format, ap);
	va_end(ap);
}

static uint64_t be64(const unsigned char *p) {
	uint64_t v = 0;
	for (int i = 0; i < 8; i++) v = v << 8 | p[i];
	return v;
}

static uint32_t be32(const unsigned char *p) {
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

// alloc takes an output buffer from libhdf5's allocator (which frees
// chunk buffers) and records its size for vox_peak.
static unsigned char *alloc(size_t n, char *msg, size_t len) {
	unsigned char *p = H5allocate_memory(n ? n : 1, 0);
	if (p == NULL) {
		say(msg, len, "cannot allocate %zu bytes", n);
		return NULL;
	}
	vox_note_alloc(n);
	return p;
}

// declared checks a size the chunk declares against the cap: more is
// refused before anything is allocated.
static int declared(const char *what, uint64_t n, size_t cap, char *msg, size_t len) {
	if (n > cap) {
		say(msg, len, "%s declares %llu decoded bytes, more than the %zu the chunk holds", what,
		    (unsigned long long)n, cap);
		return 0;
	}
	return 1;
}

size_t vox_dec_gzip(const unsigned *cd, size_t ncd, const unsigned char *in, size_t n, size_t cap,
                    unsigned char **out, char *msg, size_t len) {
	(void)cd, (void)ncd;
	unsigned char *dst = alloc(cap, msg, len);
	if (dst == NULL) return 0;
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit(&z) != Z_OK) {
		H5free_memory(dst);
		say(msg, len, "gzip: cannot start zlib");
		return 0;
	}
	size_t got = 0;
	int r = Z_OK;
	// zlib counts in uInt: feed and drain in pieces under 4 GiB.
	const unsigned char *src = in;
	size_t left = n;
	z.next_out = dst;
	while (r == Z_OK) {
		if (z.avail_in == 0 && left > 0) {
			z.next_in = (unsigned char *)src;
			z.avail_in = left > (1u << 30) ? (1u << 30) : (uInt)left;
			src += z.avail_in;
			left -= z.avail_in;
		}
		size_t room = cap - got;
		z.avail_out = room > (1u << 30) ? (1u << 30) : (uInt)room;
		uInt before = z.avail_out;
		r = inflate(&z, Z_NO_FLUSH);
		got += before - z.avail_out;
		if (r == Z_OK && got == cap && z.avail_in + left > 0) {
			// Output full with input left: one more byte decides.
			unsigned char extra;
			z.next_out = &extra;
			z.avail_out = 1;
			r = inflate(&z, Z_NO_FLUSH);
			if (z.avail_out == 0) {
				r = Z_BUF_ERROR;
				got = cap + 1;
			}
		}
		if (r == Z_BUF_ERROR && got < cap && z.avail_in + left == 0) break; // input ended
	}
	const char *zmsg = z.msg;
	inflateEnd(&z);
	if (r == Z_STREAM_END) {
		*out = dst;
		return got;
	}
	H5free_memory(dst);
	if (got > cap)
		say(msg, len, "gzip stream decodes to more than the %zu bytes the chunk holds", cap);
	else if (r == Z_BUF_ERROR || r == Z_OK)
		say(msg, len, "gzip stream ends after %zu of the chunk's %zu bytes (truncated)", got, cap);
	else
		say(msg, len, "gzip: %s", zmsg ? zmsg : "invalid stream");
	return 0;
}

size_t vox_dec_bzip2(const unsigned *cd, size_t ncd, const unsigned char *in, size_t n,
                     size_t cap, unsigned char **out, char *msg, size_t len) {
	(void)cd, (void)ncd;
	if (n > UINT32_MAX || cap > UINT32_MAX) {
		say(msg, len, "bzip2: chunk over 4 GiB");
		return 0;
	}
	unsigned char *dst = alloc(cap, msg, len);
	if (dst == NULL) return 0;
	unsigned int got = (unsigned int)cap;
	int r = BZ2_bzBuffToBuffDecompress((char *)dst, &got, (char *)in, (unsigned int)n, 0, 0);
	if (r == BZ_OK) {
		*out = dst;
		return got;
	}
	H5free_memory(dst);
	switch (r) {
	case BZ_OUTBUFF_FULL:
		say(msg, len, "bzip2 stream decodes to more than the %zu bytes the chunk holds", cap);
		break;
	case BZ_UNEXPECTED_EOF:
		say(msg, len, "bzip2 stream ends early (truncated)");
		break;
	case BZ_DATA_ERROR_MAGIC:
		say(msg, len, "bzip2: not a bzip2 stream");
		break;
	default:
		say(msg, len, "bzip2: damaged stream (error %d)", r);
	}
	return 0;
}

size_t vox_dec_lzf(const unsigned *cd, size_t ncd, const unsigned char *in, size_t n, size_t cap,
                   unsigned char **out, char *msg, size_t len) {
	(void)cd, (void)ncd;
	if (n > UINT32_MAX || cap > UINT32_MAX) {
		say(msg, len, "lzf: chunk over 4 GiB");
		return 0;
	}
	unsigned char *dst = alloc(cap, msg, len);
	if (dst == NULL) return 0;
	errno = 0;
	unsigned int got = lzf_decompress(in, (unsigned int)n, dst, (unsigned int)cap);
	if (got > 0 || (cap == 0 && errno == 0)) {
		*out = dst;
		return got;
	}
	int e = errno;
	H5free_memory(dst);
	if (e == E2BIG)
		say(msg, len, "lzf data decode to more than the %zu bytes the chunk holds", cap);
	else
		say(msg, len, "lzf: damaged data");
	return 0;
}

// The LZ4 filter's chunk (H5Zlz4.c): 8-byte big-endian decoded size,
// 4-byte big-endian block size, then per block a 4-byte big-endian
// stored size and the block: LZ4 when smaller than the block, else the
// block's bytes as they are.
size_t vox_dec_lz4(const unsigned *cd, size_t ncd, const unsigned char *in, size_t n, size_t cap,
                   unsigned char **out, char *msg, size_t len) {
	(void)cd, (void)ncd;
	if (n < 12) {
		say(msg, len, "lz4: chunk of %zu bytes is shorter than its header", n);
		return 0;
	}
	uint64_t total = be64(in);
	uint64_t block = be32(in + 8);
	if (!declared("lz4 header", total, cap, msg, len)) return 0;
	if (block > total) block = total;
	if (block == 0 && total > 0) {
		say(msg, len, "lz4: block size 0");
		return 0;
	}
	unsigned char *dst = alloc(total, msg, len);
	if (dst == NULL) return 0;
	size_t pos = 12, done = 0;
	while (done < total) {
		size_t bs = total - done < block ? total - done : block;
		if (n - pos < 4) goto trunc;
		uint32_t cs = be32(in + pos);
		pos += 4;
		if (cs > n - pos) goto trunc;
		if (cs == bs) {
			memcpy(dst + done, in + pos, bs);
		} else {
			if (bs > INT32_MAX || cs > INT32_MAX) goto bad;
			int got = LZ4_decompress_safe((const char *)in + pos, (char *)dst + done, (int)cs, (int)bs);
			if (got < 0 || (size_t)got != bs) goto bad;
		}
		pos += cs;
		done += bs;
	}
	*out = dst;
	return total;
trunc:
	H5free_memory(dst);
	say(msg, len, "lz4: block runs past the end of the chunk (truncated)");
	return 0;
bad:
	H5free_memory(dst);
	say(msg, len, "lz4: block at byte %zu does not decode to its %llu bytes", pos - 4,
	    (unsigned long long)(total - done < block ? total - done : block));
	return 0;
}

size_t vox_dec_blosc(const unsigned *cd, size_t ncd, const unsigned char *in, size_t n,
                     size_t cap, unsigned char **out, char *msg, size_t len) {
	(void)cd, (void)ncd;
	size_t total = 0;
	if (blosc_cbuffer_validate(in, n, &total) < 0) {
		say(msg, len, "blosc: invalid header, or the buffer is longer than the %zu stored bytes", n);
		return 0;
	}
	if (!declared("blosc header", total, cap, msg, len)) return 0;
	unsigned char *dst = alloc(total, msg, len);
	if (dst == NULL) return 0;
	int got = blosc_decompress_ctx(in, dst, total, 1);
	if (got < 0 || (size_t)got != total) {
		H5free_memory(dst);
		say(msg, len, "blosc: damaged buffer (blosc_decompress returned %d)", got);
		return 0;
	}
	*out = dst;
	return total;
}

size_t vox_dec_zstd(const unsigned *cd, size_t ncd, const unsigned char *in, size_t n, size_t cap,
                    unsigned char **out, char *msg, size_t len) {
	(void)cd, (void)ncd;
	unsigned long long size = ZSTD_getFrameContentSize(in, n);
	if (size == ZSTD_CONTENTSIZE_ERROR) {
		say(msg, len, "zstd: not a zstd frame");
		return 0;
	}
	size_t want = cap;
	if (size != ZSTD_CONTENTSIZE_UNKNOWN) {
		if (!declared("zstd frame", size, cap, msg, len)) return 0;
		want = (size_t)size;
	}
	unsigned char *dst = alloc(want, msg, len);
	if (dst == NULL) return 0;
	size_t got = ZSTD_decompress(dst, want, in, n);
	if (ZSTD_isError(got)) {
		H5free_memory(dst);
		if (ZSTD_getErrorCode(got) == ZSTD_error_dstSize_tooSmall)
			say(msg, len, "zstd frame decodes to more than the %zu bytes the chunk holds", cap);
		else
			say(msg, len, "zstd: %s", ZSTD_getErrorName(got));
		return 0;
	}
	*out = dst;
	return got;
}

// bitshuffle's client values: filter version, library version, element
// size, block size (0: default), compressor (0 none, 2 LZ4, 3 zstd),
// zstd level.
size_t vox_dec_bitshuffle(const unsigned *cd, size_t ncd, const unsigned char *in, size_t n,
                          size_t cap, unsigned char **out, char *msg, size_t len) {
	if (ncd < 3 || cd[2] == 0) {
		say(msg, len, "bitshuffle: no element size among the filter's values");
		return 0;
	}
	size_t elem = cd[2];
	size_t block = ncd > 3 ? cd[3] : 0;
	int comp = ncd > 4 ? (int)cd[4] : 0;
	if (comp != 0 && comp != BSHUF_COMP_LZ4 && comp != BSHUF_COMP_ZSTD) {
		say(msg, len, "bitshuffle with compressor %d, which voxlab does not know (0: none, 2: LZ4, 3: zstd)", comp);
		return 0;
	}
	size_t total = n;
	if (comp) {
		long long t = voxlab_bshuf_lz4_size(in, n, elem);
		if (t < 0) {
			say(msg, len, "bitshuffle: chunk of %zu bytes has no valid header", n);
			return 0;
		}
		total = (size_t)t;
	}
	if (!declared("bitshuffle header", total, cap, msg, len)) return 0;
	unsigned char *dst = alloc(total, msg, len);
	if (dst == NULL) return 0;
	long long r = voxlab_bshuf_decode(in, n, dst, total, elem, block, comp);
	if (r < 0) {
		H5free_memory(dst);
		say(msg, len, "bitshuffle: %s", voxlab_bshuf_error(r));
		return 0;
	}
	*out = dst;
	return total;
}
