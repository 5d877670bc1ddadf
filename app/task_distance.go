package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/voxlab/voxlab/processing/cluster"
	"github.com/voxlab/voxlab/processing/distance"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
)

// voxlab distance GT SUB OUT_DIR --task i/N computes task i's tiles of
// ground-truth rows into a part (cluster.PartsDir(OUT_DIR)); voxlab merge
// distance … --tasks N assembles the matrices and writes OUT_DIR as
// voxlab distance would. See distance.RunTask for why tasks take whole
// tiles of the whole run's tile size.

func init() { registerMerge("distance", mergeVia(distanceSetup)) }

// distanceRun is what a distance part belongs to. The tile size is not
// in it: each task plans it for the whole run on its node, and the merge
// checks that they agree (distanceTaskMeta).
type distanceRun struct {
	GroundTruth string   `json:"ground_truth"`
	Submitted   string   `json:"submitted"`
	Shapes      string   `json:"shapes"`
	Metrics     []string `json:"metrics"`
	Mask        string   `json:"mask"`
	Normalize   string   `json:"normalize"`
	VoxelSize   float64  `json:"voxel_size"`
	LowMemory   bool     `json:"low_memory"`
}

// distanceTaskMeta opens a distance part's payload (one JSON line); the
// matrices follow, metric after metric, rows × submitted float64 each,
// little-endian.
type distanceTaskMeta struct {
	Rows       [2]int  `json:"rows"`
	Tile       int     `json:"tile"`
	Box        int     `json:"box"`
	Voxels     int     `json:"voxels"`
	Chunk      int     `json:"chunk"`
	Load       float64 `json:"load_seconds"`
	Compute    float64 `json:"compute_seconds"`
	PeakDevice int64   `json:"peak_device_bytes"`
}

func (f *distanceFlags) partHeader(in *distanceInputs, args []string, t cluster.Task) (cluster.PartHeader, error) {
	var names []string
	for _, m := range in.cfg.Metrics {
		names = append(names, m.String())
	}
	mask := in.maskDesc
	if f.mask != "" {
		mask = absSpec(f.mask)
	}
	return cluster.NewPartHeader("distance", t, distanceRun{
		GroundTruth: absSpec(args[0]), Submitted: absSpec(args[1]),
		Shapes:  fmt.Sprintf("%d and %d maps of %d³", in.gt.Len(), in.sub.Len(), in.gt.Box()),
		Metrics: names, Mask: mask, Normalize: in.cfg.Normalize.String(), VoxelSize: in.cfg.VoxelSize, LowMemory: in.cfg.LowMemory,
	})
}

// planTask plans task t of voxlab distance: its ground-truth rows, in
// tiles of the whole run's tile.
func (f *distanceFlags) planTask(ctx context.Context, e *env, args []string, t cluster.Task) (*plan.Plan, error) {
	in, err := f.setup(nil, args)
	if err != nil {
		return nil, err
	}
	defer in.close()
	tile, err := distance.TaskTile(in.cfg, in.gt, in.sub, in.be)
	if err != nil {
		return nil, err
	}
	lo, hi := distance.TaskRows(in.gt.Len(), tile, t)
	if lo == hi {
		return emptyTaskPlan("distance", t, in.cfg.Budget, fmt.Sprintf("%d tasks share %s of %d ground-truth maps", t.Count, plural((in.gt.Len()+tile-1)/tile, "tile"), tile)), nil
	}
	tc := in.cfg
	tc.Chunk, tc.AutoChunk, tc.Rows = tile, false, [2]int{lo, hi}
	pl, err := distance.PlanRun(tc, in.gt, in.sub, in.be)
	if err != nil {
		return nil, err
	}
	return taskPlan("distance", t, pl), nil
}

// runTask runs task t of voxlab distance.
func (f *distanceFlags) runTask(ctx context.Context, e *env, args []string, t cluster.Task) error {
	in, err := f.setup(e, args)
	if err != nil {
		return err
	}
	defer in.close()
	tile, err := distance.TaskTile(in.cfg, in.gt, in.sub, in.be)
	if err != nil {
		return err
	}
	h, err := f.partHeader(in, args, t)
	if err != nil {
		return err
	}
	start := time.Now()
	var res *distance.Result
	var path string
	err = runJob(ctx, e, f.out, "distance "+t.String(), in.note, func(ctx context.Context, p *job.Progress) error {
		if tiles := (in.gt.Len() + tile - 1) / tile; tiles < t.Count {
			p.Warn(fmt.Sprintf("the run computes %d tiles of %d ground-truth rows, fewer than the %d tasks: %d tasks have nothing to do "+
				"(a smaller --chunk-size shares the work; the matrices then equal voxlab distance's with that --chunk-size)",
				tiles, tile, t.Count, t.Count-tiles))
		}
		var err error
		if res, err = distance.RunTask(ctx, p, in.be, in.cfg, in.gt, in.sub, tile, t); err != nil {
			return err
		}
		path, err = writePart(args[2], "distance", t, h, func(w *cluster.PartWriter) error { return writeDistancePart(w, res, tile) })
		return err
	})
	if err != nil {
		return err
	}
	return taskDone(e, f.out, t, path, time.Since(start), map[string]any{"rows": [2]int{res.Row0, res.Row0 + res.NGT}, "tile": tile},
		fmt.Sprintf("distance task %s: ground-truth rows %d to %d (tiles of %d)", t, res.Row0, res.Row0+res.NGT, tile))
}

