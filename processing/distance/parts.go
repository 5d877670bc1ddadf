package distance

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
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/task"
)

// `voxlab distance GT SUB OUT_DIR --task i/N` computes task i's tiles of
// ground-truth rows into a part; `voxlab merge distance … --tasks N`
// assembles the matrices and writes OUT_DIR as voxlab distance would.
// See RunTask for why tasks take whole tiles of the whole run's tile
// size.
//
// A part's payload is one JSON line (partMeta), then the matrices,
// metric after metric, rows × submitted maps float64 each,
// little-endian.

// partRun is what a distance part belongs to. The tile size is not in
// it: each task plans it for the whole run on its node, and the merge
// checks that they agree (partMeta).
type partRun struct {
	GroundTruth string   `json:"ground_truth"`
	Submitted   string   `json:"submitted"`
	Shapes      string   `json:"shapes"`
	Metrics     []string `json:"metrics"`
	Mask        string   `json:"mask"`
	Normalize   string   `json:"normalize"`
	VoxelSize   float64  `json:"voxel_size"`
	LowMemory   bool     `json:"low_memory"`
}

// partMeta opens a part's payload.
type partMeta struct {
	Rows       [2]int  `json:"rows"`
	Tile       int     `json:"tile"`
	Box        int     `json:"box"`
	Voxels     int     `json:"voxels"`
	Chunk      int     `json:"chunk"`
	Load       float64 `json:"load_seconds"`
	Compute    float64 `json:"compute_seconds"`
	PeakDevice int64   `json:"peak_device_bytes"`
}

func (j *setsJob) PartRun(t task.Task) (any, error) {
	mask := j.maskDesc
	if j.maskArg != "" {
		mask = pipeline.AbsSpec(j.maskArg)
	}
	return partRun{
		GroundTruth: pipeline.AbsSpec(j.gtArg), Submitted: pipeline.AbsSpec(j.subArg),
		Shapes:  fmt.Sprintf("%d and %d maps of %d³", j.gt.Len(), j.sub.Len(), j.gt.Box()),
		Metrics: metricNames(j.cfg.Metrics), Mask: mask, Normalize: j.cfg.Normalize.String(), VoxelSize: j.cfg.VoxelSize, LowMemory: j.cfg.LowMemory,
	}, nil
}

// TaskPlan plans task t: its ground-truth rows, in tiles of the whole
// run's tile.
func (j *setsJob) TaskPlan(d pipeline.Device, t task.Task) (*plan.Plan, error) {
	c := j.on(d)
	tile, err := TaskTile(c, j.gt, j.sub, d.Backend)
	if err != nil {
		return nil, err
	}
	lo, hi := TaskRows(j.gt.Len(), tile, t)
	if lo == hi {
		return pipeline.EmptyTaskPlan(t, c.Budget, fmt.Sprintf("%d tasks share %s of %d ground-truth maps",
			t.Count, pipeline.Plural((j.gt.Len()+tile-1)/tile, "tile"), tile)), nil
	}
	c.Chunk, c.AutoChunk, c.Rows = tile, false, [2]int{lo, hi}
	return PlanRun(c, j.gt, j.sub, d.Backend)
}

// RunTask computes task t's rows and writes them into w.
func (j *setsJob) RunTask(ctx context.Context, p *job.Progress, d pipeline.Device, t task.Task, w io.Writer) (*pipeline.TaskReport, error) {
	c := j.on(d)
	tile, err := TaskTile(c, j.gt, j.sub, d.Backend)
	if err != nil {
		return nil, err
	}
	if tiles := (j.gt.Len() + tile - 1) / tile; tiles < t.Count {
		p.Warn(fmt.Sprintf("the run computes %d tiles of %d ground-truth rows, fewer than the %d tasks: %d tasks have nothing to do "+
			"(a smaller --chunk-size shares the work; the matrices then equal voxlab distance's with that --chunk-size)",
			tiles, tile, t.Count, t.Count-tiles))
	}
	res, err := RunTask(ctx, p, d.Backend, c, j.gt, j.sub, tile, t)
	if err != nil {
		return nil, err
	}
	if err := writePart(w, res, tile); err != nil {
		return nil, err
	}
	return &pipeline.TaskReport{Fields: map[string]any{"rows": [2]int{res.Row0, res.Row0 + res.NGT}, "tile": tile},
		What: fmt.Sprintf("distance task %s: ground-truth rows %d to %d (tiles of %d)", t, res.Row0, res.Row0+res.NGT, tile)}, nil
}

// Merge assembles the tasks' parts and writes OUT_DIR as Run does.
func (j *setsJob) Merge(ctx context.Context, p *job.Progress, d pipeline.Device, parts []*cluster.Part) (*pipeline.Report, error) {
	results, tile, err := j.readParts(parts)
	if err != nil {
		return nil, err
	}
	// The plan of the whole run with the tasks' tile, for the summary.
	c := j.on(d)
	c.Chunk, c.AutoChunk = tile, false
	whole, err := PlanRun(c, j.gt, j.sub, d.Backend)
	if err != nil {
		return nil, err
	}
	return j.write(p, d, func() (*Result, error) {
		res, err := Merge(results, j.gt.Len())
		if err == nil {
			res.Plan, res.Chunk = whole, tile
		}
		return res, err
	})
}

// readParts reads every task's part, checking that the tasks planned
// the same tile and that each computed its tiles.
func (j *setsJob) readParts(parts []*cluster.Part) ([]*Result, int, error) {
	var out []*Result
	tile := 0
	for i, part := range parts {
		t := task.Task{Index: i, Count: len(parts)}
		res, meta, err := readPart(part, j.cfg.Metrics, j.sub.Len(), j.cfg.LowMemory)
		if err != nil {
			return nil, 0, err
		}
		if i == 0 {
			tile = meta.Tile
		}
		if meta.Tile != tile {
			return nil, 0, fmt.Errorf("task %s planned tiles of %d rows, task 0 of %d (their nodes have different memory): "+
				"give --chunk-size N so that every task tiles alike, and run them again", t, meta.Tile, tile)
		}
		if lo, hi := TaskRows(j.gt.Len(), tile, t); meta.Rows != [2]int{lo, hi} {
			return nil, 0, fmt.Errorf("part %s holds rows %v, task %s computes rows [%d %d]: run it again", part.Path(), meta.Rows, t, lo, hi)
		}
		out = append(out, res)
	}
	return out, tile, nil
}

// writePart writes a task's result as a part's payload.
func writePart(w io.Writer, res *Result, tile int) error {
	meta := partMeta{Rows: [2]int{res.Row0, res.Row0 + res.NGT}, Tile: tile, Box: res.Box, Voxels: res.Voxels, Chunk: res.Chunk,
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

// readPart reads a part's result back.
func readPart(part *cluster.Part, metrics []Metric, nsub int, lowMemory bool) (*Result, partMeta, error) {
	var meta partMeta
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
	res := &Result{Metrics: metrics, NGT: n, NSub: nsub, Row0: meta.Rows[0], LowMemory: lowMemory, Box: meta.Box,
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
