// Package zinger holds the CPU kernel of remove_outlier, the 3D median
// outlier filter that removes zingers (single-voxel spikes from direct
// hits on the detector) as httomolibgpu's misc/corr.py defines it and
// scipy.ndimage's median_filter computes the median (mode='nearest'):
// a voxel becomes the median of its kernel³ neighbourhood where it
// differs from it by at least the threshold dif.
//
// It is shared by the pipelines that dezing (processing/dezing, whose
// Ops run it on the CPU backend, and processing/reconstruct, which runs
// it on the blocks of detector rows it reads), so that neither imports
// the other. Median takes slices, destination first, and splits the
// work over workers with per-worker scratch (WorkerScratch), so nothing
// is allocated per voxel, row or plane. The kernel-3 median is Adams'
// separable sorting networks (k3.go, with net.go written by gen.go:
// `go generate ./processing/zinger`); kernels 5 to 13 use bounds on
// typical data (bound.go) and sorted slabs elsewhere (slab.go).
package zinger

//go:generate go run gen.go
