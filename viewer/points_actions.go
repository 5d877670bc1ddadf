package viewer

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Actions the application offers on a points layer ("Export training
// cubes…"): the viewer shows a button for each under the layer's
// controls and runs nothing itself, so that it imports no pipeline.

// pointsAction is one such action.
type pointsAction struct {
	label string
	run   func(l *PointsLayer)
}

// AddPointsAction offers run on every points layer, as a button labelled
// label under its controls. Call it on the UI goroutine; actions added
// later show when the controls are next built.
func (v *Viewer) AddPointsAction(label string, run func(l *PointsLayer)) {
	v.edit.actions = append(v.edit.actions, pointsAction{label, run})
}

// PointsActions returns the labels of the points layers' actions.
func (v *Viewer) PointsActions() []string {
	var out []string
	for _, a := range v.edit.actions {
		out = append(out, a.label)
	}
	return out
}

// RunPointsAction runs the action labelled label on l, as its button
// does; false when there is none.
func (v *Viewer) RunPointsAction(label string, l *PointsLayer) bool {
	i := slices.IndexFunc(v.edit.actions, func(a pointsAction) bool { return a.label == label })
	if i < 0 {
		return false
	}
	v.edit.actions[i].run(l)
	return true
}

// pointsActionButtons are the buttons of the actions on l.
func (v *Viewer) pointsActionButtons(l *PointsLayer) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	for _, a := range v.edit.actions {
		out = append(out, v.NewButton(a.label, theme.UploadIcon(), func() { a.run(l) }))
	}
	return out
}
