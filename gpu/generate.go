package gpu

// The device's own CUDA kernels in kernels/*.cu (fills and the tests'
// probes) are compiled to PTX (committed, and embedded by the cuda build)
// with nvcc by scripts/build-ptx.sh, which also builds the pipelines'.
//go:generate ../scripts/build-ptx.sh
