package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/dezing"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/processing/volume/h5"
)

// voxlab dezing IN OUT --task i/N dezings task i's share of the
// projections into a part file (cluster.PartsDir(OUT)); voxlab merge
// dezing IN OUT --tasks N reduces the darks and flats, applies the
// flat-field when asked, and writes OUT exactly as voxlab dezing would.
// See dezing.RunTask for why the darks and flats are left to the merge.

func init() { registerMerge("dezing", mergeVia(setupDezing)) }

// dezingRun is what a dezing part belongs to: what the task's projections
// depend on. The darks, flats and flat-field settings are the merge's.
type dezingRun struct {
	Input       string  `json:"input"`
	Projections string  `json:"projections"`
	Kernel      int     `json:"kernel"`
	Dif         float64 `json:"dif"`
	Range       [2]int  `json:"range"`
}

func (f *dezingFlags) partHeader(s *scan, shapes dezing.Shapes, t cluster.Task) (cluster.PartHeader, error) {
	lo, hi := dezing.TaskRange(shapes, f.cfg, t)
	p := shapes.Projections
	return cluster.NewPartHeader("dezing", t, dezingRun{
		Input: absSpec(s.name), Projections: fmt.Sprintf("%dx%dx%d %s", p.Shape[0], p.Shape[1], p.Shape[2], p.DType),
		Kernel: f.cfg.Kernel, Dif: f.cfg.Dif, Range: [2]int{lo, hi},
	})
}

// partOutput writes a task's projections, in order, into its part.
type partOutput struct {
	w    *cluster.PartWriter
	next int
	pb   int64
}

func (o *partOutput) Frames(dark, flat []float32) error { return nil }

func (o *partOutput) Slab(z0 int, data []byte) error {
	if z0 != o.next {
		return fmt.Errorf("projections %d… handed out before %d…", z0, o.next)
	}
	o.next += int(int64(len(data)) / o.pb)
	_, err := o.w.Write(data)
	return err
}

// runTask runs task t of voxlab dezing.
func (f *dezingFlags) runTask(ctx context.Context, e *env, args []string, t cluster.Task) error {
	s, err := f.prepare(args, true)
	if err != nil {
		return err
	}
	defer s.Close()
	outPath := args[1]
	if err := checkOutput(outPath, args[0]); err != nil {
		return err
	}
	be, note, err := f.setup()
	if err != nil {
		return err
	}
	defer be.Close()
	shapes := s.in.Shapes()
	lo, hi := dezing.TaskRange(shapes, f.cfg, t)
	if lo < hi {
		if _, err := dezing.Plan(be, shapes, dezing.TaskConfig(shapes, f.cfg, t)); err != nil {
			return err
		}
	}
	h, err := f.partHeader(s, shapes, t)
	if err != nil {
		return err
	}
	path := cluster.PartPath(cluster.PartsDir(outPath), "dezing", t)
	sinks, done, err := jobSinks(e, f.out)
	if err != nil {
		return err
	}
	taskNote(e, f.out, "%s", note)
	start := time.Now()
	err = job.Run(ctx, "dezing "+t.String(), func(ctx context.Context, p *job.Progress) error {
		w, err := cluster.CreatePart(path, h)
		if err != nil {
			return err
		}
		defer w.Abort()
		out := &partOutput{w: w, next: 0, pb: shapes.Projections.PlaneBytes()}
		if _, err := dezing.RunTask(ctx, p, be, f.cfg, s.in, t, out); err != nil {
			return err
		}
		if out.next != hi-lo {
			return fmt.Errorf("task %s wrote %d of its %d projections", t, out.next, hi-lo)
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
			"task": t.String(), "projections": [2]int{lo, hi}, "part": path, "seconds": time.Since(start).Seconds(),
		})
	}
	taskNote(e, f.out, "dezing task %s: projections %d to %d in %.1f s → %s", t, lo, hi, time.Since(start).Seconds(), path)
	return nil
}

