package detect

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

func init() { pipeline.Register(Spec) }

var defaults = DefaultConfig()

// Spec is cell detection as voxlab offers it: `voxlab detect IN OUT.csv`,
// its YAML step and its panel form. A run reads any volume voxlab opens
// and writes a CSV of z,y,x,type and, with --xml, cellfinder's marker
// file beside it; it splits into tasks of centre planes (parts.go).
var Spec = &pipeline.Spec{
	Name:    "detect",
	Title:   "Detect cells",
	Order:   20,
	Summary: "find cell candidates in a light-sheet volume (cellfinder's detection)",
	Usage:   "IN OUT.csv [--voxel-size 5,2,2] [--soma-diameter 16] [--ball-xy 6] [--ball-z 15] [--threshold 10] [--xml] [--batch-size N|auto] [--backend auto|cpu|cuda] [--pin-memory] ...",
	Examples: []string{
		"voxlab detect demo-data/brain/planes cells.csv",
		"voxlab detect brain.h5:/data cells.csv --voxel-size 4,1.8,1.8 --xml",
		"voxlab detect brain.ome.zarr:/0,c=1 cells.csv",
		"voxlab detect planes/ cells.csv --backend cuda --pin-memory --batch-size 8",
		"voxlab plan detect planes/ cells.csv --device-memory 2GiB --json",
	},
	ArgsHelp: "an input volume and an output CSV",
	Args: []pipeline.Param{
		{Name: "in", Kind: pipeline.Input, Label: "Light-sheet volume", Help: "a folder of TIFF planes, a TIFF stack, HDF5 or NPY"},
		{Name: "out", Kind: pipeline.Output, Label: "Output", Default: "cells.csv", Help: "CSV of z,y,x,type (and cellfinder's XML beside it with --xml); a name ending .xml writes cellfinder's XML alone"},
	},
	Params: []pipeline.Param{
		{Name: "voxel-size", Kind: pipeline.Floats, Len: 3, Axes: "z,y,x", Label: "Voxel size z,y,x", Unit: "µm",
			Help: "voxel size z,y,x in microns (default: the file's, else 5,2,2)", Check: positiveVoxels},
		{Name: "soma-diameter", Kind: pipeline.Float, Default: defaults.SomaDiameter, Label: "Soma diameter", Unit: "µm", Help: "soma diameter, µm"},
		{Name: "ball-xy", Kind: pipeline.Float, Default: defaults.BallXY, Label: "Ball size in plane", Unit: "µm", Help: "ball filter size in plane, µm"},
		{Name: "ball-z", Kind: pipeline.Float, Default: defaults.BallZ, Label: "Ball size in z", Unit: "µm", Help: "ball filter size along z, µm"},
		{Name: "ball-overlap", Kind: pipeline.Float, Default: defaults.BallOverlap, Label: "Ball overlap", Help: "fraction of the ball that must be above threshold"},
		{Name: "threshold", Kind: pipeline.Float, Default: defaults.Threshold, Label: "Threshold", Unit: "SDs", Help: "standard deviations above the plane mean"},
		{Name: "xml", Kind: pipeline.Bool, Label: "Also write cellfinder XML",
			Help: "also write cellfinder's XML marker file, OUT with .xml (Marker_Type 2 cells, 1 artifacts)"},
		{Name: "end-plane", Kind: pipeline.Int, Advanced: true, Help: "plane after the last to process (0: the last plane)"},
		{Name: "log-sigma", Kind: pipeline.Float, Default: defaults.LogSigma, Advanced: true, Help: "Gaussian σ as a fraction of the soma diameter"},
		{Name: "max-cluster", Kind: pipeline.Float, Default: defaults.MaxCluster, Advanced: true, Help: "structures of this many µm³ or more are artifacts"},
		{Name: "soma-spread", Kind: pipeline.Float, Default: defaults.SomaSpread, Advanced: true,
			Help: "soma spread factor: largest single cell = sphere of spread × soma diameter"},
		{Name: "split-ball-xy", Kind: pipeline.Float, Default: defaults.SplitBallXY, Advanced: true, Help: "cluster-splitting ball size in plane, µm"},
		{Name: "split-ball-z", Kind: pipeline.Float, Default: defaults.SplitBallZ, Advanced: true, Help: "cluster-splitting ball size along z, µm"},
		{Name: "split-iterations", Kind: pipeline.Int, Default: defaults.SplitIterations, Advanced: true, Help: "cluster-splitting iterations"},
		{Name: "split-overlap", Kind: pipeline.Float, Default: defaults.SplitOverlap, Advanced: true, Help: "cluster-splitting ball overlap fraction"},
		{Name: "start-plane", Kind: pipeline.Int, Advanced: true, Help: "first plane to process"},
		{Name: "tile-size", Kind: pipeline.Float, Default: defaults.TileSize, Advanced: true, Help: "tiled-threshold tile size in soma diameters (0: off)"},
		{Name: "tiled-threshold", Kind: pipeline.Float, Default: defaults.TiledThreshold, Advanced: true,
			Help: "standard deviations above the tile mean (with --tile-size)"},
	},
	Batch: pipeline.Batch{Flag: "batch-size", Unit: "planes", Label: "Planes per batch"},
	Split: true,
	Live: pipeline.Live{Kind: pipeline.LivePoints, Result: func(args []string) string {
		if len(args) < 2 {
			return ""
		}
		return args[1]
	}},
	Suggest: suggest,
	Files:   files,
	Open:    open,
	Example: example,
}

