package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/dezing"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/processing/volume/h5"
)

func init() {
	registerPipeline(&pipelineCmd{
		name:    "dezing",
		summary: "remove zingers from a tomography scan: projections, darks and flats (remove_outlier)",
		usage: "IN OUT.h5 [--kernel 3] [--dif 1000] [--darks-flats mean|median] [--flat-field] [--minus-log] " +
			"[--darks FILE --flats FILE] [--backend auto|cpu|cuda] [--pin-memory] [--batch-size N|auto] [--device-memory SIZE]",
		examples: []string{
			"voxlab dezing demo-data/tomo/scan.nxs dezinged.h5",
			"voxlab dezing scan.nxs out.h5 --kernel 5 --dif 500 --darks-flats median --flat-field --minus-log",
			"voxlab dezing projections.npy out.h5 --darks darks.tif --flats flats.tif",
			"voxlab dezing scan.nxs out.h5 --backend cuda --pin-memory --device-memory 2GiB",
			"voxlab plan dezing scan.nxs --device-memory 2GiB --json",
		},
		setup: setupDezing,
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
	return f.plan, splitRunner(fs, f.run, f.runTask, f.merge)
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

// setup opens the backend and finishes the config with its budget.
func (f *dezingFlags) setup() (gpu.Backend, string, error) {
	be, note, err := f.dev.open()
	if err != nil {
		return nil, "", err
	}
	b, err := f.dev.budget(be.Info())
	if err != nil {
		be.Close()
		return nil, "", err
	}
	f.cfg.Budget = b
	return be, note, nil
}

// plan plans a run from the same arguments (OUT is optional), reading
// only metadata.
func (f *dezingFlags) plan(ctx context.Context, e *env, args []string) (*plan.Plan, error) {
	s, err := f.prepare(args, false)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	f.cfg.Partials = e.partials
	be, _, err := f.setup()
	if err != nil {
		return nil, err
	}
	defer be.Close()
	return dezing.Plan(be, s.in.Shapes(), f.cfg)
}

// checkOutput refuses an output that is a folder, lies in a missing
// folder, or is the input itself.
func checkOutput(out, in string) error {
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return fmt.Errorf("output %s is a folder: give an .h5 file name", out)
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return fmt.Errorf("output %s: the folder %s does not exist", out, filepath.Dir(out))
	}
	inPath, _ := volume.SplitSpec(in)
	a, errA := os.Stat(inPath)
	b, errB := os.Stat(out)
	if errA == nil && errB == nil && os.SameFile(a, b) {
		return fmt.Errorf("output %s is the input: inputs are never overwritten", out)
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
	VoxelsPerS  float64  `json:"voxels_per_second"`
	Block       int      `json:"block_slices"`
	Backend     string   `json:"backend"`
	Pinned      bool     `json:"pin_memory"`
	PeakDevice  int64    `json:"peak_device_bytes"`
	Predicted   int64    `json:"predicted_peak_device_bytes"`
	ToDevice    int64    `json:"bytes_to_device"`
	FromDevice  int64    `json:"bytes_from_device"`
	Clipped     int64    `json:"clipped"`
	Warnings    []string `json:"warnings,omitempty"`
}

func (f *dezingFlags) run(ctx context.Context, e *env, args []string) error {
	s, err := f.prepare(args, true)
	if err != nil {
		return err
	}
	defer s.Close()
	// Someone shows partial results (the GUI): hand out a copy of each
	// finished block of projections as a *dezing.Block.
	f.cfg.Partials = e.partials
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
	// Plan before creating the output, so that a device too small for one
	// block fails with the planner's message and leaves nothing behind.
	if _, err := dezing.Plan(be, shapes, f.cfg); err != nil {
		return err
	}
	sinks, done, err := jobSinks(e, f.out)
	if err != nil {
		return err
	}
	if !f.out.quiet && !f.out.json {
		fmt.Fprintln(e.stderr, note)
	}
	start := time.Now()
	var res *dezing.Result
	err = job.Run(ctx, "dezing", func(ctx context.Context, p *job.Progress) error {
		var err error
		res, err = f.write(ctx, p, be, s, outPath)
		return err
	}, sinks...)
	if derr := done(); err == nil {
		err = derr
	}
	if err != nil {
		return err
	}
	return f.report(e, s, shapes, res, be.Name(), outPath, time.Since(start))
}

// write runs the pipeline into a temporary HDF5 file and renames it into
// place on success.
func (f *dezingFlags) write(ctx context.Context, p *job.Progress, be gpu.Backend, s *scan, outPath string) (res *dezing.Result, err error) {
	shapes := s.in.Shapes()
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
	res, err = dezing.Run(ctx, p, be, f.cfg, s.in, &h5Output{file: file, data: data, rows: info.Shape[1], cols: info.Shape[2], flatField: f.cfg.FlatField})
	if err != nil {
		return nil, err
	}
	attrs := map[string]any{
		"kernel": f.cfg.Kernel, "dif": f.cfg.Dif, "reduction": f.cfg.Reduce.String(),
		"flat_field": f.cfg.FlatField, "minus_log": f.cfg.MinusLog,
		"version": buildVersion(), "input": s.name, "projections": shapes.Projections.Shape[0],
		"backend": be.Name(), "block_slices": res.Plan.Block(),
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

func (f *dezingFlags) report(e *env, s *scan, shapes dezing.Shapes, res *dezing.Result, backend, outPath string, took time.Duration) error {
	sum := dezingSummary{
		Input: s.name, Output: outPath, Projections: shapes.Projections.Shape[0], Darks: shapes.Darks.Shape[0],
		Flats: shapes.Flats.Shape[0], Kernel: f.cfg.Kernel, Dif: f.cfg.Dif, Reduction: f.cfg.Reduce.String(),
		FlatField: f.cfg.FlatField, MinusLog: f.cfg.MinusLog, DType: dezing.OutInfo(shapes, f.cfg).DType.String(),
		Seconds: took.Seconds(), Block: res.Plan.Block(), Backend: backend, Pinned: f.cfg.Pin,
		PeakDevice: res.PeakDevice, Predicted: res.Plan.PeakDevice, ToDevice: res.ToDevice, FromDevice: res.FromDevice,
		Clipped: res.Clipped, Warnings: res.Warnings,
	}
	if took > 0 {
		vox := shapes.Projections.Len() + shapes.Darks.Len() + shapes.Flats.Len()
		sum.VoxelsPerS = float64(vox) / took.Seconds()
	}
	if f.out.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	if !f.out.quiet {
		fmt.Fprintf(e.stderr, "dezing: %d projections, %d darks, %d flats in %.1f s (%.1f M voxels/s, %d per block, peak device %s) → %s\n",
			sum.Projections, sum.Darks, sum.Flats, sum.Seconds, sum.VoxelsPerS/1e6, sum.Block, plan.FormatBytes(sum.PeakDevice), outPath)
	}
	return nil
}
