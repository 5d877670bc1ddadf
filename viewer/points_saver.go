package viewer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/widgets"
)

// saver saves points layers and asks before their edits are lost: the
// Save points as dialog, the questions a save needs (replace a file,
// unknown points into XML), the unsaved-edits question on quitting and
// on removing a layer. It reads the layers through layers and selected
// and acts on the window through the rest.
type saver struct {
	win fyne.Window
	dlg *Dialogs
	// layers and selected are the viewer's layer list and selection.
	layers   func() []Layer
	selected func() Layer
	// status says a line in the status bar; showError shows an error
	// dialog; remove removes a layer.
	status    func(string)
	showError func(error)
	remove    func(Layer)
	// shown is the Save points as dialog on show (nil when none).
	shown *saveDialog
}

// saveSelected saves the selected points layer to its file, or asks
// where when it has none.
func (sv *saver) saveSelected() {
	pl, ok := pointsLayer(sv.selected())
	if !ok {
		sv.status("select a points layer to save")
		return
	}
	if pl.path == "" {
		sv.show(pl, nil)
		return
	}
	sv.saveTo(pl, pl.path, func(err error) {
		if err != nil {
			sv.showError(err)
		}
	})
}

// saveSelectedAs asks where to save the selected points layer.
func (sv *saver) saveSelectedAs() {
	if pl, ok := pointsLayer(sv.selected()); ok {
		sv.show(pl, nil)
		return
	}
	sv.status("select a points layer to save")
}

// saveTo saves pl to path once the questions path needs are answered
// (replace another file that exists; unknown points into XML), then
// calls done with the save's error. A question answered "cancel" ends
// there: done is not called and nothing is written.
func (sv *saver) saveTo(pl *PointsLayer, path string, done func(error)) {
	save := func() {
		err := pl.Save(path)
		if err == nil {
			sv.status(fmt.Sprintf("saved %s to %s", plural(pl.Len(), "point"), path))
		}
		done(err)
	}
	unknown := func() {
		n := pl.lostInXML()
		if !isXML(path) || n == 0 || pl.xmlAccepted == path {
			save()
			return
		}
		csv := strings.TrimSuffix(path, filepath.Ext(path)) + ".csv"
		are, they := "are", "they"
		if n == 1 {
			are, they = "is", "it"
		}
		msg := fmt.Sprintf("%s of %s %s unknown. Cellfinder's XML has no unknown class: "+
			"%s would be written as type 1 and read back as non-cell. "+
			"A CSV (z,y,x,type) keeps the class: %s.", plural(n, "point"), pl.Name(), are, they, filepath.Base(csv))
		sv.dlg.open(dlgUnknownXML, "Unknown points in cellfinder XML", messageContent(theme.WarningIcon(), msg), []DialogButton{
			{Label: "Cancel"},
			{Label: "Save as CSV instead", Importance: widget.HighImportance, Do: func() { sv.saveTo(pl, csv, done) }},
			{Label: "Save as XML anyway", Do: func() {
				pl.xmlAccepted = path
				save()
			}},
		}, 1, 0)
	}
	if _, err := os.Lstat(path); err == nil && !samePath(path, pl.path) {
		sv.dlg.open(dlgOverwrite, "Replace file?", messageContent(theme.WarningIcon(),
			fmt.Sprintf("%s exists. Replace it with the %s of %s?", path, plural(pl.Len(), "point"), pl.Name())),
			[]DialogButton{{Label: "Cancel"}, {Label: "Replace", Importance: widget.DangerImportance, Do: unknown}}, 0, 0)
		return
	}
	unknown()
}

