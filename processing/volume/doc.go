// Package volume is voxlab's model of a 3D volume: its shape (z, y, x),
// element type and voxel size, backed by a lazy Source that reads any slab
// of whole z planes into a caller's buffer without touching the rest of the
// file.
//
// Readers and writers for NPY, MRC/MRCS and TIFF (multi-page files, classic
// or BigTIFF, and folders of 2D planes sorted naturally; read uncompressed
// or with LZW, Deflate, PackBits or Zstandard strips or tiles, with the
// horizontal or floating-point predictor; OME-TIFF channels) and folders
// of MRC maps live here, for every element type (int8 to float64; MRC's
// float16 is read as float32); inputs are opened through fileio, which
// refuses anything but a regular file; HDF5 and
// NeXus live in the h5 sub-package (it needs cgo and libhdf5) and register
// themselves with RegisterFormat, so algorithm packages can import volume
// without linking libhdf5. Open, Create and Inspect pick the format from
// the file name, or a folder's from what it holds (Format.Detect: a Zarr
// or N5 store under any name, a folder of MRC maps); Inspect validates a
// file and describes it for `voxlab info`.
//
// A Stack is a set of equally shaped maps (cryo-EM volumes) read lazily by
// map: OpenStack opens 4D and flat (n, box³) NPY arrays, MRC stacks and
// folders of MRC files; CreateStack writes them. Subset picks frames of a
// Source by index (the projections of a NeXus scan) and Concat joins
// sources along z.
//
// Sources that decode whole chunks (compressed Zarr, chunked HDF5) are
// Chunked: they say their chunk layout and what their reads hold (the
// chunks decoded at once and a cache of decoded chunks, ChunkCache), and
// a pipeline's plan sets both (ReadOptions, Readers), so that reading
// slab after slab decodes each chunk once within the budget.
//
// Slab buffers are raw bytes in the machine's native byte order (little
// endian on every platform voxlab supports); Uint16s, Float32s and friends
// view them as typed slices without copying, ToFloat32 and ToFloat64
// convert any type, and AsFloat32 reads a source of another type as
// float32 for kernels that take only that. Files in big-endian order are
// converted as they are read. Writers write to a temporary file (or
// folder) beside the target and rename it on Commit, so a failed or
// cancelled write leaves nothing behind.
package volume
