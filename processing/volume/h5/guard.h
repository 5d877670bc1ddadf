// voxlab's checks around libhdf5's filter pipeline, see guard.c.
#ifndef VOXLAB_GUARD_H
#define VOXLAB_GUARD_H

#include <stddef.h>

#include <hdf5.h>

#define VOX_MAXF 32  // filters in one pipeline
#define VOX_MSG 512  // bytes of a failure's reason

// vox_init registers voxlab's decoders and guards with libhdf5; it
// returns 0, or -1 with the reason in msg.
int vox_init(char *msg, size_t len);

// vox_guard makes sure filter id decodes through voxlab's guard (its
// own decoder, or the real filter wrapped): 0, or -1 with the reason
// (the filter is missing, no guard slot is left) in msg.
int vox_guard(int id, char *msg, size_t len);

// vox_encoder makes filter id encode through its plugin (voxlab's guard
// still decodes it); -2 when no plugin is found.
int vox_encoder(int id, char *msg, size_t len);

// vox_begin starts a read: every chunk it decodes runs the filters ids
// (in the order they run, the pipeline's last first) and must decode to
// exactly chunk bytes; a filter whose output another filter reads may
// produce at most bound bytes; elem is the element size.
void vox_begin(const int *ids, int n, size_t chunk, size_t bound, size_t elem);

// vox_end ends a read. It returns 1 and copies the first decoder's
// reason to msg when a filter failed, else 0.
int vox_end(char *msg, size_t len);

// vox_peak returns the largest buffer a voxlab decoder allocated since
// vox_peak_reset (tests).
size_t vox_peak(void);
void vox_peak_reset(void);

// vox_scan looks up the chunks a read of the box [start, start+count)
// touches, in a dataset of the given rank, chunk shape and pipeline
// length (nfilters): an allocated chunk must be stored in at most
// maxstored bytes, and one that no filter decodes (the dataset has none,
// or the chunk's mask skips them all) in exactly chunk bytes. It returns
// 0 with the mask all allocated chunks share in *mask, 1 when their masks
// differ, or -1 with the offending chunk's offset in bad and the reason in
// msg.
int vox_scan(hid_t ds, int rank, const hsize_t *start, const hsize_t *count, const hsize_t *cdim,
             int nfilters, size_t chunk, size_t maxstored, unsigned *mask, hsize_t *bad, char *msg,
             size_t len);

// vox_read reads the selection fs of ds into buf (memory selection ms)
// as the file's own type. On error it returns -1 with libhdf5's error
// stack, most specific first, in msg.
int vox_read(hid_t ds, hid_t ms, hid_t fs, void *buf, char *msg, size_t len);

// vox_read_box reads the box [off, off+count) of ds, a dataset of the
// given rank, into the box at moff of buf, an array of shape mdims, as
// the file's own type; -1 with the error stack in msg on error.
int vox_read_box(hid_t ds, int rank, const hsize_t *off, const hsize_t *count, const hsize_t *mdims,
                 const hsize_t *moff, void *buf, char *msg, size_t len);

// vox_zfp_bytes returns the decoded size of the field H5Z-ZFP's client
// values declare (0: not as expected).
unsigned long long vox_zfp_bytes(const unsigned *cd, size_t ncd);

// vox_stack writes the current error stack, most specific first, to msg.
void vox_stack(char *msg, size_t len);

#endif
