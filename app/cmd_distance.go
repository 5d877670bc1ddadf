package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/distance"
	distreport "github.com/voxlab/voxlab/processing/distance/report"
	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

func init() {
	registerPipeline(&pipelineCmd{
		name:    "distance",
		summary: "distance matrices between two sets of cryo-EM maps (l2, corr, bioem, fsc, res)",
		usage: "GT SUB OUT_DIR [--metrics l2,corr,bioem,fsc,res] [--mask FILE | --mask-radius R] [--normalize median-zscore|none]\n" +
			"       [--low-memory] [--chunk-size N|auto] [--voxel-size Å] [--backend auto|cpu|cuda] [--pin-memory]\n" +
			"       [--host-memory SIZE] [--device-memory SIZE]",
		examples: []string{
			"voxlab distance maps/gt.npy maps/submitted.npy out/ --mask maps/mask.mrc",
			"voxlab distance gt_flat.npy sub/ out/ --low-memory --host-memory 8GiB --metrics l2,fsc,res --voxel-size 2.146",
			"voxlab plan distance gt.npy sub.npy out/ --low-memory --host-memory 8GiB --json",
		},
		setup: distanceSetup,
		paths: func(flag func(string) string, args []string) iocheck.Paths {
			return distance.Paths(arg(args, 0), arg(args, 1), arg(args, 2), flag("mask"))
		},
	})
}

// distanceFlags are the command's own flags.
type distanceFlags struct {
	metrics    string
	mask       string
	maskRadius float64
	normalize  string
	lowMemory  bool
	voxelSize  float64
	dev        *deviceFlags
	out        *outputFlags
}

// distanceInputs are the opened inputs, the configuration built from the
// flags and (after setup) the backend; close them when done.
type distanceInputs struct {
	gt, sub  *distance.StackMaps
	cfg      distance.Config
	maskDesc string
	outDir   string
	// be is the backend setup opened, note says which one auto picked.
	be   gpu.Backend
	note string
	// restore puts back the memory limit setup changed (nil: none).
	restore func()
}

func (in *distanceInputs) close() {
	if in.be != nil {
		in.be.Close()
	}
	for _, s := range []*distance.StackMaps{in.gt, in.sub} {
		if s != nil {
			s.Close()
		}
	}
	if in.restore != nil {
		in.restore()
		in.restore = nil
	}
}

func distanceSetup(fs *flag.FlagSet, out *outputFlags) (planFunc, runFunc) {
	f := &distanceFlags{out: out}
	fs.StringVar(&f.metrics, "metrics", "l2,corr,bioem,fsc,res", "comma-separated metrics: l2, l2sq, corr (a similarity), corr-distance, bioem, fsc, res")
	fs.StringVar(&f.mask, "mask", "", "mask map (MRC or any volume of box³): voxels where it is non-zero are compared")
	fs.Float64Var(&f.maskRadius, "mask-radius", 0, "compare the voxels within this many voxels of the box centre (instead of --mask)")
	fs.StringVar(&f.normalize, "normalize", "median-zscore", "normalisation of each map over the masked voxels: median-zscore or none")
	fs.BoolVar(&f.lowMemory, "low-memory", false, "stream the ground truth from disk chunk by chunk instead of loading it whole")
	fs.Float64Var(&f.voxelSize, "voxel-size", 0, "voxel size in Å, for res (default: from the MRC headers)")
	f.dev = addDeviceFlags(fs, "chunk-size", "ground-truth maps")

	return splitPipeline(fs, splitFuncs{plan: f.plan, planTask: f.planTask, run: f.run, runTask: f.runTask, merge: f.merge})
}

// plan plans a run from the same arguments (OUT_DIR is optional: a plan
// writes nothing), reading only headers.
func (f *distanceFlags) plan(ctx context.Context, e *env, args []string) (*plan.Plan, error) {
	if len(args) == 2 {
		args = append(args, "")
	}
	in, err := f.setup(nil, args)
	if err != nil {
		return nil, err
	}
	defer in.close()
	return distance.PlanRun(in.cfg, in.gt, in.sub, in.be)
}

