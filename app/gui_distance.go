package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"

	"github.com/voxlab/voxlab/panel"
	"github.com/voxlab/voxlab/processing/distance"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/resources"
	"github.com/voxlab/voxlab/viewer"
)

func init() {
	var metrics []string
	for _, m := range distance.AllMetrics() {
		metrics = append(metrics, m.String())
	}
	registerGUI(&guiSpec{
		name: "Distance matrix", command: "distance",
		args: []panel.Field{
			{Name: "gt", Label: "Ground-truth maps", Kind: panel.InputField, Help: "NPY (n, box, box, box) or (n, box³), an MRC stack or a folder of MRC files"},
			{Name: "sub", Label: "Submitted maps", Kind: panel.InputField, Help: "the maps to compare with the ground truth, in the same forms"},
			{Name: "out", Label: "Output folder", Kind: panel.OutputField, Default: "distances", Help: "<metric>.npy, .csv and .png per metric, and summary.json"},
		},
		basic:      []string{"metrics", "mask", "mask-radius", "normalize", "low-memory", "voxel-size"},
		choices:    map[string][]string{"normalize": {"median-zscore", "none"}},
		multi:      map[string][]string{"metrics": metrics},
		inputs:     map[string]bool{"mask": true},
		labels:     map[string]string{"mask-radius": "Mask radius (voxels)", "low-memory": "Low memory: stream the ground truth", "voxel-size": "Voxel size (Å)"},
		batchLabel: "Ground-truth maps per chunk",
		suggest:    suggestDistance,
		live:       newDistanceLive,
	})
}

// suggestDistance proposes the first open NPY or MRC stack as the ground
// truth, and the submitted maps and mask beside it when they exist (the
// demo's layout); the panel names the output folder after the ground
// truth (gt-distances, free).
func suggestDistance(open []string) ([]string, map[string]string) {
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
	params := map[string]string{}
	if m := filepath.Join(dir, "mask.mrc"); exists(m) {
		params["mask"] = m
	}
	return []string{gt, sub, ""}, params
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// distanceLive shows a distance run: a heat-map layer per metric and a
// plots tab (heat map with colour bar, histogram) filling chunk by chunk.
type distanceLive struct {
	v     *viewer.Viewer
	gt    string
	plots *panel.Plots

	mu     sync.Mutex
	rows   int
	mats   map[string][]float64
	order  []string
	layers map[string]*viewer.HeatmapLayer
	first  *viewer.HeatmapLayer
	err    error
	shown  bool
}

func newDistanceLive(v *viewer.Viewer, r panel.Request) panel.Live {
	l := &distanceLive{v: v, gt: r.Args[0], mats: map[string][]float64{}, layers: map[string]*viewer.HeatmapLayer{}}
	l.plots = panel.NewPlots(v, "Distances: "+filepath.Base(r.Args[2]))
	l.plots.SetNote(fmt.Sprintf("%s vs %s: waiting for the first chunk…", r.Args[0], r.Args[1]))
	return l
}

// metricUnits label the metrics' values on the plots.
var metricUnits = map[string]string{
	"l2": "l2 distance", "l2sq": "squared l2 distance", "corr": "correlation (a similarity)",
	"corr-distance": "1 − correlation", "bioem": "BioEM −log P", "fsc": "1 − mean FSC", "res": "resolution at FSC 0.5 (Å)",
}

// metricUnit labels a metric's values.
func metricUnit(name string) string {
	if u, ok := metricUnits[name]; ok {
		return u
	}
	return name
}

// Partial stores a distance.Chunk, fills its heat-map layer and replots.
func (l *distanceLive) Partial(e job.Event) {
	ch, ok := e.Partial.(distance.Chunk)
	if !ok || ch.Rows <= 0 || ch.Cols <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	if l.rows == 0 {
		st, err := volume.OpenStack(l.gt)
		if err != nil {
			l.err = err
			return
		}
		l.rows = st.N
		st.Close()
	}
	rows := max(l.rows, ch.Row0+ch.Rows)
	m, ok := l.mats[ch.Metric]
	if !ok {
		m = make([]float64, l.rows*ch.Cols)
		for i := range m {
			m[i] = math.NaN()
		}
		l.mats[ch.Metric] = m
		l.order = append(l.order, ch.Metric)
		first := len(l.order) == 1
		name, r, c := ch.Metric, rows, ch.Cols
		l.v.Do(func() { l.addLayer(name, r, c, first) })
	}
	if rows > l.rows || len(m) != l.rows*ch.Cols {
		l.err = fmt.Errorf("distance chunk %s rows %d-%d outside the %d x %d matrix", ch.Metric, ch.Row0, ch.Row0+ch.Rows, l.rows, ch.Cols)
		return
	}
	copy(m[ch.Row0*ch.Cols:], ch.Values)
	if hl := l.layers[ch.Metric]; hl != nil {
		hl.SetBlock(ch.Row0, 0, ch.Rows, ch.Values)
	}
	l.plots.Set(l.matrix(ch.Metric, ch.Cols))
}

func (l *distanceLive) matrix(name string, cols int) panel.Matrix {
	return panel.Matrix{Name: name, Unit: metricUnit(name), XLabel: "submitted map", YLabel: "ground-truth map",
		Rows: l.rows, Cols: cols, Values: l.mats[name]}
}

// addLayer adds a metric's heat-map layer with what is known of it; only
// the first metric's is visible (UI goroutine).
func (l *distanceLive) addLayer(name string, rows, cols int, first bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	hl, err := l.v.AddHeatmap(name, rows, cols, l.mats[name], viewer.ImageOptions{Colormap: resources.Inferno, Hidden: !first})
	if err != nil {
		l.v.ShowError(err)
		return
	}
	l.layers[name] = hl
	if first {
		l.first = hl
	} else if l.first != nil {
		// Keep the visible (first) metric selected, not the last added.
		l.v.Select(l.first)
	}
	if !l.shown {
		l.shown = true
		l.plots.SetNote(fmt.Sprintf("%s: %d ground-truth maps × %d submitted maps; grey cells are not computed yet.", filepath.Base(l.gt), rows, cols))
		l.v.ShowTab(l.plots.Tab())
	}
}

// Done says how the run ended above the plots.
func (l *distanceLive) Done(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err != nil && errCancelledOrNil(err):
		l.plots.SetNote("Cancelled: no output was written; the plots show the chunks computed before.")
	case err != nil:
		l.plots.SetNote("Failed: " + err.Error())
	case l.err != nil:
		l.plots.SetNote("Finished, but the live plots could not follow: " + l.err.Error())
	default:
		l.plots.SetNote(fmt.Sprintf("Finished: %d metrics of %d ground-truth maps; the matrices, CSV, PNG and summary.json are in the output folder.", len(l.order), l.rows))
	}
}

// errCancelledOrNil reports whether err is a cancellation.
func errCancelledOrNil(err error) bool { return err == nil || errors.Is(err, context.Canceled) }
