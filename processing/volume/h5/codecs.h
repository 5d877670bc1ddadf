// voxlab's decoders of HDF5 filters, see codecs.c.
#ifndef VOXLAB_CODECS_H
#define VOXLAB_CODECS_H

#include <stddef.h>

// vox_decoder decodes the n bytes at in (a chunk as the filter stored
// it; cd are the filter's client values) into a new buffer of at most
// cap bytes, from libhdf5's allocator, returned in *out. It returns the
// decoded size, or 0 with the reason in msg (out untouched).
typedef size_t (*vox_decoder)(const unsigned *cd, size_t ncd, const unsigned char *in, size_t n,
                              size_t cap, unsigned char **out, char *msg, size_t len);

size_t vox_dec_gzip(const unsigned *, size_t, const unsigned char *, size_t, size_t, unsigned char **, char *, size_t);
size_t vox_dec_bzip2(const unsigned *, size_t, const unsigned char *, size_t, size_t, unsigned char **, char *, size_t);
size_t vox_dec_lzf(const unsigned *, size_t, const unsigned char *, size_t, size_t, unsigned char **, char *, size_t);
size_t vox_dec_lz4(const unsigned *, size_t, const unsigned char *, size_t, size_t, unsigned char **, char *, size_t);
size_t vox_dec_blosc(const unsigned *, size_t, const unsigned char *, size_t, size_t, unsigned char **, char *, size_t);
size_t vox_dec_zstd(const unsigned *, size_t, const unsigned char *, size_t, size_t, unsigned char **, char *, size_t);
size_t vox_dec_bitshuffle(const unsigned *, size_t, const unsigned char *, size_t, size_t, unsigned char **, char *, size_t);

// vox_note_alloc records a decoder's allocation for vox_peak.
void vox_note_alloc(size_t n);

#endif
