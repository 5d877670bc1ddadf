package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer"
)

// TestExportLayer: File ▸ Export layer… on an image layer shows the
// convert form with the layer as its input, an output named after it,
// and the layer's contrast as a hint, and the request it makes is a
// conversion of that layer.
func TestExportLayer(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "scan.npy")
	info := volume.Info{Shape: [3]int{3, 4, 5}, DType: volume.Uint16}
	w, err := volume.Create(in, info)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]uint16, info.Len())
	for i := range data {
		data[i] = uint16(100 * i)
	}
	w.WriteSlab(0, volume.Bytes(data))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	hl, p := newRegisteredPanel(t)
	hl.Viewer.Actions().SetExport(func(r viewer.ExportRequest) {
		if err := p.ExportLayer(r); err != nil {
			t.Error(err)
		}
	})
	l, err := hl.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	hl.Select(l)
	hl.Actions().Export()
	if got := p.Pipeline().Spec.Name; got != "convert" {
		t.Fatalf("the panel shows %s, want convert", got)
	}
	req, err := p.Request()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{in, filepath.Join(dir, "scan-export.ome.zarr")}
	if strings.Join(req.Args, " ") != strings.Join(want, " ") {
		t.Errorf("request args %q, want %q", req.Args, want)
	}
	lo, hi := l.(*viewer.ImageLayer).ContrastLimits()
	found := false
	for _, o := range test.LaidOutObjects(p.Object()) {
		if lb, ok := o.(*widget.Label); ok && strings.Contains(lb.Text, "contrast") {
			found = strings.Contains(lb.Text, fmt.Sprintf("contrast %g to %g", lo, hi))
		}
	}
	if !found {
		t.Errorf("no hint naming the layer's contrast %g to %g", lo, hi)
	}
}

// TestExportLayerVoxelSize: File ▸ Export layer… writes the layer's voxel
// size (typed in its controls; the NPY file has none): the form's voxel
// size is the layer's, and the OME-Zarr the request writes reopens at
// 5,2,2 (it reopened at 1,1,1).
func TestExportLayerVoxelSize(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "ch0.npy")
	info := volume.Info{Shape: [3]int{3, 4, 5}, DType: volume.Uint16}
	w, err := volume.Create(in, info)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteSlab(0, make([]byte, info.Bytes()))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	hl, p := newRegisteredPanel(t)
	hl.Viewer.Actions().SetExport(func(r viewer.ExportRequest) {
		if err := p.ExportLayer(r); err != nil {
			t.Error(err)
		}
	})
	l, err := hl.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	l.(*viewer.ImageLayer).SetVoxelSize([3]float64{5, 2, 2})
	hl.Select(l)
	hl.Actions().Export()
	req, err := p.Request()
	if err != nil {
		t.Fatal(err)
	}
	if vs := req.Values.Floats("voxel-size"); fmt.Sprint(vs) != "[5 2 2]" {
		t.Fatalf("the form's voxel size is %v, want the layer's 5,2,2", vs)
	}
	j, err := p.Pipeline().Spec.Open(pipeline.Request{Args: req.Args, Values: req.Values})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Run(context.Background(), job.NewProgress("export"), pipeline.Device{Budget: plan.Budget{Host: 1 << 30, Shared: true}}); err != nil {
		t.Fatal(err)
	}
	out, err := volume.Open(req.Args[1])
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if out.VoxelSize != [3]float64{5, 2, 2} {
		t.Errorf("the exported OME-Zarr reopens at %v, want 5,2,2", out.VoxelSize)
	}
}
