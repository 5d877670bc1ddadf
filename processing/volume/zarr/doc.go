// Package zarr reads Zarr v2 and v3 arrays and OME-Zarr (NGFF 0.4 and
// 0.5) image pyramids, and N5 datasets and multiscale groups, and writes
// OME-Zarr volumes, for voxlab. Importing it registers the formats
// ("zarr" and "n5") with volume.RegisterFormat; a folder is recognised
// by its metadata files (.zarray, .zgroup, .zattrs, zarr.json; N5's
// attributes.json) whatever its name, or by its extension (.zarr, .n5).
// volume.Open("brain.ome.zarr") opens level 0 of the pyramid and
// volume.Open("brain.ome.zarr:/2,c=1,t=0") level 2 of channel 1 at time
// point 0; volume.Open("stitched.n5:/setup0/timepoint0") level s0 of
// BigStitcher's pyramid.
//
// N5 shares Zarr's machinery (n5.go says what differs): its datasets
// are arrays read with their axes reversed, whose blocks carry a header
// giving their (possibly cropped) shape; raw, gzip, bzip2 (Go's
// compress/bzip2), Blosc, zstd and xz (github.com/ulikunitz/xz, after
// checking the dictionary it would allocate) blocks.
//
// A spec's part after ":/" is a comma-separated list of an array path
// inside the store (an OME-Zarr dataset path such as "0", or its index
// in the multiscales list) and the selectors c=N and t=N, which fix the
// channel and time axes of an OME-Zarr image (both default to 0).
//
// Reading is lazy: opening reads only the JSON metadata; a slab or box
// read decodes only the chunks (and, for sharded v3 arrays, the inner
// chunks of a shard) that it touches, in parallel across the CPUs. A
// read touching more than a thousand tiny chunks (under 4 KiB of each
// returned) lists the array's folder once and places only the stored
// chunks over the fill value, so a sparse store of tiny chunks costs
// what a read returns. Files are opened only when
// regular (volume/fileio), metadata is capped at 16 MiB, a chunk file
// at what its codecs can make of a chunk, and a decoded chunk at 2 GiB
// (refused at open). The
// codecs are zstd, gzip and zlib (github.com/klauspost/compress), Blosc
// (c-blosc through cgo: every Blosc internal compressor and both
// shuffles, as the file's writer used them), the v3 bytes codec in
// either byte order, transpose, crc32c and sharding_indexed; v2 arrays in
// C or F order with either dimension separator.
//
// The reference for the formats is the Zarr storage specification v2
// (https://zarr-specs.readthedocs.io/en/latest/v2/v2.0.html), v3
// (https://zarr-specs.readthedocs.io/en/latest/v3/core/index.html) with
// its sharding codec, and OME-NGFF 0.4 and 0.5
// (https://ngff.openmicroscopy.org/0.4/, https://ngff.openmicroscopy.org/0.5/).
package zarr
