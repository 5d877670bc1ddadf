package viewer

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/viewer/model"
	"github.com/voxlab/voxlab/widgets"
)

// newLayerList lists the layers top first, as napari does: a visibility
// check, an icon for the kind of layer and the name per row (the kind
// as an icon leaves the name the room: long file names were cut off at
// 1280 px); selecting a row selects the layer (choose). The list is
// of stack, in win.
func newLayerList(win fyne.Window, stack *model.LayerList[Layer], choose func(Layer)) *widget.List {
	l := widget.NewList(
		func() int { return stack.Len() },
		func() fyne.CanvasObject {
			name := widget.NewLabel("layer name")
			name.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, container.NewHBox(widget.NewCheck("", nil), widget.NewIcon(theme.MediaPhotoIcon())), nil, name)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= stack.Len() {
				return
			}
			l := stack.At(stack.Len() - 1 - id)
			row := o.(*fyne.Container)
			left := row.Objects[1].(*fyne.Container)
			chk := left.Objects[0].(*widget.Check)
			chk.OnChanged = nil
			chk.SetChecked(l.Visible())
			chk.OnChanged = func(on bool) {
				l.SetVisible(on)
				widgets.Refocus(win, false)
			}
			left.Objects[1].(*widget.Icon).SetResource(l.icon())
			row.Objects[0].(*widget.Label).SetText(l.Name() + unsavedMark(l))
		})
	l.OnSelected = func(id widget.ListItemID) {
		if id < stack.Len() {
			choose(stack.At(stack.Len() - 1 - id))
		}
		// A tapped list keeps the keys (they move its selection).
		widgets.Refocus(win, false)
	}
	return l
}

// rebuildControls shows the controls of the selected layer.
func (v *Viewer) rebuildControls() {
	for _, f := range v.ctl.unwatch {
		f()
	}
	v.ctl = controlRefs{layer: v.stack.Selected()}
	objs := []fyne.CanvasObject{widget.NewLabel("No layer selected")}
	if l := v.stack.Selected(); l != nil {
		objs = l.controls(v)
	}
	title := widget.NewLabelWithStyle("Layer controls", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.controls.Objects = append([]fyne.CanvasObject{title}, objs...)
	v.controls.Refresh()
}
