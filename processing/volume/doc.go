// Package volume is voxlab's model of a 3D volume: its shape (z, y, x),
// element type and voxel size, backed by a lazy Source that reads any slab of
// whole z planes into a caller's buffer without touching the rest of the file.
//
// Readers and writers for NPY, MRC/MRCS and TIFF live here; HDF5 and NeXus
// live in the h5 sub-package (it needs cgo and libhdf5) and register
// themselves with RegisterFormat, so algorithm packages can import volume
// without linking libhdf5.
//
// Slab buffers are raw bytes in the machine's native byte order (little
// endian on every platform voxlab supports); Uint16s, Float32s and friends
// view them as typed slices without copying.
package volume
