package detect

import (
	"context"
	"fmt"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/task"
	"github.com/voxlab/voxlab/processing/volume"
)

// A run splits into independent cluster tasks by ranges of centre planes
// (TaskPlanes). The 2D stage is per plane and the ball filter's centre
// plane depends only on the ball-z planes around it, so a task that reads
// its centre planes with the ball's reach on either side (the ball-z
// overlap) finds exactly the centre voxels the whole run finds there.
// Structures are 6-connected groups of centre voxels; a structure that
// touches neither of the task's border planes (the first and last centre
// planes it shares a border with another task across) cannot continue
// into another task, so it is the whole run's structure and the task
// classifies it as Run would (size, splitting: functions of its voxels
// only). The others go to the merge unclassified (TaskResult.Border),
// which joins those that meet across a border — a voxel on one side
// facing one on the other, z-neighbours — and classifies the joined
// structures (Merge). The merged candidates are the whole run's.

// TaskPlanes returns the centre planes [c0, c1) in which task t of a run
// with p finds centres, and the input planes it reads: those with
// floor(ball z / 2) planes before and the rest of the ball after. The
// run's centre planes go from Start + floor(ball z / 2) to End minus the
// rest; a task has none when there are more tasks than centre planes.
func TaskPlanes(p *Params, t task.Task) (centres, input [2]int) {
	first, last := centreSpan(p)
	a, b := t.Range(last - first)
	c0, c1 := first+a, first+b
	if c0 == c1 {
		return [2]int{c0, c1}, [2]int{c0, c0}
	}
	return [2]int{c0, c1}, [2]int{c0 - p.Ball.MidZ(), c1 + p.Ball.Z - 1 - p.Ball.MidZ()}
}

// centreSpan is the run's centre planes [first, last).
func centreSpan(p *Params) (first, last int) {
	return p.Start + p.Ball.MidZ(), p.End - (p.Ball.Z - 1 - p.Ball.MidZ())
}

// Voxel is a voxel's z, y, x.
type Voxel [3]int32

// TaskResult is what a task hands to the merge.
type TaskResult struct {
	// Centres are the task's centre planes [c0, c1).
	Centres [2]int `json:"centres"`
	// Candidates of the structures wholly inside the task, classified.
	Candidates []Candidate `json:"candidates"`
	// Border holds the voxels of each structure touching a plane the task
	// shares a border with another task across: the merge classifies
	// them, joined with those they meet.
	Border [][]Voxel `json:"border"`
	// Structures (classified here), clusters Split and not split
	// (Unsplit), and the warnings about them.
	Structures int      `json:"structures"`
	Split      int      `json:"split"`
	Unsplit    int      `json:"unsplit"`
	Warnings   []string `json:"warnings,omitempty"`
	// Batch, PeakDevice and Pinned report how the task ran.
	Batch      int   `json:"batch"`
	PeakDevice int64 `json:"peak_device"`
	Pinned     bool  `json:"pinned"`
}

// RunTask runs task t of a split detection of src (see TaskPlanes and
// Merge). Its partial results are the cells it classified itself. A task
// without centre planes reads nothing.
func RunTask(ctx context.Context, prog *job.Progress, be gpu.Backend, cfg Config, src *volume.Volume, budget plan.Budget, t task.Task) (*TaskResult, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	p, err := cfg.Params(src.Info)
	if err != nil {
		return nil, fmt.Errorf("detect %s: %w", src.Name, err)
	}
	cen, in := TaskPlanes(&p, t)
	res := &TaskResult{Centres: cen}
	if cen[0] == cen[1] {
		prog.Stage("detect", 0, "planes")
		return res, nil
	}
	first, last := centreSpan(&p)
	low, high := cen[0] > first, cen[1] < last
	divert := func(s []point) bool {
		for _, v := range s {
			if (low && int(v.z) == cen[0]) || (high && int(v.z) == cen[1]-1) {
				return true
			}
		}
		return false
	}
	tc := cfg
	tc.StartPlane, tc.EndPlane = in[0], in[1]
	r, err := runDetect(ctx, prog, be, tc, src, budget, divert)
	if err != nil {
		return nil, err
	}
	res.Candidates = r.res.Candidates
	res.Structures, res.Split, res.Unsplit = r.res.Structures, r.res.Split, r.res.Unsplit
	res.Warnings, res.Batch, res.PeakDevice, res.Pinned = r.res.Warnings, r.res.Batch, r.res.PeakDevice, r.res.Pinned
	for _, s := range r.diverted {
		vs := make([]Voxel, len(s))
		for i, v := range s {
			vs[i] = Voxel{v.z, v.y, v.x}
		}
		res.Border = append(res.Border, vs)
	}
	return res, nil
}
