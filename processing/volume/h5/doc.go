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
// Without a dataset named, Open follows soft and external links (NeXus
// files keep their frames in the detector's own file) and picks the only
// 3D dataset, a scan's frames, or the only NXdata signal; otherwise its
// error lists the 3D (or 2D) candidates with shape, dtype, chunks and
// filters, and a link to a missing file says so (candidates.go,
// links.go).
//
// A NeXus scan is found at Diamond's paths (TomoData, TomoImageKey,
// TomoAngles), or else in an NXtomo entry laid out as the NeXus application
// definition has it (frames at /entry/instrument/detector/data or
// /entry/data/data beside an image_key, or data and image_key side by side
// in a detector group of the entry's instrument, as DIAD writes them);
// OpenNeXus splits its frames by image_key into projections, flats and
// darks. Open of a scan with no dataset named gives its projections, as
// every command opens it; volume.PartOf says what they leave out.
//
// Virtual datasets (vds.go) are read mapping by mapping: each source
// opens as a dataset of its own, so its chunks go through the guard
// below, and its elements are placed where the mapping puts them.
//
// Compressed datasets decode through libhdf5's filter pipeline, with
// every filter behind voxlab's guard (guard.c): gzip, BZip2, LZF, LZ4,
// Blosc, Zstd and bitshuffle (+LZ4 or +Zstd) through voxlab's own
// decoders over the compression libraries (codecs.c, bitshuffle.c), the
// others (shuffle, fletcher32, szip, nbit, scaleoffset, ZFP and any other
// plugin on the plugin path, Debian's folder appended at start) through
// the real filter. Before each read the chunks it touches are looked up
// in the chunk index; a chunk stored in more than a chunk can take, or
// whose decoding would exceed or fall short of the chunk's size, is an
// error naming the file, dataset and chunk, with the decoder's reason,
// and nothing larger than a chunk is ever allocated for it
// (DecodeBytes). A dataset whose filter is missing fails to open with an
// error naming the filter and the package that provides it.
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
