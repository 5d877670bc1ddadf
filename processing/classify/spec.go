package classify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
)

func init() {
	pipeline.Register(Spec)
	pipeline.Register(CubesSpec)
}

var defaults = DefaultConfig()

// Spec is classification as voxlab offers it: `voxlab classify SIGNAL
// POINTS OUT --background BG --model FILE --voxel-size Z,Y,X`, its YAML
// step, its panel form and its split into tasks of candidates (parts.go).
var Spec = &pipeline.Spec{
	Name:    "classify",
	Title:   "Classify cells",
	Order:   25,
	Summary: "classify cell candidates as cells or non-cells with cellfinder's 3D ResNet",
	Usage: "SIGNAL POINTS OUT.xml|OUT.csv --background BG --model FILE --voxel-size Z,Y,X [--network-voxel-size 5,1,1] " +
		"[--cube-size 50,50,20] [--network-depth auto|18|34|50|101|152] [--batch-size N|auto] [--pin-memory] [--backend cpu|cuda|auto] [--normalize-channels [--normalization-sampling-planes 50]]",
	Examples: []string{
		"voxlab classify signal/ cells.xml classified.xml --background background/ --model resnet50_tv.h5 --voxel-size 5,2,2",
		"voxlab classify brain.h5:/ch0 candidates.csv classified.csv --background brain.h5:/ch1 --model model.keras --voxel-size 4,1.8,1.8 --backend cuda --pin-memory",
		"voxlab plan classify signal/ cells.xml --background background/ --model resnet50_tv.h5 --voxel-size 5,2,2 --device-memory 8GiB",
	},
	ArgsHelp: "a signal volume, the candidates (cellfinder XML or CSV) and an output .xml or .csv",
	Args: []pipeline.Param{
		{Name: "in", Kind: pipeline.Input, Label: "Signal volume", Help: "the signal channel: a folder of TIFF planes, a TIFF stack, HDF5, Zarr or NPY"},
		{Name: "points", Kind: pipeline.Input, Label: "Candidates", Help: "cell candidates: cellfinder's XML or a CSV of z,y,x (voxlab detect's output)"},
		{Name: "out", Kind: pipeline.Output, Label: "Output", Default: "classified.xml",
			Help: "cellfinder's XML (.xml: cells type 2, non-cells 1) or a CSV of z,y,x,type,probability (.csv)"},
	},
	Params: []pipeline.Param{
		{Name: "background", Kind: pipeline.Input, Optional: true, Label: "Background volume",
			Help: "the background (autofluorescence) channel, same shape as the signal; leave out only for a one-channel model"},
		{Name: "model", Kind: pipeline.Input, Label: "Model",
			Help: "the network's weights: cellfinder's resnet50_tv.h5 / resnet50_all.h5, or a .keras / .weights.h5 its training wrote"},
		{Name: "voxel-size", Kind: pipeline.Floats, Len: 3, Axes: "z,y,x", Label: "Voxel size z,y,x", Unit: "µm",
			Help: "the data's voxel size z,y,x in microns (default: the file's)", Check: positive},
		{Name: "network-voxel-size", Kind: pipeline.Floats, Len: 3, Axes: "z,y,x", Default: defaults.NetworkVoxelSize[:],
			Label: "Network voxel size z,y,x", Unit: "µm", Help: "the voxel size the network was trained at, z,y,x in microns", Check: positive},
		{Name: "cube-size", Kind: pipeline.Floats, Len: 3, Axes: "height,width,depth",
			Default: []float64{float64(defaults.CubeSize[0]), float64(defaults.CubeSize[1]), float64(defaults.CubeSize[2])},
			Label:   "Cube size h,w,d", Unit: "voxels", Help: "the network's cube: height, width, depth in network voxels", Check: wholeSizes},
		{Name: "network-depth", Kind: pipeline.Choice, Options: depthOptions(), Default: autoDepth, Advanced: true,
			Label: "Network depth", Help: "layers of cellfinder's ResNet: auto reads them from the model file; a number is checked against it"},
		{Name: "normalize-channels", Kind: pipeline.Bool, Label: "Normalise channels",
			Help: "normalise each channel to its mean and standard deviation over sampled planes (for models trained so)"},
		{Name: "normalization-sampling-planes", Kind: pipeline.Int, Default: DefaultNormSamplingPlanes, Advanced: true,
			Label: "Normalisation sampling planes", Check: atLeastOne,
			Help: "with channels normalised: the fewest planes the mean and standard deviation sample (every plane of a volume of no more, else every planes/N-th; cellfinder's normalization_n_sampling_planes)"},
		{Name: "precision", Kind: pipeline.Choice, Options: Precisions, Default: "fp32", Advanced: true,
			Help: "matrix products on CUDA: fp32, or tf32 / fp16 on tensor cores (the CPU computes in float32)"},
	},
	Batch: pipeline.Batch{Flag: "batch-size", Unit: "cubes", Label: "Cubes per batch"},
	Split: true,
	Live: pipeline.Live{Kind: pipeline.LivePoints, Result: func(args []string) string {
		if len(args) < 3 {
			return ""
		}
		return args[2]
	}},
	Suggest: suggest,
	Open:    open,
	Example: example,
}

