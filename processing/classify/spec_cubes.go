package classify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// CubesSpec is `voxlab cubes SIGNAL POINTS OUTDIR`: the cubes a
// classification cuts, written as cellfinder's training cubes. It is a
// spec of its own (the pipeline spec describes one command per spec), so
// it has its YAML step, plan and panel form too; it does not split.
var CubesSpec = &pipeline.Spec{
	Name:    "cubes",
	Title:   "Training cubes",
	Order:   26,
	Summary: "write the cubes around cell candidates as cellfinder's training cubes (pCellz{z}y{y}x{x}Ch{c}.tif)",
	Usage:   "SIGNAL POINTS OUTDIR --background BG --voxel-size Z,Y,X [--network-voxel-size 5,1,1] [--cube-size 50,50,20] [--normalize-channels [--normalization-sampling-planes 50]]",
	Examples: []string{
		"voxlab cubes signal/ curated.xml training/ --background background/ --voxel-size 5,2,2",
	},
	ArgsHelp: "a signal volume, the candidates (cellfinder XML or CSV) and an output folder",
	Args: []pipeline.Param{
		{Name: "in", Kind: pipeline.Input, Label: "Signal volume", Help: "the signal channel: a folder of TIFF planes, a TIFF stack, HDF5, Zarr or NPY"},
		{Name: "points", Kind: pipeline.Input, Label: "Candidates",
			Help: "points: cellfinder XML or CSV; curated cells and non-cells go to cells/ and non_cells/"},
		{Name: "out", Kind: pipeline.Output, Folder: true, Label: "Output folder", Default: "cubes",
			Help: "the folder of cubes (replaced when it holds an earlier run's cubes) with cellfinder's training.yaml"},
	},
	Params:       classifyParams("background", "voxel-size", "network-voxel-size", "cube-size", "normalize-channels", "normalization-sampling-planes"),
	Batch:        pipeline.Batch{Flag: "batch-size", Unit: "cubes", Label: "Cubes per batch"},
	Suggest:      suggest,
	PointsAction: "Export training cubes…",
	PointsArg:    "points",
	Open:         openCubes,
	Example:      exampleCubes,
}

// classifyParams returns Spec's parameters named, the same words in
// both commands.
func classifyParams(names ...string) []pipeline.Param {
	out := make([]pipeline.Param, len(names))
	for i, n := range names {
		p, ok := Spec.Param(n)
		if !ok {
			panic("classify: no parameter " + n)
		}
		out[i] = p
	}
	return out
}

// cubesJob is an opened `voxlab cubes` run.
type cubesJob struct {
	*inputs
	s     *Session
	batch int
	out   string
}

func openCubes(r pipeline.Request) (pipeline.Job, error) {
	cfg := config(r.Values)
	cfg.BatchSize = r.Batch
	if !r.PlanOnly {
		out := r.Args[2]
		if st, err := os.Stat(out); err == nil && !st.IsDir() {
			return nil, fmt.Errorf("output %s is a file: give a folder for the cubes", out)
		}
		if st, err := os.Stat(filepath.Dir(filepath.Clean(out))); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("output %s: the folder %s does not exist", out, filepath.Dir(filepath.Clean(out)))
		}
	}
	ip, err := openInputs(r, cfg)
	if err != nil {
		return nil, err
	}
	s, err := OpenCubes(ip.cfg, ip.in)
	if err != nil {
		ip.close()
		return nil, err
	}
	j := &cubesJob{inputs: ip, s: s}
	if !r.PlanOnly {
		j.out = r.Args[2]
	}
	return j, nil
}

func (j *cubesJob) Close() error { return j.close() }

func (j *cubesJob) Files() (inputs, outputs []string) {
	if j.out != "" {
		outputs = []string{j.out}
	}
	return j.files(), outputs
}

