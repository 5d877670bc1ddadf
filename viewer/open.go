package viewer

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/widgets"
)

// opener is the window's way in for files: the Open and Open folder
// dialogs, Fyne's choosers, drops on the window, the dataset chooser of
// an HDF5 file and the recent list. It opens through open (Viewer.Open)
// and reports through showError.
type opener struct {
	win fyne.Window
	dlg *Dialogs
	// open opens a spec as a layer; showError shows an error dialog;
	// menuChanged rebuilds the main menu (Open recent) when set.
	open        func(spec string) (Layer, error)
	showError   func(error)
	menuChanged func()
	// shown is the Open dialog on show (nil when none), for tests.
	shown *openDialog
}

// recent returns the recently opened specs, newest first.
func (o *opener) recent() []string {
	return fyne.CurrentApp().Preferences().StringList(recentKey)
}

// addRecent puts spec (made absolute) at the head of the recent list.
func (o *opener) addRecent(spec string) {
	if abs, err := filepath.Abs(spec); err == nil {
		spec = abs
	}
	prefs := fyne.CurrentApp().Preferences()
	list := slices.DeleteFunc(prefs.StringList(recentKey), func(s string) bool { return s == spec })
	list = append([]string{spec}, list...)
	if len(list) > maxRecent {
		list = list[:maxRecent]
	}
	prefs.SetStringList(recentKey, list)
	if o.win != nil && o.win.MainMenu() != nil && o.menuChanged != nil {
		o.menuChanged()
	}
}

// openDialog is the Open dialog: a path to type or paste (Fyne's file
// chooser has no field for one), with the file and folder choosers a
// click away. Enter opens, Escape cancels.
type openDialog struct {
	m     *modal
	path  *dialogEntry
	msg   *widget.Label
	open  *widget.Button
	files *widget.Button
	// folder: File ▸ Open folder's, which takes folders only.
	folder bool
}

// show asks for a file or folder to open: its path typed or pasted (a
// leading ~ is the home folder), or picked with Browse files… or Browse
// folders…; HDF5 files then get a dataset chooser. With folder it is
// File ▸ Open folder's: a folder (of TIFF planes, of MRC maps) to open
// as one layer, picked with Browse folders…. Enter opens, Escape
// cancels.
func (o *opener) show(folder bool) {
	d := &openDialog{path: &dialogEntry{}, msg: widgets.WrapLabel("", widget.DangerImportance), folder: folder}
	d.path.ExtendBaseWidget(d.path)
	title, label := "Open", "Path of a file or folder"
	d.path.SetPlaceHolder("a file, a folder of TIFF planes, or FILE.h5:/dataset")
	if folder {
		title, label = "Open folder", "Path of a folder of TIFF planes or MRC maps"
		d.path.SetPlaceHolder("a folder, e.g. crop_planes/ch0")
	}
	if recent := o.recent(); len(recent) > 0 {
		p, _ := volume.SplitSpec(recent[0])
		d.path.SetText(filepath.Dir(p) + string(filepath.Separator))
		d.path.CursorColumn = len([]rune(d.path.Text))
	}
	widgets.SetLabel(d.msg, "")
	d.path.OnSubmitted = func(string) { o.typed(d) }
	d.path.OnChanged = func(string) { widgets.SetLabel(d.msg, "") }
	d.files = widget.NewButtonWithIcon("Browse files…", theme.FileIcon(), func() {
		o.close(d)
		o.chooseFile()
	})
	folders := widget.NewButtonWithIcon("Browse folders…", theme.FolderIcon(), func() {
		o.close(d)
		o.chooseFolder()
	})
	browse := container.NewHBox(d.files, folders)
	if folder {
		browse = container.NewHBox(folders)
	}
	content := container.NewVBox(widget.NewLabel(label), d.path, d.msg, browse)
	d.m = o.dlg.open("open", title, content, []DialogButton{
		{Label: "Cancel", Icon: theme.CancelIcon(), Do: func() { o.close(d) }},
		{Label: "Open", Icon: theme.ConfirmIcon(), Importance: widget.HighImportance, Stay: true, Do: func() { o.typed(d) }},
	}, 1, 0)
	d.open = &d.m.buttons[1].Button
	d.path.m = d.m
	d.m.keep = d.path
	d.m.d.Resize(fyne.NewSize(640, 0))
	o.shown = d
	d.m.focus(o.win)
}

