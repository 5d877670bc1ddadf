package distance

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/voxlab/voxlab/processing/matrix"
	"github.com/voxlab/voxlab/processing/plan"
)

// MatrixLayout says how the matrices are laid out, for summary.json readers.
const MatrixLayout = "rows: ground-truth maps, columns: submitted maps; <metric>.npy is float64 of shape (n_ground_truth, n_submitted); <metric>.csv has one line per ground-truth map and no header"

// Meta is what a run's summary says beyond its Result: where the inputs
// came from and how it was run.
type Meta struct {
	GroundTruth, Submitted string
	// Mask describes the mask ("mask.mrc", "sphere of radius 20 voxels",
	// "none").
	Mask        string
	Normalize   string
	VoxelSize   float64
	ChunkAuto   bool
	Backend     string
	BackendNote string
	Device      string
	BLAS        string
	PinMemory   bool
	// Budget is the memory the run was planned for.
	Budget plan.Budget
}

// MetricSummary describes one metric's output files.
type MetricSummary struct {
	Name       string   `json:"name"`
	Meaning    string   `json:"meaning"`
	Similarity bool     `json:"similarity"`
	NPY        string   `json:"npy"`
	CSV        string   `json:"csv"`
	PNG        string   `json:"png"`
	Min        *float64 `json:"min,omitempty"`
	Max        *float64 `json:"max,omitempty"`
	NonFinite  int      `json:"non_finite,omitempty"`
}

// Timings are the stages' wall-clock seconds.
type Timings struct {
	Load      float64 `json:"load"`
	Distances float64 `json:"distances"`
	Write     float64 `json:"write"`
	Total     float64 `json:"total,omitempty"`
}

// Summary is summary.json.
type Summary struct {
	GroundTruth     string          `json:"ground_truth"`
	Submitted       string          `json:"submitted"`
	NGroundTruth    int             `json:"n_ground_truth"`
	NSubmitted      int             `json:"n_submitted"`
	GroundTruthRows [2]int          `json:"ground_truth_rows"`
	Box             int             `json:"box"`
	VoxelSize       float64         `json:"voxel_size_angstrom,omitempty"`
	Mask            string          `json:"mask"`
	MaskedVoxels    int             `json:"masked_voxels"`
	Normalize       string          `json:"normalize"`
	Pipeline        string          `json:"pipeline"`
	ChunkSize       int             `json:"chunk_size"`
	ChunkAuto       bool            `json:"chunk_size_auto"`
	Backend         string          `json:"backend"`
	BackendNote     string          `json:"backend_note,omitempty"`
	Device          string          `json:"device,omitempty"`
	BLAS            string          `json:"blas,omitempty"`
	PinMemory       bool            `json:"pin_memory"`
	HostBudget      int64           `json:"host_memory_budget_bytes,omitempty"`
	DeviceBudget    int64           `json:"device_memory_budget_bytes,omitempty"`
	PeakDevice      int64           `json:"peak_device_bytes"`
	PeakRSS         int64           `json:"peak_rss_bytes,omitempty"`
	PredictedDevice int64           `json:"predicted_peak_device_bytes"`
	PredictedHost   int64           `json:"predicted_peak_host_bytes"`
	Timings         Timings         `json:"timings_seconds"`
	Metrics         []MetricSummary `json:"metrics"`
	Layout          string          `json:"matrix_layout"`
	Plan            *plan.Plan      `json:"plan"`
}

// WriteReport writes every metric's NPY, CSV and PNG and summary.json into dir
// (which the caller commits or removes) and returns the summary.
func WriteReport(dir string, res *Result, meta Meta) (*Summary, error) {
	t0 := time.Now()
	pipeline := "in-memory"
	if res.LowMemory {
		pipeline = "low-memory"
	}
	s := &Summary{
		GroundTruth: meta.GroundTruth, Submitted: meta.Submitted,
		NGroundTruth: res.NGT, NSubmitted: res.NSub, GroundTruthRows: [2]int{res.Row0, res.Row0 + res.NGT},
		Box: res.Box, VoxelSize: meta.VoxelSize, Mask: meta.Mask, MaskedVoxels: res.Voxels,
		Normalize: meta.Normalize, Pipeline: pipeline, ChunkSize: res.Chunk, ChunkAuto: meta.ChunkAuto,
		Backend: meta.Backend, BackendNote: meta.BackendNote, Device: meta.Device, BLAS: meta.BLAS,
		PinMemory: meta.PinMemory, HostBudget: meta.Budget.Host, DeviceBudget: meta.Budget.Device,
		PeakDevice: res.PeakDevice, PeakRSS: PeakRSS(),
		Timings: Timings{Load: res.Load.Seconds(), Distances: res.Compute.Seconds()},
		Layout:  MatrixLayout, Plan: res.Plan,
	}
	if res.Plan != nil {
		s.PredictedDevice, s.PredictedHost = res.Plan.PeakDevice, res.Plan.PeakHost+res.Plan.PeakPinned
	}
	s.Metrics = make([]MetricSummary, len(res.Metrics))
	errs := make([]error, len(res.Metrics))
	// Metrics are written in parallel, as many at once as there are
	// cores (WriterBytes each, which the plan counts): drawing
	// and compressing heat maps is most of the time.
	sem := make(chan struct{}, min(len(res.Metrics), runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for k, m := range res.Metrics {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			s.Metrics[k], errs[k] = writeMetric(dir, m, res.NGT, res.NSub, res.Matrices[k])
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	s.Timings.Write = time.Since(t0).Seconds()
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), append(b, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("write summary.json: %w", err)
	}
	return s, nil
}

// writeMetric writes one metric's NPY, CSV and heat map.
func writeMetric(dir string, m Metric, rows, cols int, v []float64) (MetricSummary, error) {
	name := m.String()
	ms := MetricSummary{Name: name, Meaning: m.Describe(), Similarity: m.Similarity(), NPY: name + ".npy", CSV: name + ".csv", PNG: name + ".png"}
	if err := matrix.WriteNPY(filepath.Join(dir, ms.NPY), rows, cols, v); err != nil {
		return ms, err
	}
	if err := matrix.WriteCSV(filepath.Join(dir, ms.CSV), rows, cols, v); err != nil {
		return ms, err
	}
	if err := matrix.WritePNG(filepath.Join(dir, ms.PNG), heatmapOf(m, rows, cols, v)); err != nil {
		return ms, err
	}
	ms.Min, ms.Max, ms.NonFinite = valueRange(v)
	return ms, nil
}

// heatmapOf titles a metric's heat map: what it is and which way is close.
func heatmapOf(m Metric, rows, cols int, v []float64) matrix.Heatmap {
	kind := "distance: smaller is closer"
	unit := m.String()
	switch {
	case m.Similarity():
		kind = "similarity: larger is closer"
	case m == Res:
		kind, unit = "resolution at FSC 0.5: smaller is closer", "res (Å)"
	}
	return matrix.Heatmap{
		Title:  fmt.Sprintf("%s (%s)", m, kind),
		XLabel: "submitted map", YLabel: "ground-truth map", Unit: unit,
		Rows: rows, Cols: cols, Values: v,
	}
}

func valueRange(v []float64) (lo, hi *float64, nonFinite int) {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			nonFinite++
			continue
		}
		if lo == nil {
			a, b := x, x
			lo, hi = &a, &b
		}
		*lo, *hi = math.Min(*lo, x), math.Max(*hi, x)
	}
	return lo, hi, nonFinite
}
