package gpu

import "fmt"

// PickOps returns a pipeline's implementation (T) of the operations it
// declares for be: cpu's for the CPU backend; otherwise cuda's, when the
// pipeline's cuda build set that hook (nil in the default build) and it
// claims be (ok). Any other backend is an error naming the pipeline and
// the backend. Each pipeline calls it from its own opsFor, so that this
// package never names a pipeline's operations.
func PickOps[T any](pipeline string, be Backend, cpu func(*CPUBackend) T, cuda func(Backend) (T, bool, error)) (T, error) {
	if c, ok := be.(*CPUBackend); ok {
		return cpu(c), nil
	}
	if cuda != nil {
		if ops, ok, err := cuda(be); ok {
			return ops, err
		}
	}
	var none T
	return none, fmt.Errorf("%s: no kernels for the %s backend (%T) in this build", pipeline, be.Name(), be)
}