// suggestPath is where the Save as dialog proposes to save pl: its own
// file, else a file named after the layer beside the image it lies on
// (the topmost image layer opened from a file), else in the folder
// voxlab runs in.
func (sv *saver) suggestPath(pl *PointsLayer) string {
	if pl.path != "" {
		if abs, err := filepath.Abs(pl.path); err == nil {
			return abs
		}
		return pl.path
	}
	dir := ""
	layers := sv.layers()
	for i := len(layers) - 1; i >= 0 && dir == ""; i-- {
		if il, ok := imageLayer(layers[i]); ok && il.spec != "" {
			p, _ := volume.SplitSpec(il.spec)
			if abs, err := filepath.Abs(strings.TrimRight(p, string(filepath.Separator))); err == nil {
				dir = filepath.Dir(abs)
			}
		}
	}
	if dir == "" {
		dir, _ = os.Getwd()
	}
	name := filepath.Base(pl.Name())
	if !points.IsPointsFile(name) {
		name += ".xml"
	}
	return filepath.Join(dir, name)
}

// show asks where to save pl: .xml for cellfinder's XML, .csv for CSV
// (a name without either gets .csv). It opens on the layer's own file
// (or a name beside the image) and stays open, saying why beside the
// path, until a save succeeds (then it runs then, if set) or it is
// cancelled.
func (sv *saver) show(pl *PointsLayer, then func()) {
	sd := &saveDialog{msg: widgets.WrapLabel("", widget.DangerImportance)}
	suggested := sv.suggestPath(pl)
	sd.dir = filepath.Dir(suggested)
	sd.path = &dialogEntry{}
	sd.path.ExtendBaseWidget(sd.path)
	sd.path.SetText(suggested)
	sd.path.CursorColumn = len([]rune(suggested))
	widgets.SetLabel(sd.msg, "")
	hint := widgets.WrapLabel(".xml: cellfinder's XML (cells and non-cells) · .csv: z,y,x,type (any class)", widget.LowImportance)
	save := func() { sv.submit(sd, pl, then) }
	sd.path.OnSubmitted = func(string) { save() }
	sd.path.OnChanged = func(string) { widgets.SetLabel(sd.msg, "") }
	browse := widget.NewButtonWithIcon("Browse folders…", theme.FolderOpenIcon(), func() { sv.browseFolder(sd) })
	content := container.NewVBox(
		widget.NewLabel("Save the points of "+pl.Name()+" to"), sd.path, sd.msg, hint,
		container.NewHBox(browse),
	)
	sd.m = sv.dlg.open(dlgSave, "Save points as", content, []DialogButton{
		{Label: "Cancel", Icon: theme.CancelIcon()},
		{Label: "Save", Icon: theme.DocumentSaveIcon(), Importance: widget.HighImportance, Do: save, Stay: true},
	}, 1, 0)
	sd.path.m = sd.m
	sd.m.keep = sd.path
	sd.m.d.Resize(fyne.NewSize(720, 0))
	sd.m.focus(sv.win)
	sv.shown = sd
}

// browseFolder picks the folder to save in with Fyne's folder
// chooser, which opens where the path points and keeps the file name.
func (sv *saver) browseFolder(sd *saveDialog) {
	cur := sd.target()
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err != nil {
			widgets.SetLabel(sd.msg, err.Error())
			return
		}
		if u != nil {
			sd.dir = u.Path()
			sd.path.SetText(filepath.Join(u.Path(), filepath.Base(cur)))
		}
		if sv.win != nil {
			sv.win.Canvas().Focus(sd.path)
		}
	}, sv.win)
	if dir, err := storage.ListerForURI(storage.NewFileURI(filepath.Dir(cur))); err == nil {
		d.SetLocation(dir)
	}
	d.Resize(fyne.NewSize(800, 560))
	d.Show()
}

// submit checks the path typed and saves there (after the questions
// saveTo asks); problems are said beside the path.
func (sv *saver) submit(sd *saveDialog, pl *PointsLayer, then func()) {
	if strings.TrimSpace(sd.path.Text) == "" {
		widgets.SetLabel(sd.msg, "type where to save the points: a file name ending in .xml or .csv")
		return
	}
	path := sd.target()
	if !points.IsPointsFile(path) {
		path += ".csv"
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		widgets.SetLabel(sd.msg, fmt.Sprintf("%s is a folder: add a file name", path))
		return
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		widgets.SetLabel(sd.msg, fmt.Sprintf("no folder %s", filepath.Dir(path)))
		return
	}
	sv.saveTo(pl, path, func(err error) {
		if err != nil {
			widgets.SetLabel(sd.msg, err.Error())
			sd.m.focus(sv.win)
			return
		}
		sd.m.hide(sv.dlg)
		if sv.shown == sd {
			sv.shown = nil
		}
		if then != nil {
			then()
		}
	})
}

