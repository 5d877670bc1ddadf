// Decoder of the bitshuffle HDF5 filter (id 32008), see bitshuffle.c.
#ifndef VOXLAB_BITSHUFFLE_H
#define VOXLAB_BITSHUFFLE_H

#include <stddef.h>

// Errors of voxlab_bshuf_decode.
enum {
	BSHUF_ERR_HEADER = -1,  // chunk shorter than its header, or invalid sizes
	BSHUF_ERR_TRUNC = -2,   // a block runs past the end of the chunk
	BSHUF_ERR_LZ4 = -3,     // an LZ4 block does not decode to its size
	BSHUF_ERR_OUTSIZE = -4, // the output buffer has the wrong size
	BSHUF_ERR_NOMEM = -5,
	BSHUF_ERR_ZSTD = -6,    // a zstd block does not decode to its size
};

// Compressors of bitshuffle's fifth client value.
enum { BSHUF_COMP_LZ4 = 2, BSHUF_COMP_ZSTD = 3 };

// voxlab_bshuf_lz4_size returns the decoded size an LZ4-compressed
// bitshuffle chunk's header gives, or BSHUF_ERR_HEADER.
long long voxlab_bshuf_lz4_size(const unsigned char *in, size_t inlen, size_t elem);

// voxlab_bshuf_decode decodes one chunk of elem-byte elements into out,
// which must hold exactly the decoded size (outlen). With a compressor
// (comp BSHUF_COMP_LZ4 or BSHUF_COMP_ZSTD) the chunk has the 12-byte
// header and compressed blocks; without (0), it is only shuffled, in
// blocks of block elements (0: bitshuffle's default). Returns outlen or
// a negative BSHUF_ERR_*.
long long voxlab_bshuf_decode(const unsigned char *in, size_t inlen, unsigned char *out,
                              size_t outlen, size_t elem, size_t block, int comp);

// voxlab_bshuf_error describes a BSHUF_ERR_*.
const char *voxlab_bshuf_error(long long r);

#endif
