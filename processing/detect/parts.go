package detect

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/task"
)

// `voxlab detect IN OUT --task i/N` finds the centres of task i's planes
// and writes its classified cells and its border structures into a part
// (a TaskResult as JSON); `voxlab merge detect IN OUT --tasks N` joins
// the border structures, classifies them and writes OUT (and the XML) as
// voxlab detect would. See RunTask and Merge.

// partRun is what a detect part belongs to: the input, the detection
// parameters (not how the task ran: batch, pinning) and the task's
// centre planes.
type partRun struct {
	Input   string `json:"input"`
	Volume  string `json:"volume"`
	Config  Config `json:"config"`
	Centres [2]int `json:"centres"`
}

func (j *volumeJob) PartRun(t task.Task) (any, error) {
	p, err := j.cfg.Params(j.vol.Info)
	if err != nil {
		return nil, err
	}
	cen, _ := TaskPlanes(&p, t)
	cfg := j.cfg
	cfg.BatchSize, cfg.PinMemory, cfg.PinnedCap = 0, false, 0
	s := j.vol.Info.Shape
	return partRun{Input: pipeline.AbsSpec(j.in), Volume: fmt.Sprintf("%dx%dx%d %s", s[0], s[1], s[2], j.vol.Info.DType),
		Config: cfg, Centres: cen}, nil
}

// TaskPlan plans task t: its input planes, centres and halo.
func (j *volumeJob) TaskPlan(d pipeline.Device, t task.Task) (*plan.Plan, error) {
	p, _ := j.cfg.Params(j.vol.Info)
	cen, in := TaskPlanes(&p, t)
	if cen[0] == cen[1] {
		all, _ := TaskPlanes(&p, task.Whole)
		return pipeline.EmptyTaskPlan(t, d.Budget, fmt.Sprintf("%d tasks share %s", t.Count, pipeline.Plural(all[1]-all[0], "centre plane"))), nil
	}
	tc := j.on(d)
	tc.StartPlane, tc.EndPlane = in[0], in[1]
	if _, err := tc.Params(j.vol.Info); err != nil {
		return nil, fmt.Errorf("%s: %w", j.vol.Name, err)
	}
	return MakePlan(j.vol, tc, d.Budget, d.Backend.Name())
}

// RunTask runs task t and writes its TaskResult into w.
func (j *volumeJob) RunTask(ctx context.Context, p *job.Progress, d pipeline.Device, t task.Task, w io.Writer) (*pipeline.TaskReport, error) {
	tr, err := RunTask(ctx, p, d.Backend, j.on(d), j.vol, d.Budget, t)
	if err != nil {
		return nil, err
	}
	if err := json.NewEncoder(w).Encode(tr); err != nil {
		return nil, err
	}
	return &pipeline.TaskReport{
		Fields: map[string]any{"centre_planes": tr.Centres, "cells": len(tr.Candidates), "border_structures": len(tr.Border)},
		What: fmt.Sprintf("detect task %s: centres in planes %d to %d: %d candidates, %d structures for the merge",
			t, tr.Centres[0], tr.Centres[1], len(tr.Candidates), len(tr.Border)),
	}, nil
}

// Merge joins the tasks' parts into OUT (and its XML).
func (j *volumeJob) Merge(ctx context.Context, p *job.Progress, d pipeline.Device, parts []*cluster.Part) (*pipeline.Report, error) {
	start := time.Now()
	var trs []*TaskResult
	for i, part := range parts {
		var tr TaskResult
		if err := json.NewDecoder(part.Payload()).Decode(&tr); err != nil {
			return nil, fmt.Errorf("part %s is damaged (%v): run task %s again", part.Path(), err, task.Task{Index: i, Count: len(parts)})
		}
		trs = append(trs, &tr)
	}
	res, err := Merge(p, j.on(d), j.vol.Info, trs)
	if err != nil {
		return nil, err
	}
	for _, tr := range trs {
		res.Batch = max(res.Batch, tr.Batch)
	}
	if err := WriteFiles(j.csv, j.xml, res.Candidates); err != nil {
		return nil, err
	}
	return j.report(res, d.Backend.Name(), time.Since(start), len(parts)), nil
}