// positiveVoxels refuses a voxel size that is not positive.
func positiveVoxels(v any) error {
	for i, x := range v.([]float64) {
		if !(x > 0) {
			return fmt.Errorf("voxel sizes must be positive (got %g for %c)", x, "zyx"[i])
		}
	}
	return nil
}

// suggest proposes the first opened folder of planes, else TIFF stack,
// else any open volume (`voxlab gui brain.npy --run detect`), with its
// voxel size; the panel names the output after it (planes-cells.csv,
// free).
func suggest(open []pipeline.Layer) ([]string, map[string]string) {
	in := pipeline.FirstFolder(open)
	if in == "" {
		in = pipeline.FirstSpec(pipeline.Images(open), ".tif", ".tiff")
	}
	if in == "" {
		in = pipeline.FirstVolume(open)
	}
	if in == "" {
		return nil, nil
	}
	return []string{in, ""}, map[string]string{"voxel-size": pipeline.VoxelText(open, in)}
}

// volumeJob is an opened detection run.
type volumeJob struct {
	cfg       Config
	vol       *volume.Volume
	in        string
	csv, xml  string
	voxelFrom string
}

// config builds the run's configuration from the request.
func config(r pipeline.Request) (Config, string, error) {
	v := r.Values
	c := DefaultConfig()
	from := "default"
	if vs := v.Floats("voxel-size"); vs != nil {
		c.VoxelSize, from = [3]float64(vs), "--voxel-size"
	}
	c.SomaDiameter, c.BallXY, c.BallZ, c.BallOverlap = v.Float("soma-diameter"), v.Float("ball-xy"), v.Float("ball-z"), v.Float("ball-overlap")
	c.LogSigma, c.Threshold, c.TiledThreshold, c.TileSize = v.Float("log-sigma"), v.Float("threshold"), v.Float("tiled-threshold"), v.Float("tile-size")
	c.SomaSpread, c.MaxCluster = v.Float("soma-spread"), v.Float("max-cluster")
	c.SplitBallXY, c.SplitBallZ, c.SplitOverlap = v.Float("split-ball-xy"), v.Float("split-ball-z"), v.Float("split-overlap")
	c.SplitIterations, c.StartPlane, c.EndPlane = v.Int("split-iterations"), v.Int("start-plane"), v.Int("end-plane")
	c.BatchSize, c.PinMemory = r.Batch, r.Pin
	if err := c.Validate(); err != nil {
		return c, from, pipeline.Usagef("%v", err)
	}
	return c, from, nil
}

// open checks a request and opens its volume (headers only); the
// outputs are checked unless the run is only planned.
func open(r pipeline.Request) (pipeline.Job, error) {
	cfg, from, err := config(r)
	if err != nil {
		return nil, err
	}
	vol, err := volume.Open(r.Args[0])
	if err != nil {
		return nil, err
	}
	if from == "default" && vol.VoxelSize[0] > 0 && vol.VoxelSize[1] > 0 && vol.VoxelSize[2] > 0 {
		cfg.VoxelSize, from = vol.VoxelSize, "file"
	}
	if _, err := cfg.Params(vol.Info); err != nil {
		vol.Close()
		return nil, fmt.Errorf("%s: %w", vol.Name, err)
	}
	j := &volumeJob{cfg: cfg, vol: vol, in: r.Args[0], voxelFrom: from}
	if !r.PlanOnly {
		if j.csv, j.xml, err = outputs(r.Args[1], r.Values.Bool("xml")); err != nil {
			vol.Close()
			return nil, err
		}
	}
	return j, nil
}