// merge joins the N tasks' parts into OUT.
func (f *dezingFlags) merge(ctx context.Context, e *env, args []string, tasks int) error {
	s, err := f.prepare(args, true)
	if err != nil {
		return err
	}
	defer s.Close()
	outPath := args[1]
	if err := checkOutput(outPath, args[0]); err != nil {
		return err
	}
	be, note, err := f.setup()
	if err != nil {
		return err
	}
	defer be.Close()
	shapes := s.in.Shapes()
	if _, err := dezing.MergePlan(be, shapes, f.cfg); err != nil {
		return err
	}
	dir := cluster.PartsDir(outPath)
	parts, err := f.openParts(s, shapes, dir, tasks)
	if err != nil {
		return err
	}
	defer parts.Close()
	sinks, done, err := jobSinks(e, f.out)
	if err != nil {
		return err
	}
	taskNote(e, f.out, "%s", note)
	start := time.Now()
	var res *dezing.Result
	err = job.Run(ctx, "merge dezing", func(ctx context.Context, p *job.Progress) error {
		var err error
		res, err = f.writeMerged(ctx, p, be, s, parts, outPath)
		return err
	}, sinks...)
	if derr := done(); err == nil {
		err = derr
	}
	if err != nil {
		return err
	}
	parts.Close()
	removeParts(e, f.out, dir, "dezing", tasks)
	return f.report(e, s, shapes, res, be.Name(), outPath, time.Since(start))
}

// openParts opens every task's part and checks it belongs to this run.
func (f *dezingFlags) openParts(s *scan, shapes dezing.Shapes, dir string, tasks int) (*partStack, error) {
	if err := checkPartsDir(dir); err != nil {
		return nil, err
	}
	var parts []*cluster.Part
	var planes []int
	for i := range tasks {
		t := cluster.Task{Index: i, Count: tasks}
		h, err := f.partHeader(s, shapes, t)
		if err != nil {
			closeParts(parts)
			return nil, err
		}
		p, err := cluster.OpenPart(cluster.PartPath(dir, "dezing", t), h)
		if err != nil {
			closeParts(parts)
			return nil, err
		}
		parts = append(parts, p)
		lo, hi := dezing.TaskRange(shapes, f.cfg, t)
		planes = append(planes, hi-lo)
	}
	st, err := newPartStack(parts, planes, shapes.Projections)
	if err != nil {
		closeParts(parts)
		return nil, err
	}
	return st, nil
}

// writeMerged is write (cmd_dezing.go) with the merge in place of the run:
// the same datasets, created in the same order, and the same attributes —
// block_slices being the block the whole run plans — so that the file is
// the one voxlab dezing writes, byte for byte (TestDezingTasksMerge).
func (f *dezingFlags) writeMerged(ctx context.Context, p *job.Progress, be gpu.Backend, s *scan, parts volume.Source, outPath string) (res *dezing.Result, err error) {
	shapes := s.in.Shapes()
	// block_slices records the block the whole run plans here; where
	// not even one block fits, the merge's.
	block := 0
	if whole, err := dezing.Plan(be, shapes, f.cfg); err == nil {
		block = whole.Block()
	}
	info := dezing.OutInfo(shapes, f.cfg)
	file, err := h5.Create(outPath)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			file.Abort()
		}
	}()
	data, err := file.CreateDataset("/data", info.DType, info.Shape[:])
	if err != nil {
		return nil, err
	}
	res, err = dezing.Merge(ctx, p, be, f.cfg, s.in, parts, &h5Output{file: file, data: data, rows: info.Shape[1], cols: info.Shape[2], flatField: f.cfg.FlatField})
	if err != nil {
		return nil, err
	}
	attrs := map[string]any{
		"kernel": f.cfg.Kernel, "dif": f.cfg.Dif, "reduction": f.cfg.Reduce.String(),
		"flat_field": f.cfg.FlatField, "minus_log": f.cfg.MinusLog,
		"version": buildVersion(), "input": s.name, "projections": shapes.Projections.Shape[0],
		"backend": be.Name(), "block_slices": block,
	}
	if block == 0 {
		attrs["block_slices"] = res.Plan.Block()
	}
	if f.cfg.FlatField {
		attrs["clip_low"], attrs["clip_high"] = float64(f.cfg.ClipLow), float64(f.cfg.ClipHigh)
	}
	if s.darks != "" {
		attrs["darks"], attrs["dark_frames"] = s.darks, shapes.Darks.Shape[0]
	}
	if s.flats != "" {
		attrs["flats"], attrs["flat_frames"] = s.flats, shapes.Flats.Shape[0]
	}
	if err := file.SetAttrs("/voxlab/params", attrs); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, file.Commit()
}
