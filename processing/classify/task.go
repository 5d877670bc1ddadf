package classify

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/task"
)

// A run splits into independent cluster tasks by runs of candidates in
// the order they are classified (by first plane): task t of n classifies
// the t-th of n equal runs, so it reads only the planes its candidates
// need. A candidate's probability depends on its cube alone — the same
// cube, the same network, whatever the batch — so the merge of the tasks'
// results is the single run's result.

// TaskResult is what a task hands to the merge.
type TaskResult struct {
	Task task.Task `json:"task"`
	// Candidates is the number of candidates of the whole run; Unknown
	// lists those whose cube leaves the volume (every task finds them).
	Candidates int   `json:"candidates"`
	Unknown    []int `json:"unknown"`
	// Index lists the candidates the task classified, with the
	// probability of the cell class and the class of each.
	Index []int          `json:"index"`
	P     []float32      `json:"p"`
	Class []points.Class `json:"class"`
	// Model, Depth, Norm, Batch, PeakDevice, Pinned and Warnings report
	// how the task ran.
	Model      string   `json:"model"`
	Depth      int      `json:"depth"`
	Norm       [2]Norm  `json:"norm"`
	Batch      int      `json:"batch"`
	PeakDevice int64    `json:"peak_device"`
	Pinned     bool     `json:"pinned"`
	Warnings   []string `json:"warnings,omitempty"`
}

// TaskCandidates returns the positions [lo, hi) in s.Order that task t
// classifies.
func (s *Session) TaskCandidates(t task.Task) (lo, hi int) { return t.Range(len(s.Order)) }

// RunTask classifies task t's candidates (see TaskCandidates). A task
// without candidates reads nothing.
func (s *Session) RunTask(ctx context.Context, prog *job.Progress, be gpu.Backend, budget plan.Budget, t task.Task) (*TaskResult, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	lo, hi := s.TaskCandidates(t)
	tr := &TaskResult{Task: t, Candidates: len(s.In.Points), Model: s.Model.Describe(), Depth: s.Net.Arch.Depth}
	for i, in := range s.Inside {
		if !in {
			tr.Unknown = append(tr.Unknown, i)
		}
	}
	if lo == hi {
		prog.Stage("classify", 0, "cubes")
		return tr, nil
	}
	order := s.Order[lo:hi]
	r, err := s.run(ctx, prog, be, budget, order)
	if err != nil {
		return nil, err
	}
	for _, i := range order {
		c := r.Candidates[i]
		tr.Index = append(tr.Index, i)
		tr.P = append(tr.P, c.P)
		tr.Class = append(tr.Class, c.Class)
	}
	tr.Norm, tr.Batch, tr.PeakDevice, tr.Pinned, tr.Warnings = r.Norm, r.Batch, r.PeakDevice, r.Pinned, r.Warnings
	return tr, nil
}

// Merge joins the results of every task of a split run into the single
// run's result for the candidates pts: each task once, each candidate
// classified by exactly one task or unknown to all.
func Merge(pts []points.Point, parts []*TaskResult) (*Result, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("classify merge: no task results")
	}
	n := parts[0].Task.Count
	seen := make([]bool, n)
	for _, p := range parts {
		if p.Task.Count != n || p.Task.Index < 0 || p.Task.Index >= n || seen[p.Task.Index] {
			return nil, fmt.Errorf("classify merge: task %s does not belong to a split into %d tasks or came twice", p.Task, n)
		}
		seen[p.Task.Index] = true
		if p.Candidates != len(pts) {
			return nil, fmt.Errorf("classify merge: task %s classified %d candidates' run, the points hold %d", p.Task, p.Candidates, len(pts))
		}
		if !slices.Equal(p.Unknown, parts[0].Unknown) || p.Model != parts[0].Model || p.Norm != parts[0].Norm {
			return nil, fmt.Errorf("classify merge: task %s ran on other data or another model than task %s", p.Task, parts[0].Task)
		}
		if len(p.Index) != len(p.P) || len(p.Index) != len(p.Class) {
			return nil, fmt.Errorf("classify merge: task %s: damaged result", p.Task)
		}
	}
	if i := slices.Index(seen, false); i >= 0 {
		return nil, fmt.Errorf("classify merge: task %d/%d is missing", i, n)
	}
	res := &Result{Points: pts, Candidates: make([]Classified, len(pts)), Model: parts[0].Model, Depth: parts[0].Depth, Norm: parts[0].Norm}
	done := make([]bool, len(pts))
	for i := range res.Candidates {
		res.Candidates[i] = Classified{Index: i, Class: points.Unknown, P: float32(math.NaN())}
	}
	for _, i := range parts[0].Unknown {
		if i < 0 || i >= len(pts) {
			return nil, fmt.Errorf("classify merge: unknown candidate %d of %d", i, len(pts))
		}
		done[i] = true
	}
	for _, p := range parts {
		res.Batch = max(res.Batch, p.Batch)
		res.PeakDevice = max(res.PeakDevice, p.PeakDevice)
		res.Pinned = res.Pinned || p.Pinned
		for _, w := range p.Warnings {
			if !slices.Contains(res.Warnings, w) {
				res.Warnings = append(res.Warnings, w)
			}
		}
		for k, i := range p.Index {
			if i < 0 || i >= len(pts) || done[i] {
				return nil, fmt.Errorf("classify merge: candidate %d classified twice or unknown (task %s)", i, p.Task)
			}
			done[i] = true
			res.Candidates[i] = Classified{Index: i, Class: p.Class[k], P: p.P[k]}
		}
	}
	if i := slices.Index(done, false); i >= 0 {
		return nil, fmt.Errorf("classify merge: candidate %d was classified by no task", i)
	}
	for _, c := range res.Candidates {
		switch c.Class {
		case points.Cell:
			res.Cells++
		case points.NonCell:
			res.NonCells++
		default:
			res.Unknown++
		}
	}
	return res, nil
}
