// Package demo writes voxlab's demo datasets, deterministically from a
// seed: a NeXus tomography scan of a 3D phantom about an off-centre
// axis, with stripes and injected zingers, and its darks and flats, a light-sheet-like brain volume with bright cells at known
// positions and their ground-truth CSV, and two sets of cryo-EM-like maps
// with a mask. The small size is for tests and first looks; Large is for
// benchmarks.
package demo
