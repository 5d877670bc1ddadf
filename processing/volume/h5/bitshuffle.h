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
};

// voxlab_bshuf_lz4_size returns the decoded size an LZ4-compressed
// bitshuffle chunk's header gives, or BSHUF_ERR_HEADER.
long long voxlab_bshuf_lz4_size(const unsigned char *in, size_t inlen, size_t elem);

// voxlab_bshuf_decode decodes one chunk of elem-byte elements into out,
// which must hold exactly the decoded size (outlen). With lz4 the chunk
// has the 12-byte header and LZ4 blocks; without, it is only shuffled,
// in blocks of block elements (0: bitshuffle's default). Returns outlen
// or a negative BSHUF_ERR_*.
long long voxlab_bshuf_decode(const unsigned char *in, size_t inlen, unsigned char *out,
                              size_t outlen, size_t elem, size_t block, int lz4);

// voxlab_bshuf_register registers the decoder with libhdf5 as filter
// 32008; negative on error.
int voxlab_bshuf_register(void);

#endif
