package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/detect"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// voxlab detect IN OUT --task i/N finds the centres of task i's planes
// and writes its classified cells and its border structures into a part
// (cluster.PartsDir(OUT)); voxlab merge detect IN OUT --tasks N joins the
// border structures, classifies them and writes OUT (and the XML) as
// voxlab detect would. See detect.RunTask.

func init() { registerMerge("detect", mergeVia(setupDetect)) }

// detectTaskRun is what a detect part belongs to: the input, the detection
// parameters (not how the task ran: batch, pinning) and the task's
// centre planes.
type detectTaskRun struct {
	Input   string        `json:"input"`
	Volume  string        `json:"volume"`
	Config  detect.Config `json:"config"`
	Centres [2]int        `json:"centres"`
}

func (f *detectFlags) partHeader(vol *volume.Volume, args []string, t cluster.Task) (cluster.PartHeader, error) {
	p, err := f.cfg.Params(vol.Info)
	if err != nil {
		return cluster.PartHeader{}, err
	}
	cen, _ := detect.TaskPlanes(&p, t)
	cfg := f.cfg
	cfg.BatchSize, cfg.PinMemory, cfg.PinnedCap = 0, false, 0
	s := vol.Info.Shape
	return cluster.NewPartHeader("detect", t, detectTaskRun{
		Input: absSpec(args[0]), Volume: fmt.Sprintf("%dx%dx%d %s", s[0], s[1], s[2], vol.Info.DType),
		Config: cfg, Centres: cen,
	})
}

// planTask plans task t of voxlab detect: its input planes, centres
// and halo.
func (f *detectFlags) planTask(ctx context.Context, e *env, args []string, t cluster.Task) (*plan.Plan, error) {
	r, err := f.open(args, false)
	if err != nil {
		return nil, err
	}
	defer r.close()
	p, _ := f.cfg.Params(r.vol.Info)
	cen, in := detect.TaskPlanes(&p, t)
	if cen[0] == cen[1] {
		all, _ := detect.TaskPlanes(&p, cluster.Whole)
		return emptyTaskPlan("detect", t, r.budget, fmt.Sprintf("%d tasks share %s", t.Count, plural(all[1]-all[0], "centre plane"))), nil
	}
	tc := f.cfg
	tc.StartPlane, tc.EndPlane = in[0], in[1]
	if _, err := tc.Params(r.vol.Info); err != nil {
		return nil, fmt.Errorf("%s: %w", r.vol.Name, err)
	}
	pl, err := detect.MakePlan(r.vol, tc, r.budget, r.be.Name())
	if err != nil {
		return nil, err
	}
	return taskPlan("detect", t, pl), nil
}

// runTask runs task t of voxlab detect.
func (f *detectFlags) runTask(ctx context.Context, e *env, args []string, t cluster.Task) error {
	r, err := f.open(args, true)
	if err != nil {
		return err
	}
	defer r.close()
	h, err := f.partHeader(r.vol, args, t)
	if err != nil {
		return err
	}
	start := time.Now()
	var tr *detect.TaskResult
	var path string
	err = runJob(ctx, e, f.out, "detect "+t.String(), r.note, func(ctx context.Context, p *job.Progress) error {
		var err error
		if tr, err = detect.RunTask(ctx, p, r.be, f.cfg, r.vol, r.budget, t); err != nil {
			return err
		}
		path, err = writePart(args[1], "detect", t, h, func(w *cluster.PartWriter) error { return json.NewEncoder(w).Encode(tr) })
		return err
	})
	if err != nil {
		return err
	}
	return taskDone(e, f.out, t, path, time.Since(start),
		map[string]any{"centre_planes": tr.Centres, "cells": len(tr.Candidates), "border_structures": len(tr.Border)},
		fmt.Sprintf("detect task %s: centres in planes %d to %d: %d candidates, %d structures for the merge",
			t, tr.Centres[0], tr.Centres[1], len(tr.Candidates), len(tr.Border)))
}

// merge joins the N tasks' parts into OUT (and its XML).
func (f *detectFlags) merge(ctx context.Context, e *env, args []string, tasks int) error {
	r, err := f.open(args, true)
	if err != nil {
		return err
	}
	defer r.close()
	dir := cluster.PartsDir(args[1])
	trs, err := f.readParts(r.vol, args, dir, tasks)
	if err != nil {
		return err
	}
	start := time.Now()
	var res *detect.Result
	err = runJob(ctx, e, f.out, "merge detect", r.note, func(ctx context.Context, pr *job.Progress) error {
		var err error
		if res, err = detect.Merge(pr, f.cfg, r.vol.Info, trs); err != nil {
			return err
		}
		for _, tr := range trs {
			res.Batch = max(res.Batch, tr.Batch)
		}
		return r.write(res.Candidates)
	})
	if err != nil {
		return err
	}
	removeParts(e, f.out, dir, "detect", tasks)
	return f.report(e, r, res, time.Since(start), tasks)
}

// readParts reads every task's part, checking it belongs to this run.
func (f *detectFlags) readParts(vol *volume.Volume, args []string, dir string, tasks int) ([]*detect.TaskResult, error) {
	var trs []*detect.TaskResult
	err := eachPart(dir, "detect", tasks, func(t cluster.Task) (cluster.PartHeader, error) {
		return f.partHeader(vol, args, t)
	}, func(t cluster.Task, part *cluster.Part) error {
		defer part.Close()
		var tr detect.TaskResult
		if err := json.NewDecoder(part.Payload()).Decode(&tr); err != nil {
			return fmt.Errorf("part %s is damaged (%v): run task %s again", part.Path(), err, t)
		}
		trs = append(trs, &tr)
		return nil
	})
	return trs, err
}