// writeDistancePart writes a task's result as a part's payload.
func writeDistancePart(w io.Writer, res *distance.Result, tile int) error {
	meta := distanceTaskMeta{Rows: [2]int{res.Row0, res.Row0 + res.NGT}, Tile: tile, Box: res.Box, Voxels: res.Voxels, Chunk: res.Chunk,
		Load: res.Load.Seconds(), Compute: res.Compute.Seconds(), PeakDevice: res.PeakDevice}
	if err := json.NewEncoder(w).Encode(meta); err != nil {
		return err
	}
	buf := make([]byte, 8*res.NSub)
	for _, m := range res.Matrices {
		for r := range res.NGT {
			for j, v := range m[r*res.NSub : (r+1)*res.NSub] {
				binary.LittleEndian.PutUint64(buf[8*j:], math.Float64bits(v))
			}
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
	}
	return nil
}

// readDistancePart reads a part's result back.
func readDistancePart(part *cluster.Part, metrics []distance.Metric, nsub int, lowMemory bool) (*distance.Result, distanceTaskMeta, error) {
	var meta distanceTaskMeta
	br := bufio.NewReader(part.Payload())
	line, err := br.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &meta)
	}
	if err != nil {
		return nil, meta, fmt.Errorf("part %s is damaged (%v)", part.Path(), err)
	}
	n := meta.Rows[1] - meta.Rows[0]
	if want := int64(len(line)) + int64(len(metrics))*int64(n)*int64(nsub)*8; n < 0 || part.Size() != want {
		return nil, meta, fmt.Errorf("part %s holds %d bytes, want %d: it is damaged", part.Path(), part.Size(), want)
	}
	res := &distance.Result{Metrics: metrics, NGT: n, NSub: nsub, Row0: meta.Rows[0], LowMemory: lowMemory, Box: meta.Box,
		Voxels: meta.Voxels, Chunk: meta.Chunk, PeakDevice: meta.PeakDevice,
		Load: time.Duration(meta.Load * float64(time.Second)), Compute: time.Duration(meta.Compute * float64(time.Second))}
	buf := make([]byte, 8*nsub)
	for range metrics {
		m := make([]float64, n*nsub)
		for r := range n {
			if _, err := io.ReadFull(br, buf); err != nil {
				return nil, meta, fmt.Errorf("read %s: %w", part.Path(), err)
			}
			for j := range nsub {
				m[r*nsub+j] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*j:]))
			}
		}
		res.Matrices = append(res.Matrices, m)
	}
	return res, meta, nil
}

// merge assembles the N tasks' parts and writes OUT_DIR as run does.
func (f *distanceFlags) merge(ctx context.Context, e *env, args []string, tasks int) error {
	start := time.Now()
	in, err := f.setup(e, args)
	if err != nil {
		return err
	}
	defer in.close()
	dir := cluster.PartsDir(args[2])
	parts, tile, err := f.readParts(in, args, dir, tasks)
	if err != nil {
		return err
	}
	// The plan of the whole run with the tasks' tile, for the summary.
	cfg := in.cfg
	cfg.Chunk, cfg.AutoChunk = tile, false
	whole, err := distance.PlanRun(cfg, in.gt, in.sub, in.be)
	if err != nil {
		return err
	}
	return f.write(ctx, e, in, args, "merge distance", start, func(ctx context.Context, p *job.Progress) (*distance.Result, error) {
		res, err := distance.Merge(parts, in.gt.Len())
		if err == nil {
			res.Plan, res.Chunk = whole, tile
		}
		return res, err
	}, func() { removeParts(e, f.out, dir, "distance", tasks) })
}

// readParts reads every task's part, checking that it belongs to this
// run, that the tasks planned the same tile and that each computed its
// tiles.
func (f *distanceFlags) readParts(in *distanceInputs, args []string, dir string, tasks int) ([]*distance.Result, int, error) {
	var out []*distance.Result
	tile := 0
	err := eachPart(dir, "distance", tasks, func(t cluster.Task) (cluster.PartHeader, error) {
		return f.partHeader(in, args, t)
	}, func(t cluster.Task, part *cluster.Part) error {
		res, meta, err := readDistancePart(part, in.cfg.Metrics, in.sub.Len(), in.cfg.LowMemory)
		part.Close()
		if err != nil {
			return err
		}
		if t.Index == 0 {
			tile = meta.Tile
		}
		if meta.Tile != tile {
			return fmt.Errorf("task %s planned tiles of %d rows, task 0 of %d (their nodes have different memory): "+
				"give --chunk-size N so that every task tiles alike, and run them again", t, meta.Tile, tile)
		}
		if lo, hi := distance.TaskRows(in.gt.Len(), tile, t); meta.Rows != [2]int{lo, hi} {
			return fmt.Errorf("part %s holds rows %v, task %s computes rows [%d %d]: run it again", part.Path(), meta.Rows, t, lo, hi)
		}
		out = append(out, res)
		return nil
	})
	return out, tile, err
}
