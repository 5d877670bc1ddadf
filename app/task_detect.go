package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/detect"
	"github.com/voxlab/voxlab/processing/job"
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

// runTask runs task t of voxlab detect.
func (f *detectFlags) runTask(ctx context.Context, e *env, args []string, t cluster.Task) error {
	vol, err := f.prepare(args)
	if err != nil {
		return err
	}
	defer vol.Close()
	if _, _, err := outputs(args[1], f.xml); err != nil {
		return err
	}
	be, note, err := f.dev.open()
	if err != nil {
		return err
	}
	defer be.Close()
	b, err := f.dev.budget(be.Info())
	if err != nil {
		return err
	}
	f.cfg.PinnedCap = b.PinnedCap
	h, err := f.partHeader(vol, args, t)
	if err != nil {
		return err
	}
	path := cluster.PartPath(cluster.PartsDir(args[1]), "detect", t)
	sinks, done, err := jobSinks(e, f.out)
	if err != nil {
		return err
	}
	taskNote(e, f.out, "%s", note)
	start := time.Now()
	var tr *detect.TaskResult
	err = job.Run(ctx, "detect "+t.String(), func(ctx context.Context, p *job.Progress) error {
		var err error
		if tr, err = detect.RunTask(ctx, p, be, f.cfg, vol, b, t); err != nil {
			return err
		}
		w, err := cluster.CreatePart(path, h)
		if err != nil {
			return err
		}
		defer w.Abort()
		if err := json.NewEncoder(w).Encode(tr); err != nil {
			return err
		}
		return w.Commit()
	}, sinks...)
	if derr := done(); err == nil {
		err = derr
	}
	if err != nil {
		return err
	}
	if f.out.json {
		return json.NewEncoder(e.stdout).Encode(map[string]any{
			"task": t.String(), "centre_planes": tr.Centres, "cells": len(tr.Candidates), "border_structures": len(tr.Border),
			"part": path, "seconds": time.Since(start).Seconds(),
		})
	}
	taskNote(e, f.out, "detect task %s: centres in planes %d to %d: %d candidates, %d structures for the merge, in %.1f s → %s",
		t, tr.Centres[0], tr.Centres[1], len(tr.Candidates), len(tr.Border), time.Since(start).Seconds(), path)
	return nil
}

// merge joins the N tasks' parts into OUT (and its XML).
func (f *detectFlags) merge(ctx context.Context, e *env, args []string, tasks int) error {
	vol, err := f.prepare(args)
	if err != nil {
		return err
	}
	defer vol.Close()
	csvPath, xmlPath, err := outputs(args[1], f.xml)
	if err != nil {
		return err
	}
	be, note, err := f.dev.open()
	if err != nil {
		return err
	}
	defer be.Close()
	b, err := f.dev.budget(be.Info())
	if err != nil {
		return err
	}
	f.cfg.PinnedCap = b.PinnedCap
	// The plan the whole run would have, for the summary.
	p, _ := f.cfg.Params(vol.Info)
	whole, err := detect.MakePlan(&p, f.cfg, b, be.Name())
	if err != nil {
		return err
	}
	dir := cluster.PartsDir(args[1])
	trs, err := f.readParts(vol, args, dir, tasks)
	if err != nil {
		return err
	}
	sinks, done, err := jobSinks(e, f.out)
	if err != nil {
		return err
	}
	taskNote(e, f.out, "%s", note)
	start := time.Now()
	var res *detect.Result
	err = job.Run(ctx, "merge detect", func(ctx context.Context, pr *job.Progress) error {
		var err error
		if res, err = detect.Merge(pr, f.cfg, vol.Info, trs); err != nil {
			return err
		}
		res.Plan, res.Batch = whole, whole.Block()
		if err := writeOut(csvPath, res.Candidates, detect.WriteCSV); err != nil {
			return err
		}
		if xmlPath != "" {
			if err := writeOut(xmlPath, res.Candidates, detect.WriteXML); err != nil {
				os.Remove(csvPath)
				return err
			}
		}
		return nil
	}, sinks...)
	if derr := done(); err == nil {
		err = derr
	}
	if err != nil {
		return err
	}
	removeParts(e, f.out, dir, "detect", tasks)
	return f.report(e, vol, res, be.Name(), csvPath, xmlPath, time.Since(start))
}

// readParts reads every task's part, checking it belongs to this run.
func (f *detectFlags) readParts(vol *volume.Volume, args []string, dir string, tasks int) ([]*detect.TaskResult, error) {
	if err := checkPartsDir(dir); err != nil {
		return nil, err
	}
	var trs []*detect.TaskResult
	for i := range tasks {
		t := cluster.Task{Index: i, Count: tasks}
		h, err := f.partHeader(vol, args, t)
		if err != nil {
			return nil, err
		}
		part, err := cluster.OpenPart(cluster.PartPath(dir, "detect", t), h)
		if err != nil {
			return nil, err
		}
		var tr detect.TaskResult
		err = json.NewDecoder(part.Payload()).Decode(&tr)
		part.Close()
		if err != nil {
			return nil, fmt.Errorf("part %s is damaged (%v): run task %s again", part.Path(), err, t)
		}
		trs = append(trs, &tr)
	}
	return trs, nil
}
