package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/dezing"
	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/processing/volume/h5"
	"github.com/voxlab/voxlab/processing/volume/zarr"
)

func init() {
	registerPipeline(&pipelineCmd{
		name:    "dezing",
		summary: "remove zingers from a tomography scan: projections, darks and flats (remove_outlier)",
		usage: "IN OUT.h5|OUT.zarr [--kernel 3] [--dif 1000] [--darks-flats mean|median] [--flat-field] [--minus-log] " +
			"[--darks FILE --flats FILE] [--backend auto|cpu|cuda] [--pin-memory] [--batch-size N|auto] [--device-memory SIZE]",
		examples: []string{
			"voxlab dezing demo-data/tomo/scan.nxs dezinged.h5",
			"voxlab dezing demo-data/tomo/scan.nxs dezinged.ome.zarr",
			"voxlab dezing scan.nxs out.h5 --kernel 5 --dif 500 --darks-flats median --flat-field --minus-log",
			"voxlab dezing projections.npy out.h5 --darks darks.tif --flats flats.tif",
			"voxlab dezing scan.nxs out.h5 --backend cuda --pin-memory --device-memory 2GiB",
			"voxlab plan dezing scan.nxs --device-memory 2GiB --json",
		},
		setup: setupDezing,
		paths: func(flag func(string) string, args []string) iocheck.Paths {
			return dezing.Paths(arg(args, 0), arg(args, 1), flag("darks"), flag("flats"))
		},
	})
}

// dezingFlags are the flags of voxlab dezing.
type dezingFlags struct {
	cfg               dezing.Config
	reduce            string
	darks, flats      string
	clipLow, clipHigh float64
	dev               *deviceFlags
	out               *outputFlags
}

func setupDezing(fs *flag.FlagSet, out *outputFlags) (planFunc, runFunc) {
	f := &dezingFlags{cfg: dezing.DefaultConfig(), out: out}
	c := &f.cfg
	fs.IntVar(&c.Kernel, "kernel", c.Kernel, "side of the median cube: odd, 3 to 13")
	fs.Float64Var(&c.Dif, "dif", c.Dif, "outlier threshold in data units: a voxel with |x − median| ≥ dif becomes the median")
	fs.StringVar(&f.reduce, "darks-flats", "mean", "reduce the dezinged darks and flats to one frame by mean or median")
	fs.BoolVar(&c.FlatField, "flat-field", false, "write (I − D) / max(F − D, 1e-7) as float32 instead of the dezinged counts")
	fs.BoolVar(&c.MinusLog, "minus-log", false, "take −log of the flat-field result (needs --flat-field)")
	fs.Float64Var(&f.clipLow, "clip-low", -dezing.DefaultClip, "lower clipping bound of the flat-field result")
	fs.Float64Var(&f.clipHigh, "clip-high", dezing.DefaultClip, "upper clipping bound of the flat-field result")
	fs.StringVar(&f.darks, "darks", "", "darks of a plain volume IN (a NeXus scan has its own)")
	fs.StringVar(&f.flats, "flats", "", "flats of a plain volume IN (a NeXus scan has its own)")
	f.dev = addDeviceFlags(fs, "batch-size", "projections")
	return splitPipeline(fs, splitFuncs{plan: f.plan, planTask: f.planTask, run: f.run, runTask: f.runTask, merge: f.merge})
}

// scan is an opened input: its sources and what to close.
type scan struct {
	name   string
	in     dezing.Input
	closer []func() error
	// darks and flats name where they came from, for the attributes.
	darks, flats string
}

func (s *scan) Close() {
	for _, c := range s.closer {
		c()
	}
}

// volSource reads a volume through volume.Volume's checks and messages.
type volSource struct{ v *volume.Volume }

func (s volSource) Info() volume.Info                     { return s.v.Info }
func (s volSource) ReadSlab(z0, z1 int, dst []byte) error { return s.v.ReadSlab(z0, z1, dst) }
func (s volSource) Close() error                          { return s.v.Close() }

