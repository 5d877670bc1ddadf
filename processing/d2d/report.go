package d2d

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/voxlab/voxlab/processing/matrix"
	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// metricResult is one metric's replicates.
type metricResult struct {
	Metric, Path string
	Replicates   []Replicate
}

// Summary is summary.json.
type Summary struct {
	Cost          string          `json:"cost"`
	Metadata      string          `json:"metadata"`
	Populations   string          `json:"populations"`
	NGroundTruth  int             `json:"n_ground_truth"`
	NSubmitted    int             `json:"n_submitted"`
	Replicates    int             `json:"n_replicates"`
	Pool          int             `json:"n_pool_microstate"`
	Fraction      float64         `json:"replicate_fraction"`
	KLIterations  int             `json:"kl_n_iter"`
	KLTolerance   float64         `json:"kl_break_atol"`
	ReplicateMaps int             `json:"maps_per_replicate"`
	Windows       int             `json:"windows"`
	Layout        string          `json:"layout"`
	Metrics       []MetricSummary `json:"metrics"`
	Seconds       float64         `json:"seconds"`
	Plan          *plan.Plan      `json:"plan"`
}

// MetricSummary is one metric's part of summary.json: its files and
// each replicate's numbers.
type MetricSummary struct {
	Metric     string             `json:"metric"`
	Cost       string             `json:"cost"`
	Files      []string           `json:"files"`
	Replicates []ReplicateSummary `json:"replicates"`
}

// ReplicateSummary is a replicate's scalars, named as the challenge's
// results name them.
type ReplicateSummary struct {
	Seed            int     `json:"seed"`
	EMDOpt          float64 `json:"EMD_opt"`
	EMDSubmitted    float64 `json:"EMD_submitted"`
	KLpqOpt         float64 `json:"klpq_opt"`
	KLqpOpt         float64 `json:"klqp_opt"`
	KLpqSubmitted   float64 `json:"klpq_submitted"`
	KLqpSubmitted   float64 `json:"klqp_submitted"`
	KLIterStop      int     `json:"iter_stop"`
	KLEpsStop       float64 `json:"eps_stop"`
	SubmittedPivots int     `json:"emd_submitted_pivots"`
}

// arrays are the NPY files written per metric (<metric>_<name>.npy),
// replicates first; layout explains them in summary.json.
var arrays = []struct {
	name  string
	get   func(r *Replicate) []float64
	three bool // (replicates, windows, submitted maps)
}{
	{"rows", func(r *Replicate) []float64 { return ints(r.Rows) }, false},
	{"cost_rank_windowed", func(r *Replicate) []float64 { return r.W }, true},
	{"gt_windowed", func(r *Replicate) []float64 { return r.Wp }, false},
	{"q_opt_emd", func(r *Replicate) []float64 { return r.QOptEMD }, false},
	{"transport_opt", func(r *Replicate) []float64 { return r.PlanOpt }, true},
	{"transport_submitted", func(r *Replicate) []float64 { return r.PlanSubmitted }, true},
	{"q_opt_kl", func(r *Replicate) []float64 { return r.QOptKL }, false},
	{"assignment", func(r *Replicate) []float64 { return r.A }, true},
}

const layout = "<metric>_rows.npy (replicates × maps drawn): the rows each replicate drew, as positions in the cost matrix sorted by pc1 (the challenge's idxs); " +
	"<metric>_cost_rank_windowed.npy, _transport_opt.npy, _transport_submitted.npy, _assignment.npy (replicates × windows × submitted maps): " +
	"W_distance, transport_plan_opt, transport_plan_submitted and A; <metric>_gt_windowed.npy (replicates × windows): Wp; " +
	"<metric>_q_opt_emd.npy, _q_opt_kl.npy (replicates × submitted maps): the EMD's and the KL fit's optimal q; " +
	"<metric>_transport.png: replicate 0's transport_plan_submitted"

func ints(x []int) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// isOutput reports whether name is one a run writes into OUT, so that a
// folder holding only such names is an earlier run's, which a run
// replaces.
func isOutput(name string) bool {
	if name == "summary.json" || strings.HasSuffix(name, "_transport.png") {
		return true
	}
	for _, a := range arrays {
		if strings.HasSuffix(name, "_"+a.name+".npy") {
			return true
		}
	}
	return false
}

