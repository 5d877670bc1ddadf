package viewer

import (
	"fmt"
	"image/color"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/widgets"
)

// editHints are the status bar's hints in each edit mode.
var editHints = [...]string{
	PanZoom:      "",
	AddPoints:    "click adds a point on this plane · Ctrl+Z undoes · 1 pan/zoom",
	SelectPoints: "click or drag a box selects (shift adds) · drag a selected point moves · C/N/U class · Delete · . next · , previous",
	MovePoints:   "drag moves the selection · Ctrl+Z undoes · 1 pan/zoom",
}

// unsavedMark flags a points layer with unsaved edits in the layer list.
func unsavedMark(l Layer) string {
	if pl, ok := pointsLayer(l); ok && pl.Modified() {
		return "  • unsaved"
	}
	return ""
}

// pointsRefs are the points controls that follow the layer.
type pointsRefs struct {
	count, progress, file *widget.Label
	mode                  *widget.Select
	undo, redo            *widget.Button
}

// faceNames name layerFaces in the face colour choice.
var faceNames = []string{"green", "magenta", "sky blue", "amber", "vermilion", "lavender", "white"}

func faceColor(name string) (color.NRGBA, bool) {
	for i, n := range faceNames {
		if n == name {
			if i < len(layerFaces) {
				return layerFaces[i], true
			}
			return color.NRGBA{0xff, 0xff, 0xff, 0xff}, true
		}
	}
	return color.NRGBA{}, false
}

func faceName(c color.NRGBA) string {
	for _, n := range faceNames {
		if fc, _ := faceColor(n); fc == c {
			return n
		}
	}
	return "custom"
}

var edgeChoices = []struct {
	name string
	c    color.NRGBA
}{{"dark", color.NRGBA{0, 0, 0, 0xb0}}, {"white", color.NRGBA{0xff, 0xff, 0xff, 0xc0}}, {"none", color.NRGBA{}}}

// symbolIcon draws shape as the layer draws it, for the legend.
func symbolIcon(shape Shape, st PointsStyle) *canvas.Image {
	var f frame
	f.reset(20, 20)
	drawMarker(&f, 10, 10, 14, shape, st.Face, st.Edge, 1)
	img := canvas.NewImageFromImage(f.img)
	img.FillMode = canvas.ImageFillOriginal
	img.ScaleMode = canvas.ImageScalePixels
	return img
}