// open checks the arguments and flags, opens both sets (headers only) and
// the mask, and builds the configuration.
func (f *distanceFlags) open(args []string) (*distanceInputs, error) {
	if len(args) != 3 {
		return nil, usagef("want GT SUB OUT_DIR, got %d arguments", len(args))
	}
	metrics, err := distance.ParseMetrics(f.metrics)
	if err != nil {
		return nil, usagef("--metrics: %v", err)
	}
	norm, err := distance.ParseNormalization(f.normalize)
	if err != nil {
		return nil, usagef("--normalize: %v", err)
	}
	if f.mask != "" && f.maskRadius != 0 {
		return nil, usagef("give --mask or --mask-radius, not both")
	}
	if f.maskRadius < 0 || f.voxelSize < 0 || math.IsNaN(f.maskRadius) || math.IsNaN(f.voxelSize) {
		return nil, usagef("--mask-radius and --voxel-size must be positive")
	}
	chunk, err := f.dev.batchSize()
	if err != nil {
		return nil, usagef("--chunk-size %q: want a positive number of maps or auto", f.dev.batch)
	}
	in := &distanceInputs{outDir: args[2]}
	ok := false
	defer func() {
		if !ok {
			in.close()
		}
	}()
	if in.gt, err = openMaps(args[0], "ground truth"); err != nil {
		return nil, err
	}
	if in.sub, err = openMaps(args[1], "submitted maps"); err != nil {
		return nil, err
	}
	box := in.gt.Box()
	if in.sub.Box() != box {
		return nil, fmt.Errorf("box sizes differ: %s holds %d³ maps but %s holds %d³ maps", args[0], box, args[1], in.sub.Box())
	}
	sizes := []voxelSource{{in.gt.VoxelSize(), args[0]}, {in.sub.VoxelSize(), args[1]}}
	var mask *distance.Mask
	switch {
	case f.mask != "":
		var vs float64
		if mask, vs, err = readMask(f.mask, box); err != nil {
			return nil, err
		}
		sizes = append(sizes, voxelSource{vs, f.mask})
		in.maskDesc = f.mask
	case f.maskRadius > 0:
		if mask, err = distance.SphereMask(box, f.maskRadius); err != nil {
			return nil, usagef("--mask-radius: %v", err)
		}
		in.maskDesc = fmt.Sprintf("sphere of radius %g voxels about voxel (%d, %d, %d)", f.maskRadius, box/2, box/2, box/2)
	default:
		in.maskDesc = "none (every voxel)"
	}
	vs, err := voxelSize(f.voxelSize, sizes)
	if err != nil {
		return nil, err
	}
	for _, m := range metrics {
		if m == distance.Res && vs == 0 {
			return nil, usagef("the res metric needs the voxel size: give --voxel-size Å (%s and %s have none in their headers)", args[0], args[1])
		}
	}
	in.cfg = distance.Config{
		Metrics: metrics, Mask: mask, Normalize: norm, VoxelSize: vs,
		LowMemory: f.lowMemory, Chunk: chunk, AutoChunk: chunk == 0, Pin: f.dev.pin,
	}
	ok = true
	return in, nil
}

func openMaps(path, what string) (*distance.StackMaps, error) {
	s, err := volume.OpenStack(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	m, err := distance.FromStack(s)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return m, nil
}

// readMask reads a mask volume of box³ and returns it with its voxel size
// (0 when its file has none).
func readMask(path string, box int) (*distance.Mask, float64, error) {
	v, err := volume.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("mask: %w", err)
	}
	defer v.Close()
	if v.Shape != [3]int{box, box, box} {
		return nil, 0, fmt.Errorf("mask %s is %d x %d x %d but the maps are %d³", path, v.Shape[0], v.Shape[1], v.Shape[2], box)
	}
	raw, err := v.ReadAll()
	if err != nil {
		return nil, 0, fmt.Errorf("mask: %w", err)
	}
	vals := make([]float32, box*box*box)
	volume.ToFloat32(vals, raw, v.DType)
	m, err := distance.MaskFromMap(box, vals)
	if err != nil {
		return nil, 0, fmt.Errorf("mask %s: %w", path, err)
	}
	return m, v.VoxelSize[2], nil
}

type voxelSource struct {
	size float64
	file string
}

// voxelSize reconciles the --voxel-size flag with the sizes the files'
// headers give (0: none): they must all agree to 0.1%.
func voxelSize(flagSize float64, from []voxelSource) (float64, error) {
	size, src := flagSize, "--voxel-size"
	for _, f := range from {
		if f.size <= 0 {
			continue
		}
		if size == 0 {
			size, src = f.size, f.file
			continue
		}
		if math.Abs(f.size-size) > 1e-3*size {
			return 0, fmt.Errorf("voxel sizes differ: %s has %g Å but %s has %g Å", src, size, f.file, f.size)
		}
	}
	return size, nil
}

// setup opens the inputs and the backend and puts the budget in the
// configuration. Given an env, it also makes the garbage collector keep
// the heap within the plan until the inputs are closed (limitMemory) — in
// a headless command only: in the GUI the limit would bind the whole app
// and every other job, so there the budget only sizes the chunks.
func (f *distanceFlags) setup(e *env, args []string) (*distanceInputs, error) {
	in, err := f.open(args)
	if err != nil {
		return nil, err
	}
	if in.be, in.note, err = f.dev.open(); err != nil {
		in.close()
		return nil, err
	}
	if in.cfg.Budget, err = f.dev.budget(in.be.Info()); err != nil {
		in.close()
		return nil, err
	}
	in.cfg.PinCap = in.cfg.Budget.PinnedCap
	if e != nil {
		// A plan that fails here fails again, with its message, in the
		// run itself.
		if pl, err := distance.PlanRun(in.cfg, in.gt, in.sub, in.be); err == nil {
			in.restore = limitMemory(e, pl)
		}
	}
	return in, nil
}

