package svd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/matrix"
	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
)

// Summary is summary.json.
type Summary struct {
	Submissions string       `json:"submissions"`
	GroundTruth string       `json:"ground_truth,omitempty"`
	Mask        string       `json:"mask,omitempty"`
	Rank        int          `json:"rank"`
	Sets        []SetSummary `json:"sets"`
	Labels      []string     `json:"labels"`
	Distance    string       `json:"distance"`
	Layout      string       `json:"layout"`
	Plan        *plan.Plan   `json:"plan"`
}

// SetSummary is one input's part of summary.json.
type SetSummary struct {
	Label          string    `json:"label"`
	Path           string    `json:"path"`
	Maps           int       `json:"maps"`
	SingularValues []float64 `json:"singular_values"`
}

const layout = "svd_distance.npy: svd_metric (captured variance, 1 = the same subspace) between the sets in labels.json's order, the challenge's sorted order (with a ground truth: by similarity to it, gt first); " +
	"<label>/singular_values.npy (1 × rank), <label>/eigenvectors.npy (voxels × rank), <label>/u.npy (maps × rank): each set's SVD after dividing each map by its norm and removing the mean map"

// write writes OUT into a temporary folder renamed into place.
func (a *analysis) write(results []*Result, pl *plan.Plan, p *job.Progress) (*pipeline.Report, error) {
	sets := a.all()
	names := []string{"summary.json", "labels.json", "svd_distance.npy", "svd_distance.png"}
	for _, s := range sets {
		names = append(names, s.Label)
	}
	dir, err := outfile.ReplaceDir(a.outDir, func(name string) bool { return slices.Contains(names, name) })
	if err != nil {
		return nil, err
	}
	defer dir.Abort()
	var gt *Result
	subs := results
	if a.gt != nil {
		subs, gt = results[:len(results)-1], results[len(results)-1]
	}
	labels := make([]string, len(a.subs))
	for i, s := range a.subs {
		labels[i] = s.Label
	}
	m, order, err := DistanceMatrix(subs, labels, gt)
	if err != nil {
		return nil, err
	}
	for i, l := range order {
		if l == GroundTruthLabel {
			order[i] = "gt"
		}
	}
	k := len(order)
	s := &Summary{Submissions: a.subsArg, Mask: a.maskArg, Rank: a.rank, Labels: order, Distance: "svd_distance.npy", Layout: layout, Plan: pl}
	if a.gt != nil {
		s.GroundTruth = a.gt.Path
	}
	for i, set := range sets {
		if err := writeSet(filepath.Join(dir.Path, set.Label), results[i]); err != nil {
			return nil, err
		}
		s.Sets = append(s.Sets, SetSummary{Label: set.Label, Path: set.Path, Maps: results[i].N, SingularValues: results[i].S})
	}
	if err := matrix.WriteNPY(filepath.Join(dir.Path, "svd_distance.npy"), k, k, m); err != nil {
		return nil, err
	}
	if err := matrix.WritePNG(filepath.Join(dir.Path, "svd_distance.png"), matrix.Heatmap{
		Title: "captured variance between subspaces (1: the same)", XLabel: "set", YLabel: "set", Unit: "svd_metric",
		Rows: k, Cols: k, Values: m}); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name string
		v    any
	}{{"labels.json", order}, {"summary.json", s}} {
		b, err := json.MarshalIndent(f.v, "", "  ")
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir.Path, f.name), append(b, '\n'), 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	if err := dir.Commit(); err != nil {
		return nil, err
	}
	p.Partial(pipeline.MatrixChunk{Name: "svd_distance", Unit: "svd_metric", RowLabel: "set", ColLabel: "set",
		Rows: k, Cols: k, TotalRows: k, Values: slices.Clone(m)})
	notes := []string{fmt.Sprintf("svd: %s of rank %d → %s", pipeline.Plural(len(sets), "set"), a.rank, a.outDir)}
	if g := slices.Index(order, "gt"); g >= 0 {
		for i, l := range order {
			if i != g {
				notes = append(notes, fmt.Sprintf("  %s: svd_metric with the ground truth %.6g", l, m[g*k+i]))
			}
		}
	}
	return &pipeline.Report{Summary: s, Notes: notes}, nil
}

// writeSet writes one set's SVD into its folder.
func writeSet(dir string, r *Result) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []struct {
		name       string
		rows, cols int
		v          []float64
	}{{"singular_values.npy", 1, r.Rank, r.S}, {"eigenvectors.npy", r.D, r.Rank, r.V}, {"u.npy", r.N, r.Rank, r.U}} {
		if err := matrix.WriteNPY(filepath.Join(dir, f.name), f.rows, f.cols, f.v); err != nil {
			return err
		}
	}
	return nil
}
