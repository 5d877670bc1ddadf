package reconstruct

// The CUDA kernel in reconstruct.cu (FBP's back-projection) is compiled
// to reconstruct.ptx (committed, and embedded by the cuda build) with
// nvcc by scripts/build-ptx.sh.
//go:generate ../../scripts/build-ptx.sh
