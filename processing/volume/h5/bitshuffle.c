// A decoder for the bitshuffle HDF5 filter (id 32008), which detectors
// (Dectris Eiger, through their HDF5 writers) use and Debian 12 does not
// package. Written here rather than linked because no Debian package holds
// it; the LZ4 blocks are decoded by liblz4 (LZ4_decompress_safe) and the
// zstd blocks by libzstd (ZSTD_decompress), so only the framing and the
// bit transpose are voxlab's. The format is
// K. Masui et al., "A compression scheme for radio data in high
// performance computing", Astronomy and Computing 12 (2015), as
// implemented by github.com/kiyo-masui/bitshuffle (bshuf_h5filter.c,
// bitshuffle_core.c):
//
//   LZ4 or zstd chunk: 8-byte big-endian decoded size in bytes, 4-byte
//   big-endian block size in bytes, then per block a 4-byte big-endian
//   compressed size and an LZ4 block (compressor 2) or a zstd frame
//   (compressor 3, bitshuffle 0.4 on, as hdf5plugin writes it) that
//   decodes to the bit-shuffled block.
//   Shuffle-only chunk: the shuffled blocks one after the other.
//
// Blocks hold block_size elements, the last one the rest rounded down to
// a multiple of 8; the final (n mod 8) elements follow unshuffled and
// uncompressed. A shuffled block of n elements is 8*elem rows of n/8
// bytes: row 8j+k holds bit k of byte j of every element, element i at
// bit (i mod 8) of byte i/8.

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <zstd.h>

#include "bitshuffle.h"

#define BSHUF_FILTER 32008
// bitshuffle's default block: 8 KiB of elements, a multiple of 8, at
// least 128 (bshuf_default_block_size).
#define BSHUF_TARGET_BYTES 8192
#define BSHUF_MIN_BLOCK 128
// HDF5 chunks are at most 4 GiB.
#define BSHUF_MAX_CHUNK ((uint64_t)1 << 32)

static uint64_t be64(const unsigned char *p) {
	uint64_t v = 0;
	for (int i = 0; i < 8; i++) v = v << 8 | p[i];
	return v;
}

