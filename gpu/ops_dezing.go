package gpu

// DezingOps are the kernels of the dezinging pipeline.
type DezingOps interface{}
