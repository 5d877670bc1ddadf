//go:build cuda

package gpu

// The CUDA backend must implement every operation of Backend, including
// the transfers, staging and memory accounting the pipelines build on.
var _ Backend = (*CUDABackend)(nil)
