// Package roundtrip holds the tests of voxlab convert across every format
// voxlab reads and writes, HDF5 and Zarr included: the convert package
// itself, a pipeline, links no C library even in its tests
// (docs/ARCHITECTURE.md), so the tests that need libhdf5 and c-blosc sit
// here. It has no code of its own.
package roundtrip
