package dezing

import (
	"context"
	"fmt"
	"time"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
)

// Summary is the --json output of voxlab dezing (and of its merge).
type Summary struct {
	Input       string  `json:"input"`
	Output      string  `json:"output"`
	Projections int     `json:"projections"`
	Darks       int     `json:"darks"`
	Flats       int     `json:"flats"`
	Kernel      int     `json:"kernel"`
	Dif         float64 `json:"dif"`
	Reduction   string  `json:"reduction"`
	FlatField   bool    `json:"flat_field"`
	MinusLog    bool    `json:"minus_log"`
	DType       string  `json:"dtype"`
	Seconds     float64 `json:"seconds"`
	VoxelsPerS  float64 `json:"voxels_per_second,omitempty"`
	Block       int     `json:"block_slices"`
	Backend     string  `json:"backend"`
	Pinned      bool    `json:"pin_memory"`
	PeakDevice  int64   `json:"peak_device_bytes"`
	Predicted   int64   `json:"predicted_peak_device_bytes"`
	ToDevice    int64   `json:"bytes_to_device"`
	FromDevice  int64   `json:"bytes_from_device"`
	Clipped     int64   `json:"clipped"`
	// Replaced counts the voxels the median replaced, per kind, of
	// Dezinged (the voxels of each kind the run filtered).
	Replaced Replaced `json:"replaced"`
	Dezinged Replaced `json:"dezinged_voxels"`
	Warnings []string `json:"warnings,omitempty"`
	// Tasks is the number of tasks a merge joined. A merge dezings the
	// darks and flats, not the projections: its summary has no voxels
	// per second.
	Tasks int `json:"tasks,omitempty"`
}

// Run dezings the scan into OUT.
func (j *scanJob) Run(ctx context.Context, p *job.Progress, d pipeline.Device) (*pipeline.Report, error) {
	c := j.cfg
	c.Budget = d.Budget
	start := time.Now()
	res, err := j.write(ctx, d.Backend.Name(), 0, func(out Output) (*Result, error) {
		return Run(ctx, p, d.Backend, c, j.s.in, out)
	})
	if err != nil {
		return nil, err
	}
	return j.report(res, d.Backend.Name(), time.Since(start), 0), nil
}

// report says what a run, or the merge of tasks tasks, did.
func (j *scanJob) report(res *Result, backend string, took time.Duration, tasks int) *pipeline.Report {
	shapes := j.shapes
	sum := Summary{
		Input: j.s.name, Output: j.out, Projections: shapes.Projections.Shape[0], Darks: shapes.Darks.Shape[0],
		Flats: shapes.Flats.Shape[0], Kernel: j.cfg.Kernel, Dif: j.cfg.Dif, Reduction: j.cfg.Reduce.String(),
		FlatField: j.cfg.FlatField, MinusLog: j.cfg.MinusLog, DType: OutInfo(shapes, j.cfg).DType.String(),
		Seconds: took.Seconds(), Block: res.Plan.Block(), Backend: backend, Pinned: j.cfg.Pin,
		PeakDevice: res.PeakDevice, Predicted: res.Plan.PeakDevice, ToDevice: res.ToDevice, FromDevice: res.FromDevice,
		Clipped: res.Clipped, Replaced: res.Replaced, Dezinged: res.Voxels, Warnings: res.Warnings, Tasks: tasks,
	}
	if took > 0 && tasks == 0 {
		vox := shapes.Projections.Len() + shapes.Darks.Len() + shapes.Flats.Len()
		sum.VoxelsPerS = float64(vox) / took.Seconds()
	}
	note := fmt.Sprintf("dezing: %d projections, %d darks, %d flats in %.1f s (%.1f M voxels/s, %d per block, peak device %s) → %s",
		sum.Projections, sum.Darks, sum.Flats, sum.Seconds, sum.VoxelsPerS/1e6, sum.Block, plan.FormatBytes(sum.PeakDevice), j.out)
	if tasks > 0 {
		note = fmt.Sprintf("merge dezing: %d projections from %d tasks, %d darks and %d flats dezinged here, in %.1f s (%d per block, peak device %s) → %s",
			sum.Projections, tasks, sum.Darks, sum.Flats, sum.Seconds, sum.Block, plan.FormatBytes(sum.PeakDevice), j.out)
	}
	return &pipeline.Report{Summary: sum, Notes: []string{note, replacedNote(res)}}
}

// replacedNote says how many voxels of each kind the median replaced.
func replacedNote(res *Result) string {
	part := func(kind string, n, of int64) string {
		return fmt.Sprintf("%d of %d %s voxels (%.2f%%)", n, of, kind, 100*float64(n)/float64(max(of, 1)))
	}
	msg := "dezing: replaced " + part("projection", res.Replaced.Projections, res.Voxels.Projections)
	if res.Voxels.Darks > 0 {
		msg += ", " + part("dark", res.Replaced.Darks, res.Voxels.Darks)
	}
	if res.Voxels.Flats > 0 {
		msg += ", " + part("flat", res.Replaced.Flats, res.Voxels.Flats)
	}
	return msg
}
