package viewer

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"

	"github.com/voxlab/voxlab/widgets"
)

// Actions are what the application offers through the viewer without the
// viewer running it, so that the viewer imports no pipeline: File ▸
// Export layer… (the processing panel's convert form) and the points
// layers' actions ("Export training cubes…", a button each under a points
// layer's controls). The export writes the data's own values, never the
// display's: the layer's contrast limits go along as a hint only.
type Actions struct {
	v      *Viewer
	points []pointsAction
	export func(ExportRequest)
}

// pointsAction is one action offered on points layers.
type pointsAction struct {
	label string
	run   func(l *PointsLayer)
}

// ExportRequest is a layer to export: the spec it was opened from, its
// contrast limits and its voxel size (z, y, x; zero where unknown).
type ExportRequest struct {
	Spec      string
	Lo, Hi    float64
	VoxelSize [3]float64
}

// Actions returns the viewer's application actions. Use them on the UI
// goroutine.
func (v *Viewer) Actions() *Actions { return &v.actions }

// AddPoints offers run on every points layer, as a button labelled label
// under its controls; actions added later show when the controls are
// next built.
func (a *Actions) AddPoints(label string, run func(l *PointsLayer)) {
	a.points = append(a.points, pointsAction{label, run})
}

// Points returns the labels of the points layers' actions.
func (a *Actions) Points() []string {
	var out []string
	for _, p := range a.points {
		out = append(out, p.label)
	}
	return out
}

// RunPoints runs the action labelled label on l, as its button does;
// false when there is none.
func (a *Actions) RunPoints(label string, l *PointsLayer) bool {
	i := slices.IndexFunc(a.points, func(p pointsAction) bool { return p.label == label })
	if i < 0 {
		return false
	}
	a.points[i].run(l)
	return true
}

// buttons are the buttons of the points actions on l.
func (a *Actions) buttons(l *PointsLayer) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	for _, p := range a.points {
		out = append(out, widgets.NewButton(a.v.win, p.label, theme.UploadIcon(), func() { p.run(l) }))
	}
	return out
}

// SetExport sets what File ▸ Export layer… does with the selected image
// layer.
func (a *Actions) SetExport(f func(ExportRequest)) { a.export = f }

// Export exports the selected image layer, or says why it cannot.
func (a *Actions) Export() {
	l, isImage := imageLayer(a.v.Selected())
	switch {
	case a.export == nil:
		dialog.ShowInformation("Export layer", "Exporting needs the processing panel (voxlab gui).", a.v.win)
	case !isImage || l.spec == "":
		dialog.ShowInformation("Export layer", "Select an image layer opened from a file to export it.", a.v.win)
	default:
		lo, hi := l.ContrastLimits()
		a.export(ExportRequest{Spec: l.spec, Lo: lo, Hi: hi, VoxelSize: l.vol.VoxelSize})
	}
}