// meta describes a run for its report.
func (in *distanceInputs) meta(args []string) distreport.Meta {
	return distreport.Meta{
		GroundTruth: args[0], Submitted: args[1], Mask: in.maskDesc,
		Normalize: in.cfg.Normalize.String(), VoxelSize: in.cfg.VoxelSize,
		ChunkAuto: in.cfg.AutoChunk, Backend: in.be.Name(), BackendNote: in.note,
		Device: in.be.Info().Name, BLAS: blasName(in.be), PinMemory: in.cfg.Pin, Budget: in.cfg.Budget,
	}
}

// run runs the pipeline as a job and writes OUT_DIR.
func (f *distanceFlags) run(ctx context.Context, e *env, args []string) error {
	start := time.Now()
	in, err := f.setup(e, args)
	if err != nil {
		return err
	}
	defer in.close()
	return f.write(ctx, e, in, args, "distance", start, func(ctx context.Context, p *job.Progress) (*distance.Result, error) {
		return distance.Run(ctx, p, in.be, in.cfg, in.gt, in.sub)
	}, nil)
}

// write runs the job name: compute's result, then OUT_DIR written from it
// (matrices, CSVs, heat maps, summary.json) into a temporary folder
// renamed into place; then done (nil: nothing) and the summary, whose
// total time counts from start.
func (f *distanceFlags) write(ctx context.Context, e *env, in *distanceInputs, args []string, name string, start time.Time,
	compute func(context.Context, *job.Progress) (*distance.Result, error), done func()) error {
	// OUT_DIR is replaced as a whole: a rerun with fewer metrics leaves
	// no stale matrix of the earlier run beside the new ones.
	dir, err := outfile.ReplaceDir(in.outDir, distanceOutput)
	if err != nil {
		return err
	}
	defer dir.Abort()
	var sum *distreport.Summary
	err = runJob(ctx, e, f.out, name, in.note, func(ctx context.Context, p *job.Progress) error {
		res, err := compute(ctx, p)
		if err != nil {
			return err
		}
		p.Stage("writing "+in.outDir, int64(len(res.Metrics)), "metrics")
		if sum, err = distreport.Write(dir.Path, res, in.meta(args)); err != nil {
			return err
		}
		p.Add(int64(len(res.Metrics)))
		return nil
	})
	if err != nil {
		return err
	}
	if err := dir.Commit(); err != nil {
		return err
	}
	if done != nil {
		done()
	}
	sum.Timings.Total = time.Since(start).Seconds()
	return printDistanceSummary(e, f.out, in.outDir, sum)
}

// distanceOutput reports whether name is one that a distance run writes
// into OUT_DIR (distreport.Write: summary.json and each metric's .npy,
// .csv and .png), so that a folder holding only such names is a previous
// run's output, which the new run replaces; anything else in the folder
// is the user's, and the run refuses to delete it.
func distanceOutput(name string) bool {
	if name == "summary.json" {
		return true
	}
	base, ext := strings.TrimSuffix(name, filepath.Ext(name)), filepath.Ext(name)
	if ext != ".npy" && ext != ".csv" && ext != ".png" {
		return false
	}
	_, err := distance.ParseMetric(base)
	return err == nil && base == strings.ToLower(base)
}

func blasName(be gpu.Backend) string {
	if be.Name() == "cpu" {
		return distance.BLASName
	}
	return ""
}

func printDistanceSummary(e *env, out *outputFlags, dir string, s *distreport.Summary) error {
	if out.json {
		return printJSON(e.stdout, s)
	}
	if out.quiet {
		return nil
	}
	var names []string
	for _, m := range s.Metrics {
		names = append(names, m.Name)
	}
	fmt.Fprintf(e.stderr, "distance: %d ground-truth x %d submitted maps of %d³ (%d voxels compared), %s, chunk %d; %s in %s\n",
		s.NGroundTruth, s.NSubmitted, s.Box, s.MaskedVoxels, s.Pipeline, s.ChunkSize,
		strings.Join(names, ", "), dir)
	fmt.Fprintf(e.stderr, "distance: load %.2fs, distances %.2fs, write %.2fs; peak device %s, peak RSS %s\n",
		s.Timings.Load, s.Timings.Distances, s.Timings.Write, plan.FormatBytes(s.PeakDevice), plan.FormatBytes(s.PeakRSS))
	return nil
}
