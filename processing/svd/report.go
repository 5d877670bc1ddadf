package svd

import (
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
	EmbeddingRows  [2]int    `json:"common_embedding_rows"`
}

const layout = "svd_distance.npy: svd_metric (captured variance, 1 = the same subspace) between the sets in labels.json's order, the challenge's sorted order (with a ground truth: by similarity to it, gt first); " +
	"<label>/singular_values.npy (1 × rank), <label>/eigenvectors.npy (voxels × rank), <label>/u.npy (maps × rank): each set's SVD after dividing each map by its norm and removing the mean map; " +
	"common_singular_values.npy (1 × K) and common_embedding.npy (maps × K, every set's rows as common_embedding_rows says; also <label>/common_embedding.npy): " +
	"the challenge's compute_common_embedding, K = submissions × rank, each component up to its sign; " +
	"<label>/gt_embedding.npy (maps × rank): project_to_gt_embedding, the maps in the ground truth's subspace; " +
	"svd_distance.png, common_embedding.png and gt_embedding.png: the matrix's heat map and the embeddings' first two components, a panel per set"

// write writes OUT into a temporary folder renamed into place.
func (a *analysis) write(results []*Result, pl *plan.Plan, p *job.Progress) (*pipeline.Report, error) {
	sets := a.all()
	names := []string{"summary.json", "labels.json", "svd_distance.npy", "svd_distance.png", "common_embedding.npy", "common_embedding.png", "gt_embedding.png", "common_singular_values.npy"}
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
	common, err := CommonEmbedding(subs, gt)
	if err != nil {
		return nil, err
	}
	k := len(order)
	s := &Summary{Submissions: a.subsArg, Mask: a.maskArg, Rank: a.rank, Labels: order, Distance: "svd_distance.npy", Layout: layout, Plan: pl}
	if a.gt != nil {
		s.GroundTruth = a.gt.Path
	}
	embedded := slices.Clone(common.Embeddings)
	var inGT [][]float64
	if gt != nil {
		embedded = append(embedded, common.GT)
		var own []float64
		inGT, own = InGT(subs, gt)
		inGT = append(inGT, own)
	}
	var all []float64
	row := 0
	for i, set := range sets {
		e := embeddingFiles{common: embedded[i], k: common.K}
		if inGT != nil {
			e.inGT, e.gtRank = inGT[i], gt.Rank
		}
		if err := writeSet(filepath.Join(dir.Path, set.Label), results[i], e); err != nil {
			return nil, err
		}
		all = append(all, embedded[i]...)
		s.Sets = append(s.Sets, SetSummary{Label: set.Label, Path: set.Path, Maps: results[i].N, SingularValues: results[i].S,
			EmbeddingRows: [2]int{row, row + results[i].N}})
		row += results[i].N
	}
	if err := matrix.WriteNPY(filepath.Join(dir.Path, "common_embedding.npy"), row, common.K, all); err != nil {
		return nil, err
	}
	if err := matrix.WriteNPY(filepath.Join(dir.Path, "common_singular_values.npy"), 1, common.K, common.S); err != nil {
		return nil, err
	}
	if err := matrix.WriteNPY(filepath.Join(dir.Path, "svd_distance.npy"), k, k, m); err != nil {
		return nil, err
	}
	if err := matrix.WritePNG(filepath.Join(dir.Path, "svd_distance.png"), matrix.Heatmap{
		Title: "captured variance between subspaces (1: the same)", XLabel: "set", YLabel: "set", Unit: "svd_metric",
		Rows: k, Cols: k, Values: m}); err != nil {
		return nil, err
	}
	if err := writeEmbeddingPlots(dir.Path, sets, embedded, common.K, inGT, gtRank(gt)); err != nil {
		return nil, err
	}
	if err := matrix.WriteJSON(filepath.Join(dir.Path, "labels.json"), order); err != nil {
		return nil, err
	}
	if err := matrix.WriteJSON(filepath.Join(dir.Path, "summary.json"), s); err != nil {
		return nil, err
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

// embeddingFiles are a set's coordinates in the common embedding (n × k)
// and, with a ground truth, in its subspace (n × gtRank).
type embeddingFiles struct {
	common, inGT []float64
	k, gtRank    int
}

// writeSet writes one set's SVD and embeddings into its folder.
func writeSet(dir string, r *Result, e embeddingFiles) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	type file struct {
		name       string
		rows, cols int
		v          []float64
	}
	files := []file{{"singular_values.npy", 1, r.Rank, r.S}, {"eigenvectors.npy", r.D, r.Rank, r.V}, {"u.npy", r.N, r.Rank, r.U},
		{"common_embedding.npy", r.N, e.k, e.common}}
	if e.inGT != nil {
		files = append(files, file{"gt_embedding.npy", r.N, e.gtRank, e.inGT})
	}
	for _, f := range files {
		if err := matrix.WriteNPY(filepath.Join(dir, f.name), f.rows, f.cols, f.v); err != nil {
			return err
		}
	}
	return nil
}

func gtRank(gt *Result) int {
	if gt == nil {
		return 0
	}
	return gt.Rank
}

// writeEmbeddingPlots draws the embeddings' first two components, a
// panel per set (as the challenge's plot_common_embedding):
// common_embedding.png, and with a ground truth gt_embedding.png.
func writeEmbeddingPlots(dir string, sets []set, common [][]float64, k int, inGT [][]float64, gtRank int) error {
	labels := make([]string, len(sets))
	for i, s := range sets {
		labels[i] = s.Label
	}
	if err := matrix.WritePNG(filepath.Join(dir, "common_embedding.png"),
		matrix.Columns("common embedding", labels, common, k, 0, min(1, k-1))); err != nil {
		return err
	}
	if inGT == nil {
		return nil
	}
	return matrix.WritePNG(filepath.Join(dir, "gt_embedding.png"),
		matrix.Columns("projection on the ground truth's embedding", labels, inGT, gtRank, 0, min(1, gtRank-1)))
}
