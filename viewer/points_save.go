package viewer

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

// Saving points never loses work: the file is written under a temporary
// name and renamed into place (points.Save), and nothing opens the
// destination before that, so a save that fails leaves the file as it
// was. (Fyne's file-save dialog hands over a writer that has already
// truncated the chosen file, so voxlab asks for the path itself.) Every
// question comes first: replacing another file, and saving points of
// unknown class to cellfinder's XML, which has no unknown class.

// savePoints writes a layer's points (with their classifier's
// probabilities, nil when none); tests make it fail.
var savePoints = points.SaveProbability

// Path returns the file the layer saves to ("" when it has none yet).
func (l *PointsLayer) Path() string { return l.path }

// Save writes the layer's points to path (cellfinder XML for .xml, else
// CSV) through a temporary file, and makes it the layer's file: the
// layer is no longer modified, and saved to another file it takes that
// file's name, as a layer opened from it would have.
func (l *PointsLayer) Save(path string) error {
	pts, prob := l.LiveWithProbabilities()
	if err := savePoints(path, pts, prob); err != nil {
		return err
	}
	moved := l.path != path
	l.path = path
	l.MarkSaved()
	if moved {
		l.name, l.spec = filepath.Base(path), path
		if l.v != nil {
			l.v.layersChanged()
		}
	}
	l.changed()
	return nil
}

// lostInXML counts the live points that cellfinder's XML cannot keep
// the class of: unknowns (written, as cellfinder writes its unclassified
// candidates, as type 1, which reads back as non-cell). "type N" names
// keep their code.
func (l *PointsLayer) lostInXML() int {
	n := 0
	for _, p := range l.Points() {
		if points.ClassOf(p.Type) == points.Unknown && !isTypeCode(p.Type) {
			n++
		}
	}
	return n
}

// isTypeCode reports whether typ is an XML marker code ("type 5").
func isTypeCode(typ string) bool {
	n, ok := strings.CutPrefix(typ, "type ")
	c, err := strconv.Atoi(n)
	return ok && err == nil && c > 0
}

// isXML reports whether path names cellfinder's XML.
func isXML(path string) bool { return strings.EqualFold(filepath.Ext(path), ".xml") }

// SaveSelected saves the selected points layer to its file, or asks
// where when it has none.
func (v *Viewer) SaveSelected() {
	pl, ok := v.stack.Selected().(*PointsLayer)
	if !ok {
		v.bar.status.SetText("select a points layer to save")
		return
	}
	if pl.path == "" {
		v.ShowSaveDialog(pl)
		return
	}
	v.saveTo(pl, pl.path, func(err error) {
		if err != nil {
			v.ShowError(err)
		}
	})
}

// SaveSelectedAs asks where to save the selected points layer.
func (v *Viewer) SaveSelectedAs() {
	if pl, ok := v.stack.Selected().(*PointsLayer); ok {
		v.ShowSaveDialog(pl)
		return
	}
	v.bar.status.SetText("select a points layer to save")
}