// unsaved returns the points layers with edits not saved.
func (sv *saver) unsaved() []*PointsLayer {
	var out []*PointsLayer
	for _, l := range sv.layers() {
		if pl, ok := pointsLayer(l); ok && pl.Modified() {
			out = append(out, pl)
		}
	}
	return out
}

// saveAll saves each layer to its file in turn (with saveTo's
// questions), then runs then; a failed save is shown and stops there.
func (sv *saver) saveAll(ls []*PointsLayer, then func()) {
	if len(ls) == 0 {
		then()
		return
	}
	sv.saveTo(ls[0], ls[0].path, func(err error) {
		if err != nil {
			sv.showError(err)
			return
		}
		sv.saveAll(ls[1:], then)
	})
}

// confirmUnsaved runs quit at once when no points layer has unsaved
// edits; otherwise it asks first, naming the layers: save them (each to
// its file; offered when every one has a file) and quit, quit without
// saving, or keep editing (Escape). Use it as (or inside) the window's
// close intercept.
func (sv *saver) confirmUnsaved(quit func()) {
	un := sv.unsaved()
	if len(un) == 0 {
		quit()
		return
	}
	names := make([]string, len(un))
	canSave := true
	for i, l := range un {
		names[i] = l.Name()
		canSave = canSave && l.path != ""
	}
	where := "layer " + names[0]
	if len(names) > 1 {
		where = fmt.Sprintf("%d layers (%s)", len(names), strings.Join(names, ", "))
	}
	msg := fmt.Sprintf("The points of %s have unsaved edits.", where)
	if !canSave {
		msg += " Save the layers without a file with File ▸ Save points as… first."
	}
	def := 2
	if !canSave {
		def = 0
	}
	sv.dlg.open(dlgUnsaved, "Unsaved edits", messageContent(theme.WarningIcon(), msg), []DialogButton{
		{Label: quitKeep},
		{Label: quitDiscard, Importance: widget.DangerImportance, Do: quit},
		{Label: quitSave, Importance: widget.HighImportance, Disabled: !canSave, Do: func() { sv.saveAll(un, quit) }},
	}, def, 0)
}

// askRemove removes l as the layer list's trash button does: a
// points layer with unsaved edits asks first — keep it (Escape), remove
// it without saving, or save it (asking where when it has no file) and
// remove it.
func (sv *saver) askRemove(l Layer) {
	pl, ok := pointsLayer(l)
	if !ok || !pl.Modified() {
		sv.remove(l)
		return
	}
	saveLabel := "Save and remove"
	if pl.path == "" {
		saveLabel = "Save as… and remove"
	}
	sv.dlg.open(dlgRemove, "Remove layer with unsaved edits?", messageContent(theme.WarningIcon(),
		fmt.Sprintf("The points of layer %s have unsaved edits: removing the layer loses them.", pl.Name())),
		[]DialogButton{
			{Label: "Keep the layer"},
			{Label: "Remove without saving", Importance: widget.DangerImportance, Do: func() { sv.remove(pl) }},
			{Label: saveLabel, Importance: widget.HighImportance, Do: func() {
				remove := func() { sv.remove(pl) }
				if pl.path == "" {
					sv.show(pl, remove)
					return
				}
				sv.saveTo(pl, pl.path, func(err error) {
					if err != nil {
						sv.showError(err)
						return
					}
					remove()
				})
			}},
		}, 2, 0)
}

// ConfirmUnsaved runs quit at once when no points layer has unsaved
// edits; otherwise it asks first, naming the layers: save them (each to
// its file; offered when every one has a file) and quit, quit without
// saving, or keep editing (Escape). Use it as (or inside) the window's
// close intercept.
func (v *Viewer) ConfirmUnsaved(quit func()) { v.save.confirmUnsaved(quit) }
