package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/voxlab/voxlab/panel"
	"github.com/voxlab/voxlab/processing/detect"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer"
)

func init() {
	registerGUI(&guiSpec{
		name: "Detect cells", command: "detect",
		args: []panel.Field{
			{Name: "in", Label: "Light-sheet volume", Kind: panel.InputField, Help: "a folder of TIFF planes, a TIFF stack, HDF5 or NPY"},
			{Name: "out", Label: "Output", Kind: panel.OutputField, Default: "cells.csv", Help: "CSV of z,y,x,type (and cellfinder's XML with --xml)"},
		},
		basic: []string{"voxel-size", "soma-diameter", "ball-xy", "ball-z", "ball-overlap", "threshold", "xml"},
		labels: map[string]string{
			"voxel-size": "Voxel size z,y,x (µm)", "soma-diameter": "Soma diameter (µm)", "ball-xy": "Ball size in plane (µm)",
			"ball-z": "Ball size in z (µm)", "ball-overlap": "Ball overlap", "threshold": "Threshold (SDs)",
			"xml": "Also write cellfinder XML",
		},
		batchLabel: "Planes per batch",
		suggest:    suggestDetect,
		live:       newDetectLive,
	})
}

// suggestDetect proposes the first open folder of planes, else TIFF
// stack, else any open volume (`voxlab gui brain.npy --run detect`); the
// panel names the output after it (planes-cells.csv, free).
func suggestDetect(open []string) ([]string, map[string]string) {
	in := ""
	for _, s := range open {
		p, _ := volume.SplitSpec(s)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			in = s
			break
		}
	}
	if in == "" {
		in = pipeline.FirstSpec(open, ".tif", ".tiff")
	}
	if in == "" {
		in = pipeline.FirstVolume(open)
	}
	if in == "" {
		return nil, nil
	}
	return []string{in, ""}, nil
}

// detectLive shows a detection run: the cells found so far as a points
// layer just above the volume (in its grid panel), plane by plane, then
// the output CSV. Other layers keep their visibility.
type detectLive struct {
	v       *viewer.Viewer
	in      viewer.Layer
	out     string
	mu      sync.Mutex
	pending []viewer.Point
	layer   *viewer.PointsLayer
	posted  bool
	count   int
}

func newDetectLive(v *viewer.Viewer, r panel.Request) panel.Live {
	return &detectLive{v: v, in: v.LayerFor(r.Args[0]), out: r.Args[1]}
}

func points(c []detect.Candidate) []viewer.Point {
	pts := make([]viewer.Point, len(c))
	for i, x := range c {
		pts[i] = viewer.Point{Z: float64(x.Z), Y: float64(x.Y), X: float64(x.X), Type: x.Type.String()}
	}
	return pts
}

// Partial appends the cells of a []detect.Candidate.
func (l *detectLive) Partial(e job.Event) {
	c, ok := e.Partial.([]detect.Candidate)
	if !ok || len(c) == 0 {
		return
	}
	pts := points(c)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count += len(pts)
	if l.layer != nil {
		l.layer.Append(pts...)
		return
	}
	l.pending = append(l.pending, pts...)
	if !l.posted {
		l.posted = true
		l.v.Do(l.addLayer)
	}
}

// addLayer makes the points layer over the volume (UI goroutine).
func (l *detectLive) addLayer() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.layer = l.v.AddPoints(filepath.Base(l.out)+" (running)", l.pending)
	l.pending = nil
	l.place(l.layer)
}

// place puts the points just above the volume they were found in, so
// that grid mode draws them in its panel; the result stays selected.
func (l *detectLive) place(pts viewer.Layer) {
	if l.in != nil {
		l.v.PlaceAbove(pts, l.in)
	}
	l.v.Select(pts)
}

// Done replaces the live points with the output file's (hidden if the
// user hid the live layer).
func (l *detectLive) Done(err error) {
	hidden := false
	l.mu.Lock()
	if l.layer != nil {
		hidden = !l.layer.Visible()
		l.v.RemoveLayer(l.layer)
		l.layer = nil
	}
	l.mu.Unlock()
	if err != nil {
		return
	}
	res, oerr := l.v.Open(l.out)
	if oerr != nil {
		l.v.ShowError(fmt.Errorf("open the detected cells: %w", oerr))
		return
	}
	if hidden {
		res.SetVisible(false)
	}
	l.place(res)
}