// controls are the points layer's controls in v's side panel when it
// is selected: edit mode and edits, the curation walk, the look, and
// saving.
func (l *PointsLayer) controls(v *Viewer) []fyne.CanvasObject {
	r := &pointsRefs{count: widget.NewLabel(""), progress: widget.NewLabel(""), file: widget.NewLabel("")}
	r.file.Wrapping = fyne.TextWrapBreak
	v.ctl.pts = r

	// A choice rather than radio buttons: four of them in a row do not
	// fit the side panel.
	modeOpts := make([]string, len(editModeNames))
	for m, n := range editModeNames {
		modeOpts[m] = fmt.Sprintf("%s (%d)", n, m+1)
	}
	r.mode = widget.NewSelect(modeOpts, func(s string) {
		for m, n := range modeOpts {
			if n == s {
				v.edit.setMode(EditMode(m))
			}
		}
		widgets.Refocus(v.win, false)
	})
	r.mode.SetSelectedIndex(int(v.edit.mode))
	v.edit.onMode = func() {
		if v.ctl.pts == r {
			r.mode.SetSelectedIndex(int(v.edit.mode))
		}
	}
	del := widgets.NewButton(v.win, "Delete", theme.DeleteIcon(), func() { l.DeleteSelected() })
	classBtn := func(label string, c points.Class) *widget.Button {
		return widgets.NewButton(v.win, label, nil, func() { l.SetSelectedClass(c) })
	}
	r.undo = widgets.NewButton(v.win, "Undo", theme.ContentUndoIcon(), func() { l.Undo() })
	r.redo = widgets.NewButton(v.win, "Redo", theme.ContentRedoIcon(), func() { l.Redo() })
	edits := container.NewGridWithColumns(3, classBtn("Cell C", points.Cell), classBtn("Non N", points.NonCell), classBtn("Unkn. U", points.Unknown), del, r.undo, r.redo)

	var walkOpts []string
	for _, w := range walkNames {
		walkOpts = append(walkOpts, w.name)
	}
	walk := widget.NewSelect(walkOpts, func(s string) {
		for _, w := range walkNames {
			if w.name == s {
				v.Curation().SetWalk(w.t)
			}
		}
		widgets.Refocus(v.win, false)
	})
	for _, w := range walkNames {
		if w.t == v.edit.walk {
			walk.SetSelected(w.name)
		}
	}
	prev := widgets.NewButton(v.win, "Prev (,)", theme.NavigateBackIcon(), func() { v.Curation().Next(-1) })
	next := widgets.NewButton(v.win, "Next (.)", theme.NavigateNextIcon(), func() { v.Curation().Next(+1) })

	st := l.Style()
	face := widget.NewSelect(append(append([]string(nil), faceNames...), "custom…"), nil)
	face.SetSelected(faceName(st.Face))
	face.OnChanged = func(s string) {
		defer widgets.Refocus(v.win, false)
		ns := l.Style()
		if c, ok := faceColor(s); ok {
			ns.Face = c
			l.SetStyle(ns)
			v.rebuildControls()
			return
		}
		if s == "custom…" && v.win != nil {
			dialog.ShowColorPicker("Face colour", "Colour of "+l.Name(), func(c color.Color) {
				ns.Face = color.NRGBAModel.Convert(c).(color.NRGBA)
				l.SetStyle(ns)
				v.rebuildControls()
			}, v.win)
		}
	}
	var edgeNames []string
	for _, e := range edgeChoices {
		edgeNames = append(edgeNames, e.name)
	}
	edge := widget.NewSelect(edgeNames, func(s string) {
		ns := l.Style()
		for _, e := range edgeChoices {
			if e.name == s && ns.Edge != e.c {
				ns.Edge = e.c
				l.SetStyle(ns)
				v.rebuildControls()
			}
		}
		widgets.Refocus(v.win, false)
	})
	for _, e := range edgeChoices {
		if e.c == st.Edge {
			edge.SetSelected(e.name)
		}
	}
	legend := container.NewVBox()
	for _, c := range []points.Class{points.Cell, points.NonCell, points.Unknown} {
		sym := widget.NewSelect(shapeNames, nil)
		sym.SetSelected(st.Symbols[c].String())
		sym.OnChanged = func(s string) {
			ns := l.Style()
			for i, n := range shapeNames {
				if n == s && ns.Symbols[c] != Shape(i) {
					ns.Symbols[c] = Shape(i)
					l.SetStyle(ns)
					v.rebuildControls()
				}
			}
			widgets.Refocus(v.win, false)
		}
		legend.Add(container.NewBorder(nil, nil, container.NewHBox(symbolIcon(st.Symbols[c], st), widget.NewLabel(c.String())), nil, sym))
	}

	size := widget.NewSlider(1, 60)
	size.SetValue(l.Size())
	size.OnChanged = func(s float64) { l.SetSize(s) }
	size.OnChangeEnded = sliderDone(v.win)
	oos := widget.NewSlider(0, 20)
	oos.Step = 1
	oos.SetValue(float64(l.OutOfSlice()))
	oos.OnChanged = func(n float64) { l.SetOutOfSlice(int(n)) }
	oos.OnChangeEnded = sliderDone(v.win)
	v.ctl.opacity = widget.NewSlider(0, 1)
	v.ctl.opacity.Step = 0.01
	v.ctl.opacity.OnChanged = l.SetOpacity
	v.ctl.opacity.OnChangeEnded = sliderDone(v.win)
	op := v.ctl.opacity
	v.ctl.watch(func() { setSlider(op, l.Opacity()) }, &l.look.OpacityChanged)

	save := widgets.NewButton(v.win, "Save", theme.DocumentSaveIcon(), v.save.saveSelected)
	saveAs := widgets.NewButton(v.win, "Save as…", nil, func() { v.save.show(l, nil) })
	r.sync(l, imageExtent(v.stack.All()))
	form := widget.NewForm(
		widget.NewFormItem("mode", r.mode),
		widget.NewFormItem("walk", walk),
		widget.NewFormItem("", container.NewGridWithColumns(2, prev, next)),
		widget.NewFormItem("", r.progress),
		widget.NewFormItem("face", face),
		widget.NewFormItem("edge", edge),
		widget.NewFormItem("size", size),
		widget.NewFormItem("± planes", oos),
		widget.NewFormItem("opacity", v.ctl.opacity),
	)
	// A long name wraps, as an image layer's does: unwrapped it set the
	// side panel's minimum width, and selecting the layer widened the
	// panel and shrank the canvas and its zoom.
	name := widget.NewLabel(l.Name())
	name.Wrapping = fyne.TextWrapBreak
	r.count.Wrapping = fyne.TextWrapWord
	return append([]fyne.CanvasObject{name, r.count, form, edits, legend, container.NewHBox(save, saveAs), r.file}, v.actions.buttons(l)...)
}