// write writes OUT into a temporary folder renamed into place.
func (a *analysis) write(res []metricResult, pl *plan.Plan) (*Summary, error) {
	dir, err := outfile.ReplaceDir(a.outDir, isOutput)
	if err != nil {
		return nil, err
	}
	defer dir.Abort()
	s := &Summary{Cost: a.costArg, Metadata: a.metaArg, Populations: a.popArg, NGroundTruth: a.rows, NSubmitted: a.cols,
		Replicates: a.cfg.Replicates, Pool: a.cfg.Pool, Fraction: a.cfg.Fraction, KLIterations: a.cfg.KLIterations,
		KLTolerance: a.cfg.KLTolerance, ReplicateMaps: replicateSize(a.cfg.Fraction, a.rows), Layout: layout, Plan: pl}
	for _, m := range res {
		ms, err := writeMetric(dir.Path, m, a.cols)
		if err != nil {
			return nil, err
		}
		s.Windows = m.Replicates[0].Windows
		s.Metrics = append(s.Metrics, ms)
	}
	s.Seconds = time.Since(a.start).Seconds()
	if err := matrix.WriteJSON(filepath.Join(dir.Path, "summary.json"), s); err != nil {
		return nil, err
	}
	return s, dir.Commit()
}

// writeMetric writes one metric's arrays and heat map.
func writeMetric(dir string, m metricResult, n int) (MetricSummary, error) {
	ms := MetricSummary{Metric: m.Metric, Cost: m.Path}
	reps := m.Replicates
	for _, arr := range arrays {
		name := m.Metric + "_" + arr.name + ".npy"
		var all []float64
		for r := range reps {
			all = append(all, arr.get(&reps[r])...)
		}
		var err error
		if arr.three {
			err = writeNPY3(filepath.Join(dir, name), len(reps), reps[0].Windows, n, all)
		} else {
			err = matrix.WriteNPY(filepath.Join(dir, name), len(reps), len(all)/len(reps), all)
		}
		if err != nil {
			return ms, err
		}
		ms.Files = append(ms.Files, name)
	}
	png := m.Metric + "_transport.png"
	if err := matrix.WritePNG(filepath.Join(dir, png), matrix.Heatmap{
		Title:  m.Metric + ": transport of the submitted populations (replicate 0)",
		XLabel: "submitted map", YLabel: "ground-truth window (by pc1)", Unit: "mass",
		Rows: reps[0].Windows, Cols: n, Values: reps[0].PlanSubmitted,
	}); err != nil {
		return ms, err
	}
	ms.Files = append(ms.Files, png)
	for _, r := range reps {
		ms.Replicates = append(ms.Replicates, ReplicateSummary{Seed: r.Seed, EMDOpt: r.EMDOpt, EMDSubmitted: r.EMDSubmitted,
			KLpqOpt: r.KLpqOpt, KLqpOpt: r.KLqpOpt, KLpqSubmitted: r.KLpqSubmitted, KLqpSubmitted: r.KLqpSubmitted,
			KLIterStop: r.KLIterStop, KLEpsStop: r.KLEpsStop, SubmittedPivots: r.SubmittedPivots})
	}
	return ms, nil
}

// writeNPY3 writes a (d0, d1, d2) float64 array as NPY.
func writeNPY3(path string, d0, d1, d2 int, v []float64) error {
	w, err := volume.CreateNPY(path, volume.Info{Shape: [3]int{d0, d1, d2}, DType: volume.Float64})
	if err != nil {
		return err
	}
	if err := w.WriteSlab(0, volume.Bytes(v)); err != nil {
		w.Abort()
		return err
	}
	return w.Commit()
}

// report is the summary and its note lines: each metric's mean EMD and
// KL of the submission against the optimal q's.
func (a *analysis) report(s *Summary) *pipeline.Report {
	notes := []string{fmt.Sprintf("d2d: %d ground-truth maps, %d submitted, %s of %d maps in %d windows → %s",
		s.NGroundTruth, s.NSubmitted, pipeline.Plural(s.Replicates, "replicate"), s.ReplicateMaps, s.Windows, a.outDir)}
	for _, m := range s.Metrics {
		var emd, opt, kl float64
		for _, r := range m.Replicates {
			emd += r.EMDSubmitted
			opt += r.EMDOpt
			kl += r.KLpqSubmitted
		}
		k := float64(len(m.Replicates))
		notes = append(notes, fmt.Sprintf("  %s: mean EMD %.6g (optimal q %.6g), mean KL(p‖Aq) %.6g", m.Metric, emd/k, opt/k, kl/k))
		if m.Metric == "corr" {
			notes = append(notes, "  corr is a similarity (larger is closer) and ranks as a cost, as the challenge's pipeline ranks it; corr-distance is its distance")
		}
	}
	return &pipeline.Report{Summary: s, Notes: notes}
}
