// Package convert is `voxlab convert IN OUT`: any volume voxlab reads (a
// level, channel or time point of a store, an HDF5 dataset, a crop of
// it) written as NPY, TIFF (multi-page, BigTIFF past 4 GiB, or a folder
// of planes), HDF5 (chunked, gzip/LZ4/Blosc) or OME-Zarr 0.4/0.5 with a
// multiscale pyramid built on the way, optionally cast to another pixel
// type, which must hold every value exactly.
//
// It is a pipeline (processing/pipeline): its spec makes the command,
// `voxlab plan convert`, the YAML step and the panel's form. A run
// streams slabs of whole planes: read (the crop's rows and columns only
// when the reader can), cast, written, and reduced level by level into
// the pyramid (pyramid.go) so that no level is ever held whole; the
// plan (plan.go) counts the slab, the cast slab, each level's
// accumulator and chunk buffer, and the writer's own buffers. It does
// not split into SLURM tasks: a conversion is bound by one disk's
// bandwidth, not by compute.
package convert
