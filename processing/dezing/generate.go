package dezing

// The CUDA kernels in dezing.cu are compiled to dezing.ptx (committed,
// and embedded by the cuda build) with nvcc by scripts/build-ptx.sh; the
// kernel-3 median's sorting networks (cpu_net.go) are written by
// cpu_gen.go.
//go:generate ../../scripts/build-ptx.sh
//go:generate go run cpu_gen.go
