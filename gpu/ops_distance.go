package gpu

// DistanceOps are the kernels of the distance-matrix pipeline.
type DistanceOps interface{}
