package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/detect"
	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

func init() {
	registerPipeline(&pipelineCmd{
		name:    "detect",
		summary: "find cell candidates in a light-sheet volume (cellfinder's detection)",
		usage:   "IN OUT.csv [--voxel-size 5,2,2] [--soma-diameter 16] [--ball-xy 6] [--ball-z 15] [--threshold 10] [--xml] [--batch-size N|auto] [--backend auto|cpu|cuda] [--pin-memory] ...",
		examples: []string{
			"voxlab detect demo-data/brain/planes cells.csv",
			"voxlab detect brain.h5:/data cells.csv --voxel-size 4,1.8,1.8 --xml",
			"voxlab detect brain.ome.zarr:/0,c=1 cells.csv",
			"voxlab detect planes/ cells.csv --backend cuda --pin-memory --batch-size 8",
			"voxlab plan detect planes/ cells.csv --device-memory 2GiB --json",
		},
		setup: setupDetect,
		paths: func(flag func(string) string, args []string) iocheck.Paths {
			return detect.Paths(arg(args, 0), arg(args, 1), flag("xml") == "true")
		},
	})
}

// detectFlags are the flags of voxlab detect.
type detectFlags struct {
	cfg       detect.Config
	voxel     string
	xml       bool
	dev       *deviceFlags
	out       *outputFlags
	voxelFrom string
}

func setupDetect(fs *flag.FlagSet, out *outputFlags) (planFunc, runFunc) {
	f := &detectFlags{cfg: detect.DefaultConfig(), out: out}
	c := &f.cfg
	fs.StringVar(&f.voxel, "voxel-size", "", "voxel size z,y,x in microns (default: the file's, else 5,2,2)")
	fs.Float64Var(&c.SomaDiameter, "soma-diameter", c.SomaDiameter, "soma diameter, µm")
	fs.Float64Var(&c.BallXY, "ball-xy", c.BallXY, "ball filter size in plane, µm")
	fs.Float64Var(&c.BallZ, "ball-z", c.BallZ, "ball filter size along z, µm")
	fs.Float64Var(&c.BallOverlap, "ball-overlap", c.BallOverlap, "fraction of the ball that must be above threshold")
	fs.Float64Var(&c.LogSigma, "log-sigma", c.LogSigma, "Gaussian σ as a fraction of the soma diameter")
	fs.Float64Var(&c.Threshold, "threshold", c.Threshold, "standard deviations above the plane mean")
	fs.Float64Var(&c.TiledThreshold, "tiled-threshold", c.TiledThreshold, "standard deviations above the tile mean (with --tile-size)")
	fs.Float64Var(&c.TileSize, "tile-size", c.TileSize, "tiled-threshold tile size in soma diameters (0: off)")
	fs.Float64Var(&c.SomaSpread, "soma-spread", c.SomaSpread, "soma spread factor: largest single cell = sphere of spread × soma diameter")
	fs.Float64Var(&c.MaxCluster, "max-cluster", c.MaxCluster, "structures of this many µm³ or more are artifacts")
	fs.Float64Var(&c.SplitBallXY, "split-ball-xy", c.SplitBallXY, "cluster-splitting ball size in plane, µm")
	fs.Float64Var(&c.SplitBallZ, "split-ball-z", c.SplitBallZ, "cluster-splitting ball size along z, µm")
	fs.Float64Var(&c.SplitOverlap, "split-overlap", c.SplitOverlap, "cluster-splitting ball overlap fraction")
	fs.IntVar(&c.SplitIterations, "split-iterations", c.SplitIterations, "cluster-splitting iterations")
	fs.IntVar(&c.StartPlane, "start-plane", 0, "first plane to process")
	fs.IntVar(&c.EndPlane, "end-plane", 0, "plane after the last to process (0: the last plane)")
	fs.BoolVar(&f.xml, "xml", false, "also write cellfinder's XML marker file, OUT with .xml (Marker_Type 2 cells, 1 artifacts)")
	f.dev = addDeviceFlags(fs, "batch-size", "planes")
	return splitPipeline(fs, splitFuncs{plan: f.plan, planTask: f.planTask, run: f.run, runTask: f.runTask, merge: f.merge})
}

// parseVoxel parses "z,y,x".
func parseVoxel(s string) ([3]float64, error) {
	var v [3]float64
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return v, usagef("--voxel-size %q: want three numbers z,y,x in microns, e.g. 5,2,2", s)
	}
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return v, usagef("--voxel-size %q: %q is not a number", s, p)
		}
		if !(x > 0) {
			return v, usagef("--voxel-size %q: voxel sizes must be positive (got %g for %c)", s, x, "zyx"[i])
		}
		v[i] = x
	}
	return v, nil
}

// prepare checks the arguments, opens the input (headers only) and
// finishes the configuration. The caller closes the volume.
func (f *detectFlags) prepare(args []string) (*volume.Volume, error) {
	if len(args) != 2 {
		return nil, usagef("want an input volume and an output CSV, got %d arguments", len(args))
	}
	switch {
	case f.voxel != "":
		v, err := parseVoxel(f.voxel)
		if err != nil {
			return nil, err
		}
		f.cfg.VoxelSize, f.voxelFrom = v, "--voxel-size"
	default:
		f.voxelFrom = "default"
	}
	n, err := f.dev.batchSize()
	if err != nil {
		return nil, err
	}
	f.cfg.BatchSize = n
	f.cfg.PinMemory = f.dev.pin
	if err := f.cfg.Validate(); err != nil {
		return nil, usagef("%v", err)
	}
	vol, err := volume.Open(args[0])
	if err != nil {
		return nil, err
	}
	if f.voxel == "" && vol.VoxelSize[0] > 0 && vol.VoxelSize[1] > 0 && vol.VoxelSize[2] > 0 {
		f.cfg.VoxelSize, f.voxelFrom = vol.VoxelSize, "file"
	}
	if _, err := f.cfg.Params(vol.Info); err != nil {
		vol.Close()
		return nil, fmt.Errorf("%s: %w", vol.Name, err)
	}
	return vol, nil
}

