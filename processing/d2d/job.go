package d2d

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
)

// costFile is one metric's cost matrix.
type costFile struct {
	Metric, Path string
}

// analysis is an opened d2d run: the cost matrices (their shapes
// checked), the ground truth's metadata and the submitted populations
// (small: read whole), the configuration.
type analysis struct {
	costArg, outDir, metaArg, popArg string
	costs                            []costFile
	rows, cols                       int
	ground                           Ground
	pops                             []float64
	cfg                              Config
	batch                            int
	start                            time.Time
}

// open checks a request, the shapes of its cost matrices and the counts
// of its populations against them.
func open(r pipeline.Request) (pipeline.Job, error) {
	v := r.Values
	a := &analysis{costArg: r.Args[0], outDir: r.Arg(1), metaArg: v.String("metadata"), popArg: v.String("populations"),
		batch: r.Batch, start: time.Now(),
		cfg: Config{Replicates: v.Int("replicates"), Pool: v.Int("pool"), Fraction: v.Float("fraction"),
			KLIterations: v.Int("kl-iterations"), KLTolerance: v.Float("kl-tolerance")}}
	if a.metaArg == "" || a.popArg == "" {
		return nil, pipeline.Usagef("give the ground truth's metadata (--metadata GT.csv) and the submitted populations (--populations POP)")
	}
	var err error
	if a.costs, err = costFiles(a.costArg, v.String("metrics")); err != nil {
		return nil, err
	}
	for k, c := range a.costs {
		rows, cols, err := matrixShape(c.Path)
		if err != nil {
			return nil, err
		}
		if k > 0 && (rows != a.rows || cols != a.cols) {
			return nil, fmt.Errorf("cost matrices differ in shape: %s is %d × %d but %s is %d × %d", a.costs[0].Path, a.rows, a.cols, c.Path, rows, cols)
		}
		a.rows, a.cols = rows, cols
	}
	if a.ground, err = readMetadata(a.metaArg); err != nil {
		return nil, err
	}
	if len(a.ground.Populations) != a.rows {
		return nil, fmt.Errorf("%s holds %d ground-truth maps but the cost matrix %s has %d rows: the metadata's rows must be the cost matrix's ground-truth maps, in order",
			a.metaArg, len(a.ground.Populations), a.costs[0].Path, a.rows)
	}
	if a.pops, err = readPopulations(a.popArg); err != nil {
		return nil, err
	}
	if len(a.pops) != a.cols {
		return nil, fmt.Errorf("%s holds %d populations but the cost matrix %s has %d columns (submitted maps): give one population per submitted map",
			a.popArg, len(a.pops), a.costs[0].Path, a.cols)
	}
	if k := replicateSize(a.cfg.Fraction, a.rows); k < a.cfg.Pool {
		return nil, pipeline.Usagef("a replicate draws %d of the %d ground-truth maps (--fraction %g), fewer than one window of --pool %d",
			k, a.rows, a.cfg.Fraction, a.cfg.Pool)
	}
	return a, nil
}

// costFiles lists the cost matrices of COST: the file itself (its stem
// names the metric), or a distance output folder's <metric>.npy files —
// those --metrics names, or every one.
func costFiles(cost, metrics string) ([]costFile, error) {
	st, err := os.Stat(cost)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		if metrics != "" {
			return nil, pipeline.Usagef("--metrics picks matrices of a distance output folder; %s is one matrix", cost)
		}
		return []costFile{{strings.TrimSuffix(filepath.Base(cost), filepath.Ext(cost)), cost}}, nil
	}
	var out []costFile
	if metrics != "" {
		for _, m := range strings.Split(metrics, ",") {
			m = strings.TrimSpace(m)
			p := filepath.Join(cost, m+".npy")
			if _, err := os.Stat(p); err != nil {
				return nil, fmt.Errorf("--metrics %s: %s has no %s.npy", m, cost, m)
			}
			out = append(out, costFile{m, p})
		}
		return out, nil
	}
	names, err := filepath.Glob(filepath.Join(cost, "*.npy"))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	for _, p := range names {
		out = append(out, costFile{strings.TrimSuffix(filepath.Base(p), ".npy"), p})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no cost matrix (<metric>.npy, as voxlab distance writes)", cost)
	}
	return out, nil
}

// matrixShape reads a cost matrix's header.
func matrixShape(path string) (rows, cols int, err error) {
	v, err := volume.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer v.Close()
	if v.Shape[0] != 1 || !v.DType.IsFloat() {
		return 0, 0, fmt.Errorf("%s: a %d × %d × %d array of %s; a cost matrix is 2D float (ground-truth maps × submitted maps)",
			path, v.Shape[0], v.Shape[1], v.Shape[2], v.DType)
	}
	return v.Shape[1], v.Shape[2], nil
}

func (a *analysis) Close() error { return nil }

// Run analyses every metric's matrix and writes OUT.
func (a *analysis) Run(ctx context.Context, p *job.Progress, d pipeline.Device) (*pipeline.Report, error) {
	pl, err := a.Plan(d)
	if err != nil {
		return nil, err
	}
	p.Stage("replicates", int64(len(a.costs)*a.cfg.Replicates), "replicates")
	res := make([]metricResult, len(a.costs))
	for k, c := range a.costs {
		cost, _, _, err := readCost(c.Path)
		if err != nil {
			return nil, err
		}
		reps, err := analyseParallel(ctx, cost, a.rows, a.cols, a.ground, a.pops, a.cfg, pl.Block(), func() { p.Add(1) })
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Path, err)
		}
		res[k] = metricResult{Metric: c.Metric, Path: c.Path, Replicates: reps}
		p.Partial(pipeline.MatrixChunk{Name: c.Metric + " transport", Unit: "mass", RowLabel: "ground-truth window (pc1)",
			ColLabel: "submitted map", Rows: reps[0].Windows, Cols: a.cols, TotalRows: reps[0].Windows, Values: slices.Clone(reps[0].PlanSubmitted)})
	}
	sum, err := a.write(res, pl)
	if err != nil {
		return nil, err
	}
	return a.report(sum), nil
}
