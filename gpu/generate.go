package gpu

// The CUDA kernels in kernels/*.cu are compiled to PTX (committed, and
// embedded by the cuda build) with nvcc; see kernels/build.sh.
//go:generate kernels/build.sh
