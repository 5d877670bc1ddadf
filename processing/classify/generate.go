package classify

// The CUDA kernels in classify.cu are compiled to classify.ptx (committed,
// and embedded by the cuda build) with nvcc by scripts/build-ptx.sh.
//go:generate ../../scripts/build-ptx.sh