// autoDepth is the network depth's choice that reads it from the model
// file.
const autoDepth = "auto"

func depthOptions() []string {
	o := []string{autoDepth}
	for _, d := range resnet.Depths {
		o = append(o, strconv.Itoa(d))
	}
	return o
}

// positive refuses a voxel size that is not positive.
func positive(v any) error {
	for i, x := range v.([]float64) {
		if !(x > 0) || math.IsInf(x, 0) {
			return fmt.Errorf("sizes must be positive (got %g for %c)", x, "zyx"[i])
		}
	}
	return nil
}

// atLeastOne refuses a count below 1.
func atLeastOne(v any) error {
	if n := v.(int); n < 1 {
		return fmt.Errorf("%d: want 1 or more", n)
	}
	return nil
}

// wholeSizes refuses a cube size that is not three whole numbers of 1 or
// more.
func wholeSizes(v any) error {
	for i, x := range v.([]float64) {
		if x < 1 || x != math.Trunc(x) || x > 1<<16 {
			return fmt.Errorf("the cube's %s is %g: give whole numbers of voxels", [3]string{"height", "width", "depth"}[i], x)
		}
	}
	return nil
}

// suggest proposes the points opened last as the candidates, the image
// they were found in (else the first opened) as the signal, the other
// image as the background, and the signal's voxel size
// (pipeline.SignalPair); the panel names the output after the signal.
func suggest(open []pipeline.Layer) ([]string, map[string]string) {
	sig, bg, pts := pipeline.SignalPair(open)
	if sig == "" {
		return nil, nil
	}
	return []string{sig, pts, ""}, map[string]string{"background": bg, "voxel-size": pipeline.VoxelText(open, sig)}
}

// inputs are the opened data of a classification or cubes run.
type inputs struct {
	cfg       Config
	in        Inputs
	specs     [3]string // signal, background, points as given
	voxelFrom string
}

// config reads the parameters both specs share.
func config(v pipeline.Values) Config {
	c := DefaultConfig()
	if vs := v.Floats("voxel-size"); vs != nil {
		c.VoxelSize = [3]float64(vs)
	}
	c.NetworkVoxelSize = [3]float64(v.Floats("network-voxel-size"))
	cs := v.Floats("cube-size")
	c.CubeSize = [3]int{int(cs[0]), int(cs[1]), int(cs[2])}
	c.NormalizeChannels, c.NormSamplingPlanes = v.Bool("normalize-channels"), v.Int("normalization-sampling-planes")
	return c
}

// openInputs opens the signal, the background and the candidates
// (headers and points only) and settles the voxel size.
func openInputs(r pipeline.Request, cfg Config) (*inputs, error) {
	ip := &inputs{cfg: cfg, specs: [3]string{r.Args[0], r.Values.String("background"), r.Args[1]}, voxelFrom: "--voxel-size"}
	sig, err := volume.Open(r.Args[0])
	if err != nil {
		return nil, err
	}
	ip.in.Signal = sig
	if bg := ip.specs[1]; bg != "" {
		if ip.in.Background, err = volume.Open(bg); err != nil {
			sig.Close()
			return nil, err
		}
	}
	if ip.cfg.VoxelSize == ([3]float64{}) {
		vs := sig.VoxelSize
		if !(vs[0] > 0 && vs[1] > 0 && vs[2] > 0) {
			ip.close()
			return nil, pipeline.Usagef("%s holds no voxel size: give --voxel-size Z,Y,X in microns", sig.Name)
		}
		ip.cfg.VoxelSize, ip.voxelFrom = vs, "file"
	}
	pts, err := points.Read(r.Args[1])
	if err != nil {
		ip.close()
		return nil, err
	}
	ip.in.Points, ip.in.PointsName = pts, r.Args[1]
	return ip, nil
}

