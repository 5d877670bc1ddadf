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
