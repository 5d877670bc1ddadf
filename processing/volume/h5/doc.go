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
// Writers create a temporary file beside the target and rename it when
// committed: Create and File for several datasets with attributes (the
// dezinging output), volume.Create("out.h5:/data", info) for one volume,
// WriteNeXus for a NeXus scan.
package h5
