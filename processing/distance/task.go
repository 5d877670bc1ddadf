package distance

import (
	"context"
	"fmt"
	"slices"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/task"
)

// A run splits into cluster tasks by tiles of ground-truth rows. Run
// fills the matrices tile by tile — a tile, or a chunk in low-memory
// mode, is a block of ground-truth rows computed by one matrix product
// per column segment — and a product's values depend, in their last
// bits, on which rows share the tile (BLAS kernels block by rows). So a
// task computes whole tiles of the whole run, of the whole run's tile
// size (TaskTile): its rows are the whole run's rows bit for bit, and
// the merged matrices are the single-process ones (TestTasksMergeToWhole).

// TaskTile is the tile size of a split run: the whole run's, as it would
// plan it on be (cfg.Chunk, or the planner's choice for the budget).
// Every task and the merge must use the same.
func TaskTile(cfg Config, gt, sub Maps, be gpu.Backend) (int, error) {
	whole := cfg
	whole.Rows = [2]int{}
	pl, err := PlanRun(whole, gt, sub, be)
	if err != nil {
		return 0, err
	}
	return pl.Block(), nil
}

// TaskRows returns the ground-truth rows [lo, hi) task t of a split run
// computes: whole tiles of tile rows, the tiles shared among the tasks as
// evenly as task.Task.Range shares units. It is empty when there are
// more tasks than tiles.
func TaskRows(ngt, tile int, t task.Task) (lo, hi int) {
	if tile < 1 {
		return 0, 0
	}
	a, b := t.Range((ngt + tile - 1) / tile)
	return min(a*tile, ngt), min(b*tile, ngt)
}

// RunTask computes task t of a split run, with tiles of tile rows (from
// TaskTile): Run restricted to the task's rows. A task without rows
// checks the configuration and reads nothing; its result has no rows.
func RunTask(ctx context.Context, p *job.Progress, be gpu.Backend, cfg Config, gt, sub Maps, tile int, t task.Task) (*Result, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	if tile < 1 {
		return nil, fmt.Errorf("tile of %d rows: want at least 1", tile)
	}
	lo, hi := TaskRows(gt.Len(), tile, t)
	tc := cfg
	tc.Chunk, tc.AutoChunk = tile, false
	if lo == hi {
		tc.Rows = [2]int{}
		if _, err := PlanRun(tc, gt, sub, be); err != nil {
			return nil, err
		}
		p.Stage("distances", 0, "rows")
		return &Result{Metrics: cfg.Metrics, Matrices: make([][]float64, len(cfg.Metrics)), NSub: sub.Len(), Row0: lo,
			LowMemory: cfg.LowMemory, Box: gt.Box(), Chunk: tile}, nil
	}
	tc.Rows = [2]int{lo, hi}
	return Run(ctx, p, be, tc, gt, sub)
}

// Merge joins the results of the tasks of a split run over ngt
// ground-truth maps, given in task order, into the whole run's: the
// matrices row block after row block. The rows must tile [0, ngt) and the
// tasks agree on the metrics, the submitted maps and the pipeline (the
// tile size is the caller's to check: a last short tile reports its own
// size). Load
// and Compute are the tasks' sums, PeakDevice their largest; the result
// has no plan.
func Merge(parts []*Result, ngt int) (*Result, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no task results to merge")
	}
	first := parts[0]
	res := &Result{Metrics: first.Metrics, Matrices: make([][]float64, len(first.Metrics)), NGT: ngt, NSub: first.NSub,
		LowMemory: first.LowMemory}
	next := 0
	for i, r := range parts {
		switch {
		case !slices.Equal(r.Metrics, first.Metrics) || r.NSub != first.NSub || r.LowMemory != first.LowMemory:
			return nil, fmt.Errorf("task %d computed %v on %d submitted maps (low memory %v), task 0 %v on %d (%v): they belong to different runs",
				i, r.Metrics, r.NSub, r.LowMemory, first.Metrics, first.NSub, first.LowMemory)
		case r.Row0 != next && r.NGT > 0:
			return nil, fmt.Errorf("task %d computed rows from %d, want them from %d", i, r.Row0, next)
		case len(r.Matrices) != len(r.Metrics):
			return nil, fmt.Errorf("task %d has %d matrices for %d metrics", i, len(r.Matrices), len(r.Metrics))
		}
		if r.NGT > 0 {
			res.Box, res.Voxels = r.Box, r.Voxels
		}
		for k, m := range r.Matrices {
			if len(m) != r.NGT*r.NSub {
				return nil, fmt.Errorf("task %d: %s holds %d values, want %d x %d", i, r.Metrics[k], len(m), r.NGT, r.NSub)
			}
			res.Matrices[k] = append(res.Matrices[k], m...)
		}
		next += r.NGT
		res.Load += r.Load
		res.Compute += r.Compute
		res.PeakDevice = max(res.PeakDevice, r.PeakDevice)
		res.Chunk = max(res.Chunk, r.Chunk) // a last short tile is its own size
	}
	if next != ngt {
		return nil, fmt.Errorf("the tasks computed %d of the %d ground-truth rows", next, ngt)
	}
	return res, nil
}
