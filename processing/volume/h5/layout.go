package h5

// gonum.org/v1/hdf5 has no call for a dataset's creation properties, so
// the chunk shape is read with the three libhdf5 calls below, written by
// hand (cgo against the same serial libhdf5 that gonum links).

// #cgo linux,!arm64 CFLAGS: -I/usr/lib/x86_64-linux-gnu/hdf5/serial/include
// #cgo linux,arm64 CFLAGS: -I/usr/lib/aarch64-linux-gnu/hdf5/serial/include
// #cgo linux,!arm64 LDFLAGS: -L/usr/lib/x86_64-linux-gnu/hdf5/serial/
// #cgo linux,arm64 LDFLAGS: -L/usr/lib/aarch64-linux-gnu/hdf5/serial/
// #cgo LDFLAGS: -lhdf5
// #include <hdf5.h>
//
// // chunkDims writes the chunk shape of dataset ds into dims (rank at
// // most 32) and returns the rank, 0 for a dataset that is not chunked,
// // or -1 on error.
// static int chunkDims(hid_t ds, hsize_t *dims) {
// 	hid_t dcpl = H5Dget_create_plist(ds);
// 	if (dcpl < 0) return -1;
// 	int rank = 0;
// 	if (H5Pget_layout(dcpl) == H5D_CHUNKED) rank = H5Pget_chunk(dcpl, 32, dims);
// 	H5Pclose(dcpl);
// 	return rank;
// }
//
// // contiguousStored returns the bytes stored for a contiguous dataset,
// // or -1 for one stored otherwise (chunked, compact, external) or on
// // error.
// static long long contiguousStored(hid_t ds) {
// 	hid_t dcpl = H5Dget_create_plist(ds);
// 	if (dcpl < 0) return -1;
// 	int contiguous = H5Pget_layout(dcpl) == H5D_CONTIGUOUS && H5Pget_external_count(dcpl) == 0;
// 	H5Pclose(dcpl);
// 	return contiguous ? (long long)H5Dget_storage_size(ds) : -1;
// }
//
// // cacheBytes returns the bytes of the chunk cache the dataset has (as
// // libhdf5 applies it), or -1 on error.
// static long long cacheBytes(hid_t ds) {
// 	hid_t dapl = H5Dget_access_plist(ds);
// 	if (dapl < 0) return -1;
// 	size_t slots, bytes;
// 	double w0;
// 	herr_t err = H5Pget_chunk_cache(dapl, &slots, &bytes, &w0);
// 	H5Pclose(dapl);
// 	return err < 0 ? -1 : (long long)bytes;
// }
import "C"

import (
	"unsafe"

	"gonum.org/v1/hdf5"
)

// chunkShape returns the chunk shape of ds, or nil when it is stored
// contiguously (or compactly). Call with lib held.
func chunkShape(ds *hdf5.Dataset) []int {
	var dims [32]C.hsize_t
	rank := int(C.chunkDims(C.hid_t(ds.ID()), (*C.hsize_t)(unsafe.Pointer(&dims[0]))))
	if rank <= 0 {
		return nil
	}
	out := make([]int, rank)
	for i := range out {
		out[i] = int(dims[i])
	}
	return out
}

// contiguousStored returns the bytes a contiguous dataset stores in the
// file, and false for a dataset stored otherwise: chunks may be missing
// (read as the fill value) or compressed, so their total says nothing of
// the declared shape. Call with lib held.
func contiguousStored(ds *hdf5.Dataset) (int64, bool) {
	n := int64(C.contiguousStored(C.hid_t(ds.ID())))
	return n, n >= 0
}

// cacheInEffect returns the bytes of ds's chunk cache as libhdf5 applies
// it. Call with lib held.
func cacheInEffect(ds *hdf5.Dataset) int64 { return int64(C.cacheBytes(C.hid_t(ds.ID()))) }