func (ip *inputs) close() error {
	err := ip.in.Signal.Close()
	if ip.in.Background != nil {
		err = errors.Join(err, ip.in.Background.Close())
	}
	return err
}

func (ip *inputs) files() []string {
	var out []string
	for _, s := range ip.specs {
		if s != "" {
			p, _ := volume.SplitSpec(s)
			out = append(out, p)
		}
	}
	return out
}

// job is an opened classification run.
type classifyJob struct {
	*inputs
	s        *Session
	out      string
	modelSHA string
}

// open checks a request, opens the inputs (headers and points) and
// loads the model; the output is checked unless the run is only planned.
func open(r pipeline.Request) (pipeline.Job, error) {
	v := r.Values
	cfg := config(v)
	cfg.Model = v.String("model")
	if cfg.Model == "" {
		return nil, pipeline.Usagef("give the classification network's weights with --model FILE (cellfinder's resnet50_tv.h5, or a .keras / .weights.h5 its training wrote)")
	}
	if d := v.String("network-depth"); d != autoDepth {
		cfg.NetworkDepth, _ = strconv.Atoi(d) // one of depthOptions
	}
	cfg.Precision = v.String("precision")
	cfg.BatchSize, cfg.PinMemory = r.Batch, r.Pin
	if !r.PlanOnly {
		if err := CheckOutput(r.Args[2]); err != nil {
			return nil, pipeline.Usagef("%v", err)
		}
		if err := checkFolder(r.Args[2]); err != nil {
			return nil, err
		}
	}
	if err := checkModelFile(cfg.Model); err != nil {
		return nil, err
	}
	ip, err := openInputs(r, cfg)
	if err != nil {
		return nil, err
	}
	s, err := Open(ip.cfg, ip.in)
	if err != nil {
		ip.close()
		return nil, err
	}
	s.Live = r.Partials
	j := &classifyJob{inputs: ip, s: s}
	if !r.PlanOnly {
		j.out = r.Args[2]
	}
	return j, nil
}

// checkModelFile says clearly what is wrong with a model path before the
// weight file's reader does.
func checkModelFile(path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("model %s: no such file", path)
	case err != nil:
		return fmt.Errorf("model %s: %w", path, err)
	case st.IsDir():
		return fmt.Errorf("model %s is a folder: give the weight file (.h5, .weights.h5 or .keras)", path)
	}
	return nil
}

// checkFolder checks that an output's folder exists and that it is not
// a folder itself.
func checkFolder(out string) error {
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return fmt.Errorf("output %s is a folder: give a file name (.xml or .csv)", out)
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return fmt.Errorf("output %s: the folder %s does not exist", out, filepath.Dir(out))
	}
	return nil
}

func (j *classifyJob) Close() error { return j.close() }

func (j *classifyJob) Files() (inputs, outputs []string) {
	inputs = append(j.files(), j.s.Cfg.Model)
	if j.out != "" {
		outputs = []string{j.out}
	}
	return inputs, outputs
}

// on is the session's configuration on device d.
func (j *classifyJob) on(d pipeline.Device) {
	j.s.Cfg.PinnedCap = d.Budget.PinnedCap
}

func workersOf(be gpu.Backend) int {
	if c, ok := be.(*gpu.CPUBackend); ok {
		return c.Workers()
	}
	return 1
}

// Plan plans the whole run on d.
func (j *classifyJob) Plan(d pipeline.Device) (*plan.Plan, error) {
	j.on(d)
	return j.s.MakePlan(d.Budget, d.Backend.Name(), workersOf(d.Backend))
}

// Run classifies the candidates and writes OUT.
func (j *classifyJob) Run(ctx context.Context, p *job.Progress, d pipeline.Device) (*pipeline.Report, error) {
	j.on(d)
	start := time.Now()
	res, err := j.s.Run(ctx, p, d.Backend, d.Budget)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := res.Write(j.out); err != nil {
		return nil, err
	}
	return j.report(res, d.Backend.Name(), time.Since(start), 0), nil
}

// livePoints are the candidates idx, just classified, as the viewer's
// points (the viewer opens OUT in their place when the run ends).
func (s *Session) livePoints(res *Result, idx []int) pipeline.Points {
	out := make(pipeline.Points, len(idx))
	for k, i := range idx {
		p, c := res.Points[i], res.Candidates[i]
		out[k] = pipeline.Point{Z: p.Z, Y: p.Y, X: p.X, Type: c.Class.String(),
			Probability: float64(c.P), Scored: c.Class != points.Unknown}
	}
	return out
}

