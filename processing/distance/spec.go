package distance

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/internal/hostblas"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

func init() { pipeline.Register(Spec) }

// Spec is the distance matrices as voxlab offers them: `voxlab distance
// GT SUB OUT_DIR`, its YAML step and its panel form. A run reads two sets
// of maps (volume.OpenStack) and a mask, and writes OUT_DIR: each
// metric's matrix as NPY, CSV and a PNG heat map, and summary.json
// (WriteReport); it splits into tasks of ground-truth rows (parts.go).
var Spec = &pipeline.Spec{
	Name:    "distance",
	Title:   "Distance matrix",
	Order:   30,
	Summary: "distance matrices between two sets of cryo-EM maps (l2, corr, bioem, fsc, res)",
	Usage: "GT SUB OUT_DIR [--metrics l2,corr,bioem,fsc,res] [--mask FILE | --mask-radius R] [--normalize median-zscore|none]\n" +
		"       [--low-memory] [--chunk-size N|auto] [--voxel-size Å] [--backend auto|cpu|cuda] [--pin-memory]\n" +
		"       [--host-memory SIZE] [--device-memory SIZE]",
	Examples: []string{
		"voxlab distance maps/gt.npy maps/submitted.npy out/ --mask maps/mask.mrc",
		"voxlab distance gt_flat.npy sub/ out/ --low-memory --host-memory 8GiB --metrics l2,fsc,res --voxel-size 2.146",
		"voxlab plan distance gt.npy sub.npy out/ --low-memory --host-memory 8GiB --json",
	},
	ArgsHelp: "GT SUB OUT_DIR",
	Args: []pipeline.Param{
		{Name: "gt", Kind: pipeline.Input, Label: "Ground-truth maps", Help: "NPY (n, box, box, box) or (n, box³), an MRC stack or a folder of MRC files"},
		{Name: "sub", Kind: pipeline.Input, Label: "Submitted maps", Help: "the maps to compare with the ground truth, in the same forms"},
		{Name: "out", Kind: pipeline.Output, Label: "Output folder", Default: "distances", Help: "<metric>.npy, .csv and .png per metric, and summary.json"},
	},
	Params: []pipeline.Param{
		{Name: "metrics", Kind: pipeline.Multi, Default: metricNames(DefaultMetrics), Options: metricNames(AllMetrics()),
			Help:  "comma-separated metrics: l2, l2sq, corr (a similarity), corr-distance, bioem, fsc, res",
			Check: func(v any) error { _, err := ParseMetrics(strings.Join(v.([]string), ",")); return err }},
		{Name: "mask", Kind: pipeline.Input, Optional: true, Help: "mask map (MRC or any volume of box³): voxels where it is non-zero are compared"},
		{Name: "mask-radius", Kind: pipeline.Float, Label: "Mask radius", Unit: "voxels",
			Help: "compare the voxels within this many voxels of the box centre (instead of --mask)"},
		{Name: "normalize", Kind: pipeline.Choice, Default: MedianZScore.String(), Options: []string{MedianZScore.String(), NoNormalization.String()},
			Help:  "normalisation of each map over the masked voxels: median-zscore or none",
			Check: func(v any) error { _, err := ParseNormalization(v.(string)); return err }},
		{Name: "low-memory", Kind: pipeline.Bool, Label: "Low memory: stream the ground truth",
			Help: "stream the ground truth from disk chunk by chunk instead of loading it whole"},
		{Name: "voxel-size", Kind: pipeline.Float, Label: "Voxel size", Unit: "Å", Help: "voxel size in Å, for res (default: from the MRC headers)"},
	},
	Batch:   pipeline.Batch{Flag: "chunk-size", Unit: "ground-truth maps", Label: "Ground-truth maps per chunk"},
	Split:   true,
	Live:    pipeline.Live{Kind: pipeline.LiveMatrices, Title: "Distances"},
	Suggest: suggest,
	Files:   files,
	Open:    open,
	Example: example,
}

func metricNames(ms []Metric) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return out
}

