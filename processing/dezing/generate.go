package dezing

// The CUDA kernels in dezing.cu are compiled to dezing.ptx (committed,
// and embedded by the cuda build) with nvcc by scripts/build-ptx.sh; the
// CPU median they match is processing/zinger's.
//go:generate ../../scripts/build-ptx.sh