// Summary is the --json output of voxlab classify (and of its merge).
type Summary struct {
	Input      string `json:"input"`
	Background string `json:"background,omitempty"`
	Points     string `json:"points"`
	Output     string `json:"output"`
	Model      string `json:"model"`
	Depth      int    `json:"network_depth"`
	// DepthFrom is "model file" when the depth was read from it, "asked
	// (checked against the model file)" when it was given.
	DepthFrom  string `json:"network_depth_from"`
	Candidates int    `json:"candidates"`
	// Classified counts the cubes classified (cells and non-cells);
	// Unknown the candidates whose cube leaves the volume.
	Classified int        `json:"classified"`
	Cells      int        `json:"cells"`
	NonCells   int        `json:"non_cells"`
	Unknown    int        `json:"unknown"`
	Seconds    float64    `json:"seconds"`
	CubesPerS  float64    `json:"cubes_per_second,omitempty"`
	Batch      int        `json:"batch_cubes"`
	Backend    string     `json:"backend"`
	Pinned     bool       `json:"pinned"`
	PeakDevice int64      `json:"peak_device_bytes"`
	VoxelSize  [3]float64 `json:"voxel_size"`
	VoxelFrom  string     `json:"voxel_size_from"`
	Norm       [2]Norm    `json:"normalisation"`
	Warnings   []string   `json:"warnings,omitempty"`
	// Tasks is the number of tasks a merge joined (its seconds are the
	// merge's).
	Tasks int `json:"tasks,omitempty"`
}

// unknownText counts the candidates left unknown, and says why.
func unknownText(n int) string {
	if n == 0 {
		return "none left unknown"
	}
	return fmt.Sprintf("%d left unknown (their cube leaves the volume)", n)
}

// normNote says how the channels were normalised ("" when they were
// not).
func normNote(norm [2]Norm) string {
	if !norm[0].On {
		return ""
	}
	s := fmt.Sprintf("channels normalised over %s: signal mean %.6g, sd %.6g", pipeline.Plural(norm[0].Planes, "sampled plane"), norm[0].Mean, norm[0].Std)
	if norm[1].On {
		s += fmt.Sprintf("; background mean %.6g, sd %.6g", norm[1].Mean, norm[1].Std)
	}
	return s
}

// report says what a run, or the merge of tasks tasks, did.
func (j *classifyJob) report(res *Result, backend string, took time.Duration, tasks int) *pipeline.Report {
	s := Summary{Input: j.in.Signal.Name, Points: j.specs[2], Output: j.out, Model: res.Model, Depth: res.Depth, DepthFrom: "model file",
		Candidates: len(res.Candidates), Classified: res.Cells + res.NonCells, Cells: res.Cells, NonCells: res.NonCells, Unknown: res.Unknown,
		Seconds: took.Seconds(), Batch: res.Batch, Backend: backend, Pinned: res.Pinned, PeakDevice: res.PeakDevice,
		VoxelSize: j.s.Cfg.VoxelSize, VoxelFrom: j.voxelFrom, Norm: res.Norm, Warnings: slices.Clone(res.Warnings), Tasks: tasks}
	if j.in.Background != nil {
		s.Background = j.in.Background.Name
	}
	if j.s.Cfg.NetworkDepth != 0 {
		s.DepthFrom = "asked (checked against the model file)"
	}
	if took > 0 && tasks == 0 {
		s.CubesPerS = float64(s.Classified) / took.Seconds()
	}
	head := "classify"
	if tasks > 0 {
		head = fmt.Sprintf("merge classify (%d tasks)", tasks)
	}
	// The first note is the headline (the panel shows it on the job's
	// end): the counts.
	notes := []string{fmt.Sprintf("%s: %d of %d candidates classified with a ResNet-%d: %d cells, %d non-cells; %s → %s",
		head, s.Classified, s.Candidates, s.Depth, s.Cells, s.NonCells, unknownText(s.Unknown), j.out),
		fmt.Sprintf("%s: %.1f cubes/s, batch %d, %s, peak device %s", head, s.CubesPerS, s.Batch, s.Backend, plan.FormatBytes(s.PeakDevice))}
	if s.Unknown > 0 {
		notes = append(notes, "classify: the unknown candidates (cellfinder drops them) are written as type 1 without a probability")
	}
	if n := normNote(res.Norm); n != "" {
		notes = append(notes, "classify: "+n)
	}
	return &pipeline.Report{Summary: s, Notes: notes}
}
