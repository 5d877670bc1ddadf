package gpu

// DetectOps are the kernels of the cell detection pipeline.
type DetectOps interface{}