// saveTo saves pl to path once the questions path needs are answered
// (replace another file that exists; unknown points into XML), then
// calls done with the save's error. A question answered "cancel" ends
// there: done is not called and nothing is written.
func (v *Viewer) saveTo(pl *PointsLayer, path string, done func(error)) {
	save := func() {
		err := pl.Save(path)
		if err == nil {
			v.bar.status.SetText(fmt.Sprintf("saved %s to %s", plural(pl.Len(), "point"), path))
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
		v.dlg.show(dlgUnknownXML, "Unknown points in cellfinder XML", messageContent(theme.WarningIcon(), msg), []DialogButton{
			{Label: "Cancel"},
			{Label: "Save as CSV instead", Importance: widget.HighImportance, Do: func() { v.saveTo(pl, csv, done) }},
			{Label: "Save as XML anyway", Do: func() {
				pl.xmlAccepted = path
				save()
			}},
		}, 1, 0)
	}
	if _, err := os.Lstat(path); err == nil && !samePath(path, pl.path) {
		v.dlg.show(dlgOverwrite, "Replace file?", messageContent(theme.WarningIcon(),
			fmt.Sprintf("%s exists. Replace it with the %s of %s?", path, plural(pl.Len(), "point"), pl.Name())),
			[]DialogButton{{Label: "Cancel"}, {Label: "Replace", Importance: widget.DangerImportance, Do: unknown}}, 0, 0)
		return
	}
	unknown()
}

// samePath reports whether a and b name the same file.
func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if a == b {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// plural writes n and the noun, with an s unless n is 1: "1 point",
// "3 points".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// suggestPath is where the Save as dialog proposes to save pl: its own
// file, else a file named after the layer beside the image it lies on
// (the topmost image layer opened from a file), else in the folder
// voxlab runs in.
func (v *Viewer) suggestPath(pl *PointsLayer) string {
	if pl.path != "" {
		if abs, err := filepath.Abs(pl.path); err == nil {
			return abs
		}
		return pl.path
	}
	dir := ""
	for i := v.stack.Len() - 1; i >= 0 && dir == ""; i-- {
		if il, ok := v.stack.At(i).(*ImageLayer); ok && il.spec != "" {
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

// saveDialog is the Save points as dialog: the path, typed or pasted
// (absolute, ~/…, or relative to the folder proposed), or picked
// with Browse folders….
type saveDialog struct {
	m    *modal
	path *dialogEntry
	msg  *widget.Label
	// dir is the folder a relative path is taken in.
	dir string
}

// dialogEntry is an entry in a dialog: Escape presses the dialog's
// cancelling button, as it does from the buttons.
type dialogEntry struct {
	widget.Entry
	m *modal
}

// TypedKey passes Escape to the dialog, the rest to the entry.
func (e *dialogEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && e.m != nil && e.m.esc != nil {
		e.m.esc.OnTapped()
		return
	}
	e.Entry.TypedKey(ev)
}

// ShowSaveDialog asks where to save pl: .xml for cellfinder's XML,
// .csv for CSV (a name without either gets .csv). It opens on the
// layer's own file (or a name beside the image) and stays open, saying
// why beside the path, until a save succeeds or it is cancelled.
func (v *Viewer) ShowSaveDialog(pl *PointsLayer) { v.showSaveDialog(pl, nil) }

// showSaveDialog is ShowSaveDialog, running then after a successful
// save.
func (v *Viewer) showSaveDialog(pl *PointsLayer, then func()) {
	sd := &saveDialog{msg: widgets.WrapLabel("", widget.DangerImportance)}
	suggested := v.suggestPath(pl)
	sd.dir = filepath.Dir(suggested)
	sd.path = &dialogEntry{}
	sd.path.ExtendBaseWidget(sd.path)
	sd.path.SetText(suggested)
	sd.path.CursorColumn = len([]rune(suggested))
	widgets.SetLabel(sd.msg, "")
	hint := widgets.WrapLabel(".xml: cellfinder's XML (cells and non-cells) · .csv: z,y,x,type (any class)", widget.LowImportance)
	save := func() { v.submitSave(sd, pl, then) }
	sd.path.OnSubmitted = func(string) { save() }
	sd.path.OnChanged = func(string) { widgets.SetLabel(sd.msg, "") }
	browse := widget.NewButtonWithIcon("Browse folders…", theme.FolderOpenIcon(), func() { v.browseSaveFolder(sd) })
	content := container.NewVBox(
		widget.NewLabel("Save the points of "+pl.Name()+" to"), sd.path, sd.msg, hint,
		container.NewHBox(browse),
	)
	sd.m = v.dlg.show(dlgSave, "Save points as", content, []DialogButton{
		{Label: "Cancel", Icon: theme.CancelIcon()},
		{Label: "Save", Icon: theme.DocumentSaveIcon(), Importance: widget.HighImportance, Do: save, Stay: true},
	}, 1, 0)
	sd.path.m = sd.m
	sd.m.keep = sd.path
	sd.m.d.Resize(fyne.NewSize(720, 0))
	sd.m.focus(v.win)
	v.saveDlg = sd
}

// browseSaveFolder picks the folder to save in with Fyne's folder
// chooser, which opens where the path points and keeps the file name.
func (v *Viewer) browseSaveFolder(sd *saveDialog) {
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
		if v.win != nil {
			v.win.Canvas().Focus(sd.path)
		}
	}, v.win)
	if dir, err := storage.ListerForURI(storage.NewFileURI(filepath.Dir(cur))); err == nil {
		d.SetLocation(dir)
	}
	d.Resize(fyne.NewSize(800, 560))
	d.Show()
}

// target is the path typed, made absolute: ~ is the home folder, and a
// relative path is taken in the folder the dialog proposed.
func (sd *saveDialog) target() string {
	p := expandHome(strings.TrimSpace(sd.path.Text))
	if p != "" && !filepath.IsAbs(p) {
		p = filepath.Join(sd.dir, p)
	}
	return filepath.Clean(p)
}

// submitSave checks the path typed and saves there (after the questions
// saveTo asks); problems are said beside the path.
func (v *Viewer) submitSave(sd *saveDialog, pl *PointsLayer, then func()) {
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
	v.saveTo(pl, path, func(err error) {
		if err != nil {
			widgets.SetLabel(sd.msg, err.Error())
			sd.m.focus(v.win)
			return
		}
		sd.m.hide(&v.dlg)
		if v.saveDlg == sd {
			v.saveDlg = nil
		}
		if then != nil {
			then()
		}
	})
}

// Unsaved returns the points layers with edits not saved.
func (v *Viewer) Unsaved() []*PointsLayer {
	var out []*PointsLayer
	for _, l := range v.stack.All() {
		if pl, ok := l.(*PointsLayer); ok && pl.Modified() {
			out = append(out, pl)
		}
	}
	return out
}

// saveAll saves each layer to its file in turn (with saveTo's
// questions), then runs then; a failed save is shown and stops there.
func (v *Viewer) saveAll(ls []*PointsLayer, then func()) {
	if len(ls) == 0 {
		then()
		return
	}
	v.saveTo(ls[0], ls[0].path, func(err error) {
		if err != nil {
			v.ShowError(err)
			return
		}
		v.saveAll(ls[1:], then)
	})
}

// ConfirmUnsaved runs quit at once when no points layer has unsaved
// edits; otherwise it asks first, naming the layers: save them (each to
// its file; offered when every one has a file) and quit, quit without
// saving, or keep editing (Escape). Use it as (or inside) the window's
// close intercept.
func (v *Viewer) ConfirmUnsaved(quit func()) {
	un := v.Unsaved()
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
	v.dlg.show(dlgUnsaved, "Unsaved edits", messageContent(theme.WarningIcon(), msg), []DialogButton{
		{Label: quitKeep},
		{Label: quitDiscard, Importance: widget.DangerImportance, Do: quit},
		{Label: quitSave, Importance: widget.HighImportance, Disabled: !canSave, Do: func() { v.saveAll(un, quit) }},
	}, def, 0)
}

// Labels of the unsaved-edits question.
const (
	quitSave    = "Save and quit"
	quitDiscard = "Quit without saving"
	quitKeep    = "Keep editing"
)

// AskRemoveLayer removes l as the layer list's trash button does: a
// points layer with unsaved edits asks first — keep it (Escape), remove
// it without saving, or save it (asking where when it has no file) and
// remove it.
func (v *Viewer) AskRemoveLayer(l Layer) {
	pl, ok := l.(*PointsLayer)
	if !ok || !pl.Modified() {
		v.RemoveLayer(l)
		return
	}
	saveLabel := "Save and remove"
	if pl.path == "" {
		saveLabel = "Save as… and remove"
	}
	v.dlg.show(dlgRemove, "Remove layer with unsaved edits?", messageContent(theme.WarningIcon(),
		fmt.Sprintf("The points of layer %s have unsaved edits: removing the layer loses them.", pl.Name())),
		[]DialogButton{
			{Label: "Keep the layer"},
			{Label: "Remove without saving", Importance: widget.DangerImportance, Do: func() { v.RemoveLayer(pl) }},
			{Label: saveLabel, Importance: widget.HighImportance, Do: func() {
				remove := func() { v.RemoveLayer(pl) }
				if pl.path == "" {
					v.showSaveDialog(pl, remove)
					return
				}
				v.saveTo(pl, pl.path, func(err error) {
					if err != nil {
						v.ShowError(err)
						return
					}
					remove()
				})
			}},
		}, 2, 0)
}
