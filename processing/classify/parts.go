package classify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/task"
)

// `voxlab classify SIGNAL POINTS OUT --task i/N` classifies task i's run
// of candidates (task.go) and writes its TaskResult as JSON into its
// part; `voxlab merge classify ... --tasks N` joins the parts into OUT as
// one run writes it.

// partRun is what a classify part belongs to: the inputs as given and
// their shapes, the model (by its content), the parameters a
// probability depends on (not the batch, the backend or pinning) and the
// task's run of candidates.
type partRun struct {
	Signal     string     `json:"signal"`
	Background string     `json:"background,omitempty"`
	Points     string     `json:"points"`
	Shape      [3]int     `json:"shape"`
	Candidates int        `json:"candidates"`
	Model      string     `json:"model"`
	ModelSHA   string     `json:"model_sha256"`
	Depth      int        `json:"network_depth"`
	Voxel      [3]float64 `json:"voxel_size"`
	NetVoxel   [3]float64 `json:"network_voxel_size"`
	Cube       [3]int     `json:"cube_size"`
	Normalise  bool       `json:"normalize_channels"`
	Sampling   int        `json:"normalization_sampling_planes,omitempty"`
	Precision  string     `json:"precision"`
	Run        [2]int     `json:"run"`
}

// fileSHA256 hashes a file's bytes.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("model %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (j *classifyJob) PartRun(t task.Task) (any, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	if j.modelSHA == "" {
		var err error
		if j.modelSHA, err = fileSHA256(j.s.Cfg.Model); err != nil {
			return nil, err
		}
	}
	c := j.s.Cfg
	lo, hi := j.s.TaskCandidates(t)
	r := partRun{Signal: pipeline.AbsSpec(j.specs[0]), Points: pipeline.AbsSpec(j.specs[2]), Shape: j.in.Signal.Info.Shape,
		Candidates: len(j.in.Points), Model: pipeline.AbsSpec(c.Model), ModelSHA: j.modelSHA, Depth: j.s.Net.Arch.Depth,
		Voxel: c.VoxelSize, NetVoxel: c.NetworkVoxelSize, Cube: c.CubeSize, Normalise: c.NormalizeChannels, Precision: c.Precision,
		Run: [2]int{lo, hi}}
	if j.specs[1] != "" {
		r.Background = pipeline.AbsSpec(j.specs[1])
	}
	if c.NormalizeChannels {
		r.Sampling = c.NormSamplingPlanes
	}
	return r, nil
}

// TaskPlan plans task t: its run of candidates.
func (j *classifyJob) TaskPlan(d pipeline.Device, t task.Task) (*plan.Plan, error) {
	j.on(d)
	if lo, hi := j.s.TaskCandidates(t); lo == hi {
		return pipeline.EmptyTaskPlan(t, d.Budget, fmt.Sprintf("%d tasks share %s", t.Count, pipeline.Plural(len(j.s.Order), "candidate"))), nil
	}
	return j.s.TaskPlan(d.Budget, d.Backend.Name(), workersOf(d.Backend), t)
}

// RunTask classifies task t's candidates and writes its TaskResult into
// w.
func (j *classifyJob) RunTask(ctx context.Context, p *job.Progress, d pipeline.Device, t task.Task, w io.Writer) (*pipeline.TaskReport, error) {
	j.on(d)
	tr, err := j.s.RunTask(ctx, p, d.Backend, d.Budget, t)
	if err != nil {
		return nil, err
	}
	if err := json.NewEncoder(w).Encode(tr); err != nil {
		return nil, err
	}
	lo, hi := j.s.TaskCandidates(t)
	return &pipeline.TaskReport{
		Fields: map[string]any{"candidates": [2]int{lo, hi}, "classified": len(tr.Index), "unknown": len(tr.Unknown)},
		What:   fmt.Sprintf("classify task %s: candidates %d to %d of %d in plane order: %d classified", t, lo, hi, len(j.s.Order), len(tr.Index)),
	}, nil
}

// Merge joins the tasks' parts into OUT.
func (j *classifyJob) Merge(ctx context.Context, p *job.Progress, d pipeline.Device, parts []*cluster.Part) (*pipeline.Report, error) {
	start := time.Now()
	trs := make([]*TaskResult, len(parts))
	for i, part := range parts {
		var tr TaskResult
		if err := json.NewDecoder(part.Payload()).Decode(&tr); err != nil {
			return nil, fmt.Errorf("part %s is damaged (%v): run task %s again", part.Path(), err, task.Task{Index: i, Count: len(parts)})
		}
		trs[i] = &tr
	}
	res, err := Merge(j.in.Points, trs)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := res.Write(j.out); err != nil {
		return nil, err
	}
	return j.report(res, d.Backend.Name(), time.Since(start), len(parts)), nil
}