// sync puts the layer's counts, progress and file into its controls
// (none: nil r); volume is the extent of the image layers, which points
// outside it are counted against.
func (r *pointsRefs) sync(l *PointsLayer, volume [3]int) {
	if r == nil {
		return
	}
	txt := fmt.Sprintf("%s: %s\n%d in view, %d selected", plural(l.Len(), "point"), countsText(l.Counts()), l.InView(), l.NumSelected())
	if n := l.Outside(volume); n > 0 {
		txt += fmt.Sprintf("\n%s outside the volume", plural(n, "point"))
	}
	if pt := pointText(l); pt != "" {
		txt += "\n" + pt
	}
	setPointsLabel(r.count, txt)
	setPointsLabel(r.progress, l.Progress())
	file := l.path
	if file == "" {
		file = "not saved to a file yet"
	}
	if l.Modified() {
		file += " (unsaved edits)"
	}
	setPointsLabel(r.file, file)
	for _, b := range []struct {
		btn *widget.Button
		off bool
	}{{r.undo, !l.CanUndo()}, {r.redo, !l.CanRedo()}} {
		switch {
		case b.off && !b.btn.Disabled():
			b.btn.Disable()
		case !b.off && b.btn.Disabled():
			b.btn.Enable()
		}
	}
}

// setPointsLabel sets a label's text when it changed (sync runs on every
// status update, pointer moves included).
func setPointsLabel(l *widget.Label, s string) {
	if l.Text != s {
		l.SetText(s)
	}
}

// editMenu is the Edit menu: undo and redo of points edits, the edit
// modes, and the class keys, with their shortcuts. Its items act on
// the selected layer (selected) and step the curation walk (walk).
func editMenu(selected func() Layer, walk func(step int)) *fyne.Menu {
	onLayer := func(f func(*PointsLayer)) func() {
		return func() {
			if pl, ok := pointsLayer(selected()); ok {
				f(pl)
			}
		}
	}
	undo := fyne.NewMenuItem("Undo", onLayer(func(l *PointsLayer) { l.Undo() }))
	undo.Shortcut = undoShortcut
	redo := fyne.NewMenuItem("Redo", onLayer(func(l *PointsLayer) { l.Redo() }))
	redo.Shortcut = redoShortcut
	// The keys editKey answers, shown beside the items (Fyne's window
	// menu only shows a shortcut; editKey handles the key).
	del := fyne.NewMenuItem("Delete selected points", onLayer(func(l *PointsLayer) { l.DeleteSelected() }))
	del.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyDelete}
	next := fyne.NewMenuItem("Next point", func() { walk(1) })
	next.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyPeriod}
	prev := fyne.NewMenuItem("Previous point", func() { walk(-1) })
	prev.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyComma}
	return fyne.NewMenu("Edit", undo, redo, fyne.NewMenuItemSeparator(), del, next, prev)
}

// newLayer adds an empty points layer on top and selects it, in add
// mode (napari's new points layer): a click adds a point on the plane
// on show. It has no file until saved; Save asks where, beside the
// image.
func (ed *editState) newLayer() *PointsLayer {
	v := ed.v
	name := "points"
	for n := 2; slices.ContainsFunc(v.stack.All(), func(l Layer) bool { return l.Name() == name }); n++ {
		name = fmt.Sprintf("points %d", n)
	}
	pl := v.AddPoints(name, nil)
	v.edit.setMode(AddPoints)
	widgets.Refocus(v.win, true)
	return pl
}