// suggest proposes the first open NPY or MRC stack as the ground truth,
// and the submitted maps and mask beside it when they exist (the demo's
// layout), and its voxel size when it is one number; the panel names
// the output folder after the ground truth
// (gt-distances, free).
func suggest(open []pipeline.Layer) ([]string, map[string]string) {
	gt := pipeline.FirstSpec(open, ".npy", ".mrc")
	if gt == "" {
		return nil, nil
	}
	dir := filepath.Dir(gt)
	sub := ""
	for _, name := range []string{"submitted.npy", "submitted.mrc", "submitted"} {
		if p := filepath.Join(dir, name); p != gt && exists(p) {
			sub = p
			break
		}
	}
	// The voxel size is one number: the layer's when it is the same
	// along every axis (the user's, or the MRC header's).
	params := map[string]string{}
	if l, ok := pipeline.Find(open, gt); ok && len(l.VoxelSize) == 3 && l.VoxelSize[0] == l.VoxelSize[1] && l.VoxelSize[1] == l.VoxelSize[2] {
		params["voxel-size"] = pipeline.Param{Kind: pipeline.Float}.Format(l.VoxelSize[0])
	}
	if m := filepath.Join(dir, "mask.mrc"); exists(m) {
		params["mask"] = m
	}
	return []string{gt, sub, ""}, params
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// setsJob is an opened distance run: both sets (headers only), the mask
// and the configuration.
type setsJob struct {
	gt, sub       *StackMaps
	gtArg, subArg string
	maskArg       string
	cfg           Config
	maskDesc      string
	outDir        string
	start         time.Time
}

// open checks a request and opens both sets and the mask.
func open(r pipeline.Request) (pipeline.Job, error) {
	v := r.Values
	metrics, err := ParseMetrics(strings.Join(v.Strings("metrics"), ","))
	if err != nil {
		return nil, pipeline.Usagef("--metrics: %v", err)
	}
	norm, err := ParseNormalization(v.String("normalize"))
	if err != nil {
		return nil, pipeline.Usagef("--normalize: %v", err)
	}
	maskPath, radius, voxel := v.String("mask"), v.Float("mask-radius"), v.Float("voxel-size")
	if maskPath != "" && radius != 0 {
		return nil, pipeline.Usagef("give --mask or --mask-radius, not both")
	}
	if radius < 0 || voxel < 0 || math.IsNaN(radius) || math.IsNaN(voxel) {
		return nil, pipeline.Usagef("--mask-radius and --voxel-size must be positive")
	}
	j := &setsJob{gtArg: r.Args[0], subArg: r.Args[1], maskArg: maskPath, outDir: r.Args[2], start: time.Now()}
	ok := false
	defer func() {
		if !ok {
			j.Close()
		}
	}()
	if j.gt, err = openMaps(r.Args[0], "ground truth"); err != nil {
		return nil, err
	}
	if j.sub, err = openMaps(r.Args[1], "submitted maps"); err != nil {
		return nil, err
	}
	box := j.gt.Box()
	if j.sub.Box() != box {
		return nil, fmt.Errorf("box sizes differ: %s holds %d³ maps but %s holds %d³ maps", r.Args[0], box, r.Args[1], j.sub.Box())
	}
	sizes := []voxelSource{{j.gt.VoxelSize(), r.Args[0]}, {j.sub.VoxelSize(), r.Args[1]}}
	var mask *Mask
	switch {
	case maskPath != "":
		var vs float64
		if mask, vs, err = readMask(maskPath, box); err != nil {
			return nil, err
		}
		sizes = append(sizes, voxelSource{vs, maskPath})
		j.maskDesc = maskPath
	case radius > 0:
		if mask, err = SphereMask(box, radius); err != nil {
			return nil, pipeline.Usagef("--mask-radius: %v", err)
		}
		j.maskDesc = fmt.Sprintf("sphere of radius %g voxels about voxel (%d, %d, %d)", radius, box/2, box/2, box/2)
	default:
		j.maskDesc = "none (every voxel)"
	}
	vs, err := reconcileVoxelSize(voxel, sizes)
	if err != nil {
		return nil, err
	}
	for _, m := range metrics {
		if m == Res && vs == 0 {
			return nil, pipeline.Usagef("the res metric needs the voxel size: give --voxel-size Å (%s and %s have none in their headers)", r.Args[0], r.Args[1])
		}
	}
	j.cfg = Config{
		Metrics: metrics, Mask: mask, Normalize: norm, VoxelSize: vs,
		LowMemory: v.Bool("low-memory"), Chunk: r.Batch, AutoChunk: r.Batch == 0, Pin: r.Pin,
	}
	ok = true
	return j, nil
}

func (j *setsJob) Close() error {
	for _, s := range []*StackMaps{j.gt, j.sub} {
		if s != nil {
			s.Close()
		}
	}
	return nil
}

// on is the configuration on device d: its budget and pinned cap.
func (j *setsJob) on(d pipeline.Device) Config {
	c := j.cfg
	c.Budget, c.PinCap = d.Budget, d.Budget.PinnedCap
	return c
}

// Plan plans the whole run on d, reading only headers.
func (j *setsJob) Plan(d pipeline.Device) (*plan.Plan, error) {
	return PlanRun(j.on(d), j.gt, j.sub, d.Backend)
}

// Run computes the matrices and writes OUT_DIR.
func (j *setsJob) Run(ctx context.Context, p *job.Progress, d pipeline.Device) (*pipeline.Report, error) {
	return j.write(p, d, func() (*Result, error) { return Run(ctx, p, d.Backend, j.on(d), j.gt, j.sub) })
}

// write writes OUT_DIR from compute's result (matrices, CSVs, heat maps,
// summary.json) into a temporary folder renamed into place.
func (j *setsJob) write(p *job.Progress, d pipeline.Device, compute func() (*Result, error)) (*pipeline.Report, error) {
	// OUT_DIR is replaced as a whole: a rerun with fewer metrics leaves
	// no stale matrix of the earlier run beside the new ones.
	dir, err := outfile.ReplaceDir(j.outDir, isOutput)
	if err != nil {
		return nil, err
	}
	defer dir.Abort()
	res, err := compute()
	if err != nil {
		return nil, err
	}
	p.Stage("writing "+j.outDir, int64(len(res.Metrics)), "metrics")
	sum, err := WriteReport(dir.Path, res, j.meta(d))
	if err != nil {
		return nil, err
	}
	p.Add(int64(len(res.Metrics)))
	if err := dir.Commit(); err != nil {
		return nil, err
	}
	sum.Timings.Total = time.Since(j.start).Seconds()
	return j.report(sum), nil
}

// meta describes a run for its report.
func (j *setsJob) meta(d pipeline.Device) Meta {
	c := j.on(d)
	return Meta{
		GroundTruth: j.gtArg, Submitted: j.subArg, Mask: j.maskDesc,
		Normalize: c.Normalize.String(), VoxelSize: c.VoxelSize,
		ChunkAuto: c.AutoChunk, Backend: d.Backend.Name(), BackendNote: d.Note,
		Device: d.Backend.Info().Name, BLAS: blasName(d.Backend), PinMemory: c.Pin, Budget: c.Budget,
	}
}

func blasName(be gpu.Backend) string {
	if be.Name() == "cpu" {
		return hostblas.Name
	}
	return ""
}

// report is the summary and its two lines.
func (j *setsJob) report(s *Summary) *pipeline.Report {
	var names []string
	for _, m := range s.Metrics {
		names = append(names, m.Name)
	}
	return &pipeline.Report{Summary: s, Notes: []string{
		fmt.Sprintf("distance: %d ground-truth x %d submitted maps of %d³ (%d voxels compared), %s, chunk %d; %s in %s",
			s.NGroundTruth, s.NSubmitted, s.Box, s.MaskedVoxels, s.Pipeline, s.ChunkSize, strings.Join(names, ", "), j.outDir),
		fmt.Sprintf("distance: load %.2fs, distances %.2fs, write %.2fs; peak device %s, peak RSS %s",
			s.Timings.Load, s.Timings.Distances, s.Timings.Write, plan.FormatBytes(s.PeakDevice), plan.FormatBytes(s.PeakRSS)),
	}}
}

// isOutput reports whether name is one that a distance run writes into
// OUT_DIR (WriteReport: summary.json and each metric's .npy, .csv and
// .png), so that a folder holding only such names is a previous run's
// output, which the new run replaces; anything else in the folder is
// the user's, and the run refuses to delete it.
func isOutput(name string) bool {
	if name == "summary.json" {
		return true
	}
	base, ext := strings.TrimSuffix(name, filepath.Ext(name)), filepath.Ext(name)
	if ext != ".npy" && ext != ".csv" && ext != ".png" {
		return false
	}
	_, err := ParseMetric(base)
	return err == nil && base == strings.ToLower(base)
}

func openMaps(path, what string) (*StackMaps, error) {
	s, err := volume.OpenStack(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	m, err := FromStack(s)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return m, nil
}

// readMask reads a mask volume of box³ and returns it with its voxel size
// (0 when its file has none).
func readMask(path string, box int) (*Mask, float64, error) {
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
	m, err := MaskFromMap(box, vals)
	if err != nil {
		return nil, 0, fmt.Errorf("mask %s: %w", path, err)
	}
	return m, v.VoxelSize[2], nil
}

type voxelSource struct {
	size float64
	file string
}

// reconcileVoxelSize reconciles the --voxel-size flag with the sizes the
// files' headers give (0: none): they must all agree to 0.1%.
func reconcileVoxelSize(flagSize float64, from []voxelSource) (float64, error) {
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
