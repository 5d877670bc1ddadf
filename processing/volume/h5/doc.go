// Package h5 reads and writes HDF5 files and NeXus tomography scans for
// voxlab. It needs cgo and libhdf5 (through gonum.org/v1/hdf5), which is
// why it is a package of its own: importing it registers the HDF5 format
// (".h5", ".hdf5", ".hdf", ".nxs", ".nx5") with volume.RegisterFormat, so
// volume.Open("scan.h5:/entry/data") works, while packages that only need
// NPY, MRC or TIFF never link libhdf5.
//
// Reads select a hyperslab of whole planes along the first dimension, so
// a slab read touches only those planes (and, for chunked datasets, the
// chunks holding them). libhdf5 as Debian builds it is not thread-safe,
// so every call into it holds one package-wide lock.
//
// A NeXus scan is found at Diamond's paths (TomoData, TomoImageKey,
// TomoAngles), or else in an NXtomo entry laid out as the NeXus application
// definition has it (frames at /entry/instrument/detector/data or
// /entry/data/data beside an image_key); OpenNeXus splits its frames by
// image_key into projections, flats and darks.
//
// Compressed datasets decode through libhdf5's filters: gzip and the
// others built in, Debian's plugins (LZ4, BZip2, Blosc, LZF, ZFP; their
// folder is added to the plugin path at start, see filters.go) and
// voxlab's own decoder of bitshuffle (+LZ4), which Debian lacks
// (bitshuffle.c). A dataset whose filter is missing fails to open with
// an error naming the filter and the package that provides it.
// Datasets of int8, uint8, int16, uint16, int32, uint32, float32 and
// float64, in either byte order, read as those types.
//
// Files that are not volumes — Keras weight files — are read as a Tree
// of groups, string attributes and datasets of any rank (tree.go),
// registered as volume.OpenTree's opener, so that their readers
// (processing/classify/keras) do not link libhdf5 themselves;
// write_tree.go writes such files.
//
// Writers create a temporary file beside the target and rename it when
// committed: Create and File for several datasets with attributes (the
// dezinging output), volume.Create("out.h5:/data", info) for one volume,
// WriteNeXus for a NeXus scan.
package h5
