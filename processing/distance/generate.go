package distance

// The CUDA kernels in distance.cu are compiled to distance.ptx (committed,
// and embedded by the cuda build) with nvcc by scripts/build-ptx.sh.
//go:generate ../../scripts/build-ptx.sh
