// Package dezing removes zingers — single-voxel spikes from direct hits
// on the detector — from tomography scans: the projections, and the darks
// and flats, each as its own stack, with remove_outlier (a 3D median
// outlier filter, as httomolibgpu defines it), then reduces the darks and
// flats to one frame each and optionally applies the flat-field
// correction and −log.
//
// The work runs on a gpu.Backend in blocks of frames with halo frames on
// each side, sized by processing/plan from a description of every array
// resident at once (inputs with halos, outputs, scratch, the reduced
// frames, host staging), so that the field's failure case — a 2 GiB
// device, 1800 projections of 2160 x 2560 uint16 with 20 darks and 50
// flats (httomo issue 245) — plans and runs within its budget. Results do
// not depend on the block sizes or the backend.
//
// The kernels are the package's own (Ops, ops.go): the CPU kernels
// (cpu_*.go, the median's from processing/zinger, which reconstruct's
// --dezing runs too), functions over slices that are the reference, and the CUDA
// kernels (dezing.cu, compiled to the committed dezing.ptx, launched by
// cuda_ops.go under the cuda build tag), which give the same bits. A
// backend computes them through OpsFor; package gpu provides only the
// device (buffers, transfers, streams, the launch API).
//
// The algorithm code takes volume.Sources and an Output, never files, so
// it runs on a bare machine. Spec (spec.go) is dezinging as voxlab offers
// it — `voxlab dezing`, its YAML step and its panel form — and registers
// itself: it opens a NeXus scan through volume.OpenScan (darks and flats
// by image_key) or a plain volume with darks and flats files, writes an
// HDF5 file or an OME-Zarr store through volume's container registry
// (output.go: the layout of each), and splits into tasks of projections
// whose parts the merge joins (parts.go). The HDF5 and Zarr libraries are
// the binary's to link: this package and its tests link no C library.
package dezing