// prepare checks the flags and opens the inputs (headers only).
func (f *dezingFlags) prepare(args []string, needOut bool) (*scan, error) {
	if len(args) != 2 && (needOut || len(args) != 1) {
		return nil, usagef("want an input scan and an output .h5 file, got %d arguments", len(args))
	}
	r, err := dezing.ParseReduction(f.reduce)
	if err != nil {
		return nil, usagef("--darks-flats: %v", err)
	}
	f.cfg.Reduce = r
	f.cfg.ClipLow, f.cfg.ClipHigh = float32(f.clipLow), float32(f.clipHigh)
	if f.cfg.Block, err = f.dev.batchSize(); err != nil {
		return nil, err
	}
	f.cfg.Pin = f.dev.pin
	if err := f.cfg.Validate(); err != nil {
		return nil, usagef("%v", err)
	}
	s, err := openScan(args[0], f.darks, f.flats)
	if err != nil {
		return nil, err
	}
	if err := s.in.Shapes().Check(f.cfg); err != nil {
		s.Close()
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	return s, nil
}

// openScan opens a NeXus scan (image keys split the frames) or a plain
// volume with optional darks and flats files.
func openScan(in, darks, flats string) (*scan, error) {
	s := &scan{name: in}
	path, _ := volume.SplitSpec(in)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if h5.IsNeXus(path) {
		nx, err := h5.OpenNeXus(path)
		if err != nil {
			return nil, err
		}
		s.closer = append(s.closer, nx.Close)
		s.in.Projections = volSource{nx.Projections}
		if nx.Darks != nil {
			s.in.Darks, s.darks = volSource{nx.Darks}, path+" (image_key 2)"
		}
		if nx.Flats != nil {
			s.in.Flats, s.flats = volSource{nx.Flats}, path+" (image_key 1)"
		}
	} else {
		v, err := volume.Open(in)
		if err != nil {
			return nil, err
		}
		s.closer = append(s.closer, v.Close)
		s.in.Projections = volSource{v}
	}
	for _, extra := range []struct {
		spec string
		dst  *volume.Source
		name *string
	}{{darks, &s.in.Darks, &s.darks}, {flats, &s.in.Flats, &s.flats}} {
		if extra.spec == "" {
			continue
		}
		v, err := volume.Open(extra.spec)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.closer = append(s.closer, v.Close)
		*extra.dst, *extra.name = volSource{v}, extra.spec
	}
	return s, nil
}

// dezingSetup is an opened dezing run: the scan and its shapes, the
// output (when checked) and the backend, whose budget is in the config.
type dezingSetup struct {
	s      *scan
	shapes dezing.Shapes
	out    string
	be     gpu.Backend
	note   string
}

func (r *dezingSetup) close() {
	r.be.Close()
	r.s.Close()
}

// open prepares a run (OUT is optional unless needOut), checks the
// output when there is one, opens the backend and puts its budget in the
// config.
func (f *dezingFlags) open(args []string, needOut bool) (*dezingSetup, error) {
	s, err := f.prepare(args, needOut)
	if err != nil {
		return nil, err
	}
	r := &dezingSetup{s: s, shapes: s.in.Shapes()}
	if needOut {
		r.out = args[1]
		if err := checkOutput(r.out); err != nil {
			s.Close()
			return nil, err
		}
	}
	if r.be, r.note, err = f.dev.open(); err != nil {
		s.Close()
		return nil, err
	}
	if f.cfg.Budget, err = f.dev.budget(r.be.Info()); err != nil {
		r.close()
		return nil, err
	}
	f.cfg.WriterBytes = h5.WriterCacheBytes
	if isZarr(r.out) {
		f.cfg.WriterBytes = zarr.WriterBytes(dezing.OutInfo(r.shapes, f.cfg).PlaneBytes())
	}
	return r, nil
}

// plan plans a run from the same arguments (OUT is optional), reading
// only metadata.
func (f *dezingFlags) plan(ctx context.Context, e *env, args []string) (*plan.Plan, error) {
	f.cfg.Partials = e.partials
	r, err := f.open(args, false)
	if err != nil {
		return nil, err
	}
	defer r.close()
	return dezing.Plan(r.be, r.shapes, f.cfg)
}

// checkOutput refuses an output that is a folder or lies in a missing
// folder. (One that would write over an input was refused before:
// pipelineCmd.checkPaths.)
func checkOutput(out string) error {
	if st, err := os.Stat(out); err == nil && st.IsDir() && !isZarr(out) {
		return fmt.Errorf("output %s is a folder: give an .h5 file name, or a .zarr one for OME-Zarr", out)
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return fmt.Errorf("output %s: the folder %s does not exist", out, filepath.Dir(out))
	}
	return nil
}

// h5Output writes a run into an HDF5 file: /data, and /dark and /flat
// unless the flat-field correction used them.
type h5Output struct {
	file       *h5.File
	data       *h5.DatasetWriter
	rows, cols int
	flatField  bool
}

func (o *h5Output) Frames(dark, flat []float32) error {
	if o.flatField {
		return nil
	}
	for _, fr := range []struct {
		name  string
		frame []float32
	}{{"/dark", dark}, {"/flat", flat}} {
		if fr.frame == nil {
			continue
		}
		w, err := o.file.CreateDataset(fr.name, volume.Float32, []int{o.rows, o.cols})
		if err != nil {
			return err
		}
		if err := w.WriteSlab(0, volume.Bytes(fr.frame)); err != nil {
			return err
		}
	}
	return nil
}

func (o *h5Output) Slab(z0 int, data []byte) error { return o.data.WriteSlab(z0, data) }

// dezingSummary is the --json output of voxlab dezing.
type dezingSummary struct {
	Input       string   `json:"input"`
	Output      string   `json:"output"`
	Projections int      `json:"projections"`
	Darks       int      `json:"darks"`
	Flats       int      `json:"flats"`
	Kernel      int      `json:"kernel"`
	Dif         float64  `json:"dif"`
	Reduction   string   `json:"reduction"`
	FlatField   bool     `json:"flat_field"`
	MinusLog    bool     `json:"minus_log"`
	DType       string   `json:"dtype"`
	Seconds     float64  `json:"seconds"`
	VoxelsPerS  float64  `json:"voxels_per_second,omitempty"`
	Block       int      `json:"block_slices"`
	Backend     string   `json:"backend"`
	Pinned      bool     `json:"pin_memory"`
	PeakDevice  int64    `json:"peak_device_bytes"`
	Predicted   int64    `json:"predicted_peak_device_bytes"`
	ToDevice    int64    `json:"bytes_to_device"`
	FromDevice  int64    `json:"bytes_from_device"`
	Clipped     int64    `json:"clipped"`
	Warnings    []string `json:"warnings,omitempty"`
	// Tasks is the number of tasks a merge joined. A merge dezings the
	// darks and flats, not the projections: its summary has no voxels
	// per second.
	Tasks int `json:"tasks,omitempty"`
}

func (f *dezingFlags) run(ctx context.Context, e *env, args []string) error {
	// Someone shows partial results (the GUI): hand out a copy of each
	// finished block of projections as a *dezing.Block.
	f.cfg.Partials = e.partials
	r, err := f.open(args, true)
	if err != nil {
		return err
	}
	defer r.close()
	// Plan before creating the output, so that a device too small for one
	// block fails with the planner's message and leaves nothing behind.
	pl, err := dezing.Plan(r.be, r.shapes, f.cfg)
	if err != nil {
		return err
	}
	defer limitMemory(e, pl)()
	start := time.Now()
	var res *dezing.Result
	err = runJob(ctx, e, f.out, "dezing", r.note, func(ctx context.Context, p *job.Progress) error {
		var err error
		res, err = f.write(ctx, r, 0, func(out dezing.Output) (*dezing.Result, error) {
			return dezing.Run(ctx, p, r.be, f.cfg, r.s.in, out)
		})
		return err
	})
	if err != nil {
		return err
	}
	return f.report(e, r, res, time.Since(start), 0)
}

// write runs the pipeline (produce: a run or a merge) into a temporary
// HDF5 file and renames it into place on success. The attributes record
// block as block_slices, or the run's block when it is 0.
func (f *dezingFlags) write(ctx context.Context, r *dezingSetup, block int, produce func(dezing.Output) (*dezing.Result, error)) (res *dezing.Result, err error) {
	if isZarr(r.out) {
		return f.writeZarr(ctx, r, block, produce)
	}
	shapes := r.shapes
	info := dezing.OutInfo(shapes, f.cfg)
	file, err := h5.Create(r.out)
	if err != nil {
		return nil, err
	}
	// Abort does nothing after Commit: deferred whatever happens, a
	// failure or a panic leaves no temporary file behind.
	defer file.Abort()
	data, err := file.CreateDataset("/data", info.DType, info.Shape[:])
	if err != nil {
		return nil, err
	}
	if res, err = produce(&h5Output{file: file, data: data, rows: info.Shape[1], cols: info.Shape[2], flatField: f.cfg.FlatField}); err != nil {
		return nil, err
	}
	attrs := f.params(r, res, block)
	if err := file.SetAttrs("/voxlab/params", attrs); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, file.Commit()
}

// params are the attributes that record a run: its parameters, input
// and block, block as block_slices or the run's block when it is 0.
func (f *dezingFlags) params(r *dezingSetup, res *dezing.Result, block int) map[string]any {
	shapes := r.shapes
	if block == 0 {
		block = res.Plan.Block()
	}
	attrs := map[string]any{
		"kernel": f.cfg.Kernel, "dif": f.cfg.Dif, "reduction": f.cfg.Reduce.String(),
		"flat_field": f.cfg.FlatField, "minus_log": f.cfg.MinusLog,
		"version": buildVersion(), "input": r.s.name, "projections": shapes.Projections.Shape[0],
		"backend": r.be.Name(), "block_slices": block,
	}
	if f.cfg.FlatField {
		attrs["clip_low"], attrs["clip_high"] = float64(f.cfg.ClipLow), float64(f.cfg.ClipHigh)
	}
	if r.s.darks != "" {
		attrs["darks"], attrs["dark_frames"] = r.s.darks, shapes.Darks.Shape[0]
	}
	if r.s.flats != "" {
		attrs["flats"], attrs["flat_frames"] = r.s.flats, shapes.Flats.Shape[0]
	}
	return attrs
}

// buildVersion is voxlab's module version and VCS revision, as the Go
// toolchain recorded them in the binary.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}

// report prints the summary of a run, or of the merge of tasks tasks.
func (f *dezingFlags) report(e *env, r *dezingSetup, res *dezing.Result, took time.Duration, tasks int) error {
	shapes := r.shapes
	sum := dezingSummary{
		Input: r.s.name, Output: r.out, Projections: shapes.Projections.Shape[0], Darks: shapes.Darks.Shape[0],
		Flats: shapes.Flats.Shape[0], Kernel: f.cfg.Kernel, Dif: f.cfg.Dif, Reduction: f.cfg.Reduce.String(),
		FlatField: f.cfg.FlatField, MinusLog: f.cfg.MinusLog, DType: dezing.OutInfo(shapes, f.cfg).DType.String(),
		Seconds: took.Seconds(), Block: res.Plan.Block(), Backend: r.be.Name(), Pinned: f.cfg.Pin,
		PeakDevice: res.PeakDevice, Predicted: res.Plan.PeakDevice, ToDevice: res.ToDevice, FromDevice: res.FromDevice,
		Clipped: res.Clipped, Warnings: res.Warnings, Tasks: tasks,
	}
	if took > 0 && tasks == 0 {
		vox := shapes.Projections.Len() + shapes.Darks.Len() + shapes.Flats.Len()
		sum.VoxelsPerS = float64(vox) / took.Seconds()
	}
	if f.out.json {
		return printJSON(e.stdout, sum)
	}
	if tasks > 0 {
		notef(e, f.out, "merge dezing: %d projections from %d tasks, %d darks and %d flats dezinged here, in %.1f s (%d per block, peak device %s) → %s",
			sum.Projections, tasks, sum.Darks, sum.Flats, sum.Seconds, sum.Block, plan.FormatBytes(sum.PeakDevice), r.out)
		return nil
	}
	notef(e, f.out, "dezing: %d projections, %d darks, %d flats in %.1f s (%.1f M voxels/s, %d per block, peak device %s) → %s",
		sum.Projections, sum.Darks, sum.Flats, sum.Seconds, sum.VoxelsPerS/1e6, sum.Block, plan.FormatBytes(sum.PeakDevice), r.out)
	return nil
}