// detectSetup is an opened detect run: the input, the outputs (when
// checked) and the backend with its budget.
type detectSetup struct {
	vol      *volume.Volume
	csv, xml string
	be       gpu.Backend
	note     string
	budget   plan.Budget
}

func (r *detectSetup) close() {
	r.be.Close()
	r.vol.Close()
}

// open prepares a run, checks the output paths when checkOut is set, and
// opens the backend; the config gets the budget's pinned cap.
func (f *detectFlags) open(args []string, checkOut bool) (*detectSetup, error) {
	vol, err := f.prepare(args)
	if err != nil {
		return nil, err
	}
	r := &detectSetup{vol: vol}
	if checkOut {
		if r.csv, r.xml, err = outputs(args[1], f.xml); err != nil {
			vol.Close()
			return nil, err
		}
	}
	if r.be, r.note, err = f.dev.open(); err != nil {
		vol.Close()
		return nil, err
	}
	if r.budget, err = f.dev.budget(r.be.Info()); err != nil {
		r.close()
		return nil, err
	}
	f.cfg.PinnedCap = r.budget.PinnedCap
	return r, nil
}

// plan plans a run from the same arguments (OUT.csv is optional: a plan
// writes nothing), reading only metadata.
func (f *detectFlags) plan(ctx context.Context, e *env, args []string) (*plan.Plan, error) {
	if len(args) == 1 {
		args = append(args, "")
	}
	r, err := f.open(args, false)
	if err != nil {
		return nil, err
	}
	defer r.close()
	return detect.MakePlan(r.vol, f.cfg, r.budget, r.be.Name())
}

// outputs checks the output paths before any work, so a bad one fails at
// once.
func outputs(out string, xml bool) (csvPath, xmlPath string, err error) {
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return "", "", fmt.Errorf("output %s is a folder: give a CSV file name", out)
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return "", "", fmt.Errorf("output %s: the folder %s does not exist", out, filepath.Dir(out))
	}
	if xml {
		xmlPath = detect.XMLPath(out)
		if xmlPath == out {
			return "", "", fmt.Errorf("output %s: the XML file would replace it; name the CSV *.csv", out)
		}
	}
	return out, xmlPath, nil
}

// detectSummary is the --json output of voxlab detect.
type detectSummary struct {
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

func (f *detectFlags) run(ctx context.Context, e *env, args []string) error {
	r, err := f.open(args, true)
	if err != nil {
		return err
	}
	defer r.close()
	// A plan that fails here fails again, with its message, in the run.
	if pl, err := detect.MakePlan(r.vol, f.cfg, r.budget, r.be.Name()); err == nil {
		defer limitMemory(e, pl)()
	}
	start := time.Now()
	var res *detect.Result
	err = runJob(ctx, e, f.out, "detect", r.note, func(ctx context.Context, p *job.Progress) error {
		var err error
		if res, err = detect.Run(ctx, p, r.be, f.cfg, r.vol, r.budget); err != nil {
			return err
		}
		return r.write(res.Candidates)
	})
	if err != nil {
		return err
	}
	return f.report(e, r, res, time.Since(start), 0)
}

// write writes the CSV, and the XML when asked, under temporary names
// committed together: when either fails, both keep what they held before
// (detect.WriteFiles).
func (r *detectSetup) write(c []detect.Candidate) error {
	return detect.WriteFiles(r.csv, r.xml, c)
}

// report prints the summary of a run, or of the merge of tasks tasks.
func (f *detectFlags) report(e *env, r *detectSetup, res *detect.Result, took time.Duration, tasks int) error {
	p, _ := f.cfg.Params(r.vol.Info)
	s := detectSummary{Input: r.vol.Name, Output: r.csv, XML: r.xml, Structures: res.Structures, Split: res.Split,
		Planes: p.Planes(), Seconds: took.Seconds(), Batch: res.Batch, Backend: r.be.Name(), Pinned: res.Pinned,
		PeakDevice: res.PeakDevice, VoxelSize: f.cfg.VoxelSize, VoxelFrom: f.voxelFrom, Warnings: res.Warnings, Tasks: tasks}
	for _, c := range res.Candidates {
		if c.Type == detect.Artifact {
			s.Artifacts++
		} else {
			s.Cells++
		}
	}
	if took > 0 && tasks == 0 {
		s.PlanesPerS = float64(s.Planes) / took.Seconds()
	}
	if f.out.json {
		return printJSON(e.stdout, s)
	}
	if tasks > 0 {
		notef(e, f.out, "merge detect: %d cells and %d artifacts in %d planes from %d tasks, merged in %.1f s (the tasks' batch up to %d, peak device %s) → %s",
			s.Cells, s.Artifacts, s.Planes, tasks, s.Seconds, s.Batch, plan.FormatBytes(s.PeakDevice), r.csv)
	} else {
		notef(e, f.out, "detect: %d cells and %d artifacts in %d planes (%.1f planes/s, batch %d, peak device %s) → %s",
			s.Cells, s.Artifacts, s.Planes, s.PlanesPerS, s.Batch, plan.FormatBytes(s.PeakDevice), r.csv)
	}
	if r.xml != "" {
		notef(e, f.out, "detect: cellfinder XML → %s", r.xml)
	}
	return nil
}