// close hides the Open dialog d.
func (o *opener) close(d *openDialog) {
	d.m.hide(o.dlg)
	if o.shown == d {
		o.shown = nil
	}
}

// typed opens the path typed in the Open dialog, or says beside it why
// it cannot.
func (o *opener) typed(d *openDialog) {
	spec := expandHome(strings.TrimSpace(d.path.Text))
	if spec == "" {
		widgets.SetLabel(d.msg, "type the path of a file or folder, or browse for one")
		return
	}
	p, _ := volume.SplitSpec(spec)
	st, err := os.Stat(p)
	switch {
	case err != nil && d.folder:
		widgets.SetLabel(d.msg, fmt.Sprintf("%s: no such folder", p))
		return
	case err != nil:
		widgets.SetLabel(d.msg, fmt.Sprintf("%s: no such file or folder", p))
		return
	case d.folder && !st.IsDir():
		widgets.SetLabel(d.msg, fmt.Sprintf("%s is a file, not a folder: use File ▸ Open… for files", p))
		return
	}
	o.close(d)
	o.interactive(spec)
}

// expandHome replaces a leading ~ with the home folder.
func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// chooseFile lets the user pick a file in Fyne's chooser.
func (o *opener) chooseFile() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			o.showError(err)
			return
		}
		if r == nil {
			return
		}
		path := r.URI().Path()
		r.Close()
		o.interactive(path)
	}, o.win)
	exts := []string{".csv", ".xml"}
	for _, f := range volume.Formats() {
		for _, e := range f.Extensions {
			if e != "/" {
				exts = append(exts, e)
			}
		}
	}
	d.SetFilter(storage.NewExtensionFileFilter(exts))
	o.startAtRecent(d)
	d.Resize(fyne.NewSize(800, 560))
	d.Show()
}

// chooseFolder lets the user pick a folder (of TIFF planes, of MRC
// maps) in Fyne's chooser, to open as one layer.
func (o *opener) chooseFolder() {
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err != nil {
			o.showError(err)
			return
		}
		if u != nil {
			o.interactive(u.Path())
		}
	}, o.win)
	o.startAtRecent(d)
	d.Resize(fyne.NewSize(800, 560))
	d.Show()
}

// startAtRecent starts a chooser in the folder of the file opened last.
func (o *opener) startAtRecent(d *dialog.FileDialog) {
	if recent := o.recent(); len(recent) > 0 {
		p, _ := volume.SplitSpec(recent[0])
		if dir, err := storage.ListerForURI(storage.NewFileURI(filepath.Dir(p))); err == nil {
			d.SetLocation(dir)
		}
	}
}

// dropped opens files dropped on the window.
func (o *opener) dropped(_ fyne.Position, uris []fyne.URI) {
	for _, u := range uris {
		o.interactive(u.Path())
	}
}

// interactive opens a spec picked by the user: errors go to a dialog,
// and an HDF5 file without a dataset asks which one to show.
func (o *opener) interactive(spec string) {
	path, ds := volume.SplitSpec(spec)
	if ds == "" {
		if names := datasets(path); len(names) > 1 {
			o.chooseDataset(path, names)
			return
		} else if len(names) == 1 {
			spec = path + ":" + names[0]
		}
	}
	if _, err := o.open(spec); err != nil {
		o.showError(err)
	}
}

// chooseDataset asks which dataset of an HDF5 file (or channel of a TIFF)
// to open.
func (o *opener) chooseDataset(path string, names []string) {
	sel := widget.NewRadioGroup(names, nil)
	sel.SetSelected(names[0])
	o.dlg.open("dataset", "Dataset of "+filepath.Base(path), sel, []DialogButton{
		{Label: "Cancel", Icon: theme.CancelIcon()},
		{Label: "Open", Icon: theme.ConfirmIcon(), Importance: widget.HighImportance, Do: func() {
			if sel.Selected != "" {
				if _, err := o.open(path + ":" + sel.Selected); err != nil {
					o.showError(err)
				}
			}
		}},
	}, 1, 0)
}
