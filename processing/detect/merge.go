package detect

import (
	"context"
	"fmt"
	"slices"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/task"
	"github.com/voxlab/voxlab/processing/volume"
)

// Merge joins the results of the tasks of a split detection of a volume
// described by info, given in task order: the structures the tasks handed
// on (TaskResult.Border) are joined where a voxel on one side of a border
// faces one on the other (6-connectivity across the border), the joined
// structures are classified as Run classifies structures, and the
// candidates are those of the tasks and of the joined structures, sorted.
// Counts add up; each warning is kept once. The result has no plan.
func Merge(prog *job.Progress, cfg Config, info volume.Info, tasks []*TaskResult) (*Result, error) {
	p, err := cfg.Params(info)
	if err != nil {
		return nil, err
	}
	for i, tr := range tasks {
		if want, _ := TaskPlanes(&p, task.Task{Index: i, Count: len(tasks)}); tr.Centres != want {
			return nil, fmt.Errorf("task %d of %d found centres in planes %d to %d, want %d to %d: it belongs to another run",
				i, len(tasks), tr.Centres[0], tr.Centres[1], want[0], want[1])
		}
	}
	r := &run{p: p, prog: prog, split: newSplitter(&p, cfg.Memory), mem: cfg.Memory, res: &Result{}}
	joined := joinBorders(tasks)
	prog.Stage("merge", int64(len(joined)), "structures")
	for _, s := range joined {
		r.finish(context.Background(), [][]point{s})
		prog.Add(1)
	}
	res := &Result{Candidates: r.res.Candidates, Structures: r.res.Structures, Split: r.res.Split, Unsplit: r.res.Unsplit}
	seen := map[string]bool{}
	for _, tr := range append(tasks, &TaskResult{Warnings: r.res.Warnings}) {
		res.Candidates = append(res.Candidates, tr.Candidates...)
		res.Structures += tr.Structures
		res.Split += tr.Split
		res.Unsplit += tr.Unsplit
		for _, w := range tr.Warnings {
			if !seen[w] {
				seen[w] = true
				res.Warnings = append(res.Warnings, w)
			}
		}
		res.PeakDevice = max(res.PeakDevice, tr.PeakDevice)
		res.Pinned = res.Pinned || tr.Pinned
	}
	SortCandidates(res.Candidates)
	return res, nil
}

// joinBorders groups the tasks' border structures into the whole run's
// structures (union-find). Two tasks meet at plane b when one's centres end
// at b and the next non-empty one's start there; a structure of the first
// with a voxel (b−1, y, x) and one of the second with (b, y, x) are the
// same structure. A structure crossing several tasks is joined border by
// border.
func joinBorders(tasks []*TaskResult) [][]point {
	var all [][]Voxel
	var owner []int
	for i, tr := range tasks {
		for _, s := range tr.Border {
			all = append(all, s)
			owner = append(owner, i)
		}
	}
	parent := make([]int, len(all))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	// below[(y, x)] is the structure with a voxel on the plane before the
	// border being joined.
	type yx struct{ y, x int32 }
	prev := -1 // the last task with centres
	for i, tr := range tasks {
		if tr.Centres[0] == tr.Centres[1] {
			continue
		}
		if prev >= 0 {
			b := int32(tr.Centres[0])
			below := map[yx]int{}
			for k, s := range all {
				if owner[k] != prev {
					continue
				}
				for _, v := range s {
					if v[0] == b-1 {
						below[yx{v[1], v[2]}] = k
					}
				}
			}
			for k, s := range all {
				if owner[k] != i {
					continue
				}
				for _, v := range s {
					if j, ok := below[yx{v[1], v[2]}]; ok && v[0] == b {
						if a, c := find(k), find(j); a != c {
							parent[a] = c
						}
					}
				}
			}
		}
		prev = i
	}
	groups := map[int][]point{}
	var roots []int
	for k, s := range all {
		root := find(k)
		if _, ok := groups[root]; !ok {
			roots = append(roots, root)
		}
		for _, v := range s {
			groups[root] = append(groups[root], point{v[0], v[1], v[2]})
		}
	}
	slices.Sort(roots)
	out := make([][]point, len(roots))
	for i, root := range roots {
		out[i] = groups[root]
	}
	return out
}
