//go:build cuda

package gpu

// The CUDA backend must implement every operation of Backend, including
// the pipelines' DetectOps and DistanceOps.
var _ Backend = (*CUDABackend)(nil)
