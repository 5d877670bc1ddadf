package train

import "github.com/voxlab/voxlab/processing/classify"

// parallelFor runs f(lo, hi) over [0, n) in up to workers contiguous
// chunks at once. The chunks write disjoint elements, so results do not
// depend on the split.
func parallelFor(n, workers int, f func(lo, hi int)) { parallelForCost(n, 1, workers, f) }

// parallelForCost is parallelFor over n items of cost values each: a
// loop is split only when its chunks are worth a goroutine (4096 values
// each at least).
func parallelForCost(n, cost, workers int, f func(lo, hi int)) {
	classify.SplitRange(n, max(1, min(workers, n*cost/4096+1)), f)
}