// outputs checks the output paths before any work, so a bad one fails
// at once.
func outputs(out string, xml bool) (csvPath, xmlOut string, err error) {
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return "", "", fmt.Errorf("output %s is a folder: give a CSV file name", out)
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return "", "", fmt.Errorf("output %s: the folder %s does not exist", out, filepath.Dir(out))
	}
	if strings.EqualFold(filepath.Ext(out), ".xml") {
		// OUT.xml is cellfinder's XML alone (--xml or not): a CSV
		// under an .xml name would be wrong data that no reader takes.
		return "", out, nil
	}
	if xml {
		xmlOut = xmlPath(out)
	}
	return out, xmlOut, nil
}

func (j *volumeJob) Close() error { return j.vol.Close() }

// on is the configuration on device d: its pinned-memory cap.
func (j *volumeJob) on(d pipeline.Device) Config {
	c := j.cfg
	c.PinnedCap = d.Budget.PinnedCap
	return c
}

// Plan plans the whole run on d.
func (j *volumeJob) Plan(d pipeline.Device) (*plan.Plan, error) {
	return MakePlan(j.vol, j.on(d), d.Budget, d.Backend.Name())
}

// Run detects the cells and writes the CSV (and XML).
func (j *volumeJob) Run(ctx context.Context, p *job.Progress, d pipeline.Device) (*pipeline.Report, error) {
	start := time.Now()
	res, err := Run(ctx, p, d.Backend, j.on(d), j.vol, d.Budget)
	if err != nil {
		return nil, err
	}
	if err := WriteFiles(j.csv, j.xml, res.Candidates); err != nil {
		return nil, err
	}
	return j.report(res, d.Backend.Name(), time.Since(start), 0), nil
}

// Summary is the --json output of voxlab detect (and of its merge).
type Summary struct {
	Input      string     `json:"input"`
	Output     string     `json:"output"`
	XML        string     `json:"xml,omitempty"`
	Cells      int        `json:"cells"`
	Artifacts  int        `json:"artifacts"`
	Structures int        `json:"structures"`
	Split      int        `json:"clusters_split"`
	Planes     int        `json:"planes"`
	Seconds    float64    `json:"seconds"`
	PlanesPerS float64    `json:"planes_per_second,omitempty"`
	Batch      int        `json:"batch_planes"`
	Backend    string     `json:"backend"`
	Pinned     bool       `json:"pinned"`
	PeakDevice int64      `json:"peak_device_bytes"`
	VoxelSize  [3]float64 `json:"voxel_size"`
	VoxelFrom  string     `json:"voxel_size_from"`
	Warnings   []string   `json:"warnings,omitempty"`
	// Tasks is the number of tasks a merge joined. A merge reads no
	// plane: its seconds are the merge's, it has no planes per second,
	// and its batch and peak device are the tasks' largest.
	Tasks int `json:"tasks,omitempty"`
}

// report says what a run, or the merge of tasks tasks, did.
func (j *volumeJob) report(res *Result, backend string, took time.Duration, tasks int) *pipeline.Report {
	p, _ := j.cfg.Params(j.vol.Info)
	out := cmp.Or(j.csv, j.xml)
	s := Summary{Input: j.vol.Name, Output: out, XML: j.xml, Structures: res.Structures, Split: res.Split,
		Planes: p.Planes(), Seconds: took.Seconds(), Batch: res.Batch, Backend: backend, Pinned: res.Pinned,
		PeakDevice: res.PeakDevice, VoxelSize: j.cfg.VoxelSize, VoxelFrom: j.voxelFrom, Warnings: res.Warnings, Tasks: tasks}
	for _, c := range res.Candidates {
		if c.Type == Artifact {
			s.Artifacts++
		} else {
			s.Cells++
		}
	}
	if took > 0 && tasks == 0 {
		s.PlanesPerS = float64(s.Planes) / took.Seconds()
	}
	note := fmt.Sprintf("detect: %d cells and %d artifacts in %d planes (%.1f planes/s, batch %d, peak device %s) → %s",
		s.Cells, s.Artifacts, s.Planes, s.PlanesPerS, s.Batch, plan.FormatBytes(s.PeakDevice), out)
	if tasks > 0 {
		note = fmt.Sprintf("merge detect: %d cells and %d artifacts in %d planes from %d tasks, merged in %.1f s (the tasks' batch up to %d, peak device %s) → %s",
			s.Cells, s.Artifacts, s.Planes, tasks, s.Seconds, s.Batch, plan.FormatBytes(s.PeakDevice), out)
	}
	notes := []string{note}
	if j.xml != "" && j.csv != "" {
		notes = append(notes, "detect: cellfinder XML → "+j.xml)
	}
	return &pipeline.Report{Summary: s, Notes: notes}
}