static uint32_t be32(const unsigned char *p) {
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static size_t default_block(size_t elem) {
	size_t b = BSHUF_TARGET_BYTES / elem / 8 * 8;
	return b < BSHUF_MIN_BLOCK ? BSHUF_MIN_BLOCK : b;
}

// transpose8 transposes the 8x8 bit matrix x, row r in byte r, column c
// in bit c of it (bit 8r+c of x): H. S. Warren, Hacker's Delight, 2nd
// ed. (2013), section 7-3, three rounds of swapping off-diagonal blocks
// of 1x1, 2x2 and 4x4 bits.
static uint64_t transpose8(uint64_t x) {
	uint64_t t;
	t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAULL;
	x = x ^ t ^ (t << 7);
	t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCULL;
	x = x ^ t ^ (t << 14);
	t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ULL;
	return x ^ t ^ (t << 28);
}

// unshuffle writes the n elements (n a multiple of 8) of a shuffled block
// in to out. For byte j of 8 elements 8g..8g+7, the bytes at column g of
// bit rows 8j..8j+7 form an 8x8 bit matrix (row k: bit k of the 8
// elements); its transpose has in byte m the byte j of element 8g+m.
static void unshuffle(unsigned char *out, const unsigned char *in, size_t n, size_t elem) {
	size_t rowlen = n / 8;
	for (size_t j = 0; j < elem; j++) {
		const unsigned char *rows = in + 8 * j * rowlen;
		for (size_t g = 0; g < rowlen; g++) {
			uint64_t x = 0;
			for (int k = 0; k < 8; k++) x |= (uint64_t)rows[k * rowlen + g] << (8 * k);
			x = transpose8(x);
			unsigned char *o = out + 8 * g * elem + j;
			for (int m = 0; m < 8; m++) o[m * elem] = (unsigned char)(x >> (8 * m));
		}
	}
}

long long voxlab_bshuf_lz4_size(const unsigned char *in, size_t inlen, size_t elem) {
	if (inlen < 12 || elem == 0) return BSHUF_ERR_HEADER;
	uint64_t total = be64(in);
	if (total > BSHUF_MAX_CHUNK || total % elem) return BSHUF_ERR_HEADER;
	return (long long)total;
}

long long voxlab_bshuf_decode(const unsigned char *in, size_t inlen, unsigned char *out,
                              size_t outlen, size_t elem, size_t block, int comp) {
	if (elem == 0 || outlen % elem) return BSHUF_ERR_HEADER;
	if (comp != 0 && comp != BSHUF_COMP_LZ4 && comp != BSHUF_COMP_ZSTD) return BSHUF_ERR_HEADER;
	int packed = comp != 0;
	size_t pos = 0;
	if (packed) {
		long long total = voxlab_bshuf_lz4_size(in, inlen, elem);
		if (total < 0) return total;
		if ((size_t)total != outlen) return BSHUF_ERR_OUTSIZE;
		uint32_t bb = be32(in + 8);
		if (bb == 0 || bb % elem) return BSHUF_ERR_HEADER;
		block = bb / elem;
		pos = 12;
	} else if (block == 0) {
		block = default_block(elem);
	}
	if (block % 8 || block > BSHUF_MAX_CHUNK / elem) return BSHUF_ERR_HEADER;
	size_t n = outlen / elem;
	size_t nfull = n / block;
	size_t last = n % block / 8 * 8;
	size_t nblocks = nfull + (last ? 1 : 0);
	unsigned char *scratch = NULL;
	if (nblocks > 0) {
		scratch = malloc((nfull ? block : last) * elem);
		if (scratch == NULL) return BSHUF_ERR_NOMEM;
	}
	size_t off = 0;
	for (size_t b = 0; b < nblocks; b++) {
		size_t m = b < nfull ? block : last;
		size_t bytes = m * elem;
		const unsigned char *src;
		if (packed) {
			if (inlen - pos < 4) goto trunc;
			uint32_t csize = be32(in + pos);
			pos += 4;
			if (csize > inlen - pos || bytes > (size_t)INT32_MAX) goto trunc;
			int ok;
			if (comp == BSHUF_COMP_LZ4) {
				int got = csize <= (uint32_t)LZ4_compressBound((int)bytes)
				              ? LZ4_decompress_safe((const char *)in + pos, (char *)scratch, (int)csize, (int)bytes)
				              : -1;
				ok = got >= 0 && (size_t)got == bytes;
			} else {
				size_t got = ZSTD_decompress(scratch, bytes, in + pos, csize);
				ok = !ZSTD_isError(got) && got == bytes;
			}
			if (!ok) {
				free(scratch);
				return comp == BSHUF_COMP_LZ4 ? BSHUF_ERR_LZ4 : BSHUF_ERR_ZSTD;
			}
			pos += csize;
			src = scratch;
		} else {
			if (inlen - pos < bytes) goto trunc;
			src = in + pos;
			pos += bytes;
		}
		unshuffle(out + off, src, m, elem);
		off += bytes;
	}
	free(scratch);
	size_t rest = outlen - off;
	if (inlen - pos < rest) return BSHUF_ERR_TRUNC;
	memcpy(out + off, in + pos, rest);
	return (long long)outlen;
trunc:
	free(scratch);
	return BSHUF_ERR_TRUNC;
}

const char *voxlab_bshuf_error(long long r) {
	switch (r) {
	case BSHUF_ERR_HEADER:
		return "invalid header or sizes";
	case BSHUF_ERR_TRUNC:
		return "chunk truncated";
	case BSHUF_ERR_LZ4:
		return "LZ4 block does not decode to its size";
	case BSHUF_ERR_ZSTD:
		return "zstd block does not decode to its size";
	case BSHUF_ERR_OUTSIZE:
		return "output size differs from the header's";
	case BSHUF_ERR_NOMEM:
		return "out of memory";
	}
	return "unknown error";
}