// cubesPhases are what `voxlab cubes` holds at once: the plane ring, two
// batches of cubes (one cut, one written), the cuboids before rescaling,
// a page of a TIFF being written and the readers' buffers.
func (s *Session) cubesPhases(workers int) []plan.Phase {
	var planeBytes int64
	for _, v := range []*volume.Volume{s.In.Signal, s.In.Background} {
		if v != nil {
			planeBytes += v.Info.PlaneBytes()
		}
	}
	g := s.Geo
	arrays := []plan.Array{
		{Name: "plane ring (raw planes of every channel)", Where: plan.Host, Fixed: int64(s.ringPlanes()) * planeBytes},
		{Name: "cube batches (2: one cut, one written)", Where: plan.Host, PerUnit: 2 * 4 * int64(s.cubeLen())},
		{Name: "TIFF page", Where: plan.Host, Fixed: 4 * int64(g.Net[1]*g.Net[2])},
	}
	if t := s.tmpBytes(); t > 0 {
		arrays = append(arrays, plan.Array{Name: "cuboid before rescaling (per extraction worker)", Where: plan.Host, Fixed: int64(extractWorkers(workers)) * t})
	}
	if r := readerBytes(s.In.Signal, s.In.Background); r > 0 {
		arrays = append(arrays, plan.Array{Name: "input reader buffers", Where: plan.Host, Fixed: r})
	}
	return []plan.Phase{{Name: "cubes", Unit: "cubes", Units: max(len(s.Order), 1), Block: s.Cfg.BatchSize, MinBlock: 1, MaxBlock: DefaultBatch, Arrays: arrays}}
}

func (j *cubesJob) Plan(d pipeline.Device) (*plan.Plan, error) {
	p, err := plan.Make("cubes", j.s.cubesPhases(workersOf(d.Backend)), d.Budget)
	if err != nil {
		return nil, fmt.Errorf("cubes %s: %w", j.in.Signal.Name, err)
	}
	return p, nil
}

// CubesSummary is the --json output of voxlab cubes.
type CubesSummary struct {
	Input      string  `json:"input"`
	Points     string  `json:"points"`
	Output     string  `json:"output"`
	Layout     string  `json:"layout"`
	Candidates int     `json:"candidates"`
	Written    int     `json:"written"`
	Unknown    int     `json:"unknown"`
	Duplicate  int     `json:"duplicate"`
	Norm       [2]Norm `json:"normalisation"`
	Seconds    float64 `json:"seconds"`
}

func (j *cubesJob) Run(ctx context.Context, p *job.Progress, d pipeline.Device) (*pipeline.Report, error) {
	start := time.Now()
	pl, err := j.Plan(d)
	if err != nil {
		return nil, err
	}
	res, err := j.s.WriteCubes(ctx, p, j.out, workersOf(d.Backend), pl.Block())
	if err != nil {
		return nil, err
	}
	s := CubesSummary{Input: j.in.Signal.Name, Points: j.specs[2], Output: j.out, Layout: res.Layout, Candidates: len(j.in.Points),
		Written: res.Written, Unknown: res.Unknown, Duplicate: res.Duplicate, Norm: res.Norm, Seconds: time.Since(start).Seconds()}
	// The first note is the headline (the panel shows it on the job's
	// end): the counts.
	notes := []string{fmt.Sprintf("cubes: %d cubes written of %d candidates; %s → %s (%s layout)", s.Written, s.Candidates, unknownText(s.Unknown), j.out, s.Layout)}
	if n := normNote(res.Norm); n != "" {
		notes = append(notes, "cubes: "+n)
	}
	if s.Duplicate > 0 {
		notes = append(notes, fmt.Sprintf("cubes: %d candidates skipped: the same voxel as an earlier one (one file name)", s.Duplicate))
	}
	return &pipeline.Report{Summary: s, Notes: notes}, nil
}

// exampleCubes writes the example's inputs (WriteExample) and names the
// folder cubes beside them.
func exampleCubes(dir string) ([]string, error) {
	sig, bg, cands, _, err := WriteExample(dir)
	if err != nil {
		return nil, err
	}
	return []string{sig, cands, filepath.Join(dir, "cubes"), "--background", bg, "--voxel-size", "5,1,1", "--cube-size", "20,20,8"}, nil
}
