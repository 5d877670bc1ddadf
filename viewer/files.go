package viewer

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/processing/volume/h5"
	"github.com/voxlab/voxlab/viewer/model"
	"github.com/voxlab/voxlab/widgets"
)

// Recent files are kept in the app's Preferences under this key, newest
// first, at most maxRecent.
const (
	recentKey = "viewer.recent"
	maxRecent = 10
)

// Open opens a file spec as a new layer: a volume ("scan.nxs" shows the
// projections of a NeXus scan, "brain.h5:/data" one dataset of an HDF5
// file, a folder of TIFF planes, NPY, MRC), a stack of maps (4D NPY, a
// folder of MRC files: a map slider picks the map), or a CSV of points
// (columns z,y,x and optionally type). Only headers are read
// here; slices load in the background. The file joins the recent list.
func (v *Viewer) Open(spec string) (Layer, error) {
	path, _ := volume.SplitSpec(spec)
	name := displayName(spec)
	var l Layer
	if points.IsPointsFile(path) {
		pts, ps, order, err := readPoints(path, nil)
		if err != nil {
			return nil, err
		}
		pl := v.AddPoints(name, pts)
		pl.path = path
		pl.SetReviewOrder(order)
		pl.SetProbabilities(ps)
		l = pl
	} else {
		vol, maps, err := openVolume(spec)
		if err != nil {
			return nil, err
		}
		if i := strings.LastIndex(vol.Name, " ("); i > 0 && strings.HasSuffix(vol.Name, ")") {
			name += " " + vol.Name[i+2:len(vol.Name)-1]
		}
		if l, err = v.addImage(name, vol, maps, ImageOptions{}); err != nil {
			vol.Close()
			return nil, err
		}
	}
	l.base().spec = spec
	v.updateTitle()
	v.addRecent(spec)
	return l, nil
}

// OpenScored opens a points file as Open does, with the cell
// probabilities a classifier gave its points when the file cannot hold
// them (cellfinder's XML): score returns a point's probability, false
// for a point it did not classify (shown as unknown). The layer is then
// reviewed in the classifier's order, as a CSV with a probability
// column is.
func (v *Viewer) OpenScored(path string, score func(z, y, x float64) (float64, bool)) (*PointsLayer, error) {
	pts, ps, order, err := readPoints(path, score)
	if err != nil {
		return nil, err
	}
	pl := v.AddPoints(displayName(path), pts)
	pl.path, pl.spec = path, path
	pl.SetReviewOrder(order)
	pl.SetProbabilities(ps)
	v.updateTitle()
	v.addRecent(path)
	return pl, nil
}

// readPoints reads a points file; its probabilities come from score when
// given, else from the file's probability column. With one per point,
// the points without one become unknown and the walk's order is
// returned; else ps and order are nil.
func readPoints(path string, score func(z, y, x float64) (float64, bool)) (pts []Point, ps []float64, order []int32, err error) {
	if pts, err = points.Read(path); err != nil {
		return nil, nil, nil, err
	}
	if score != nil {
		ps = make([]float64, len(pts))
		for i, p := range pts {
			if q, ok := score(p.Z, p.Y, p.X); ok {
				ps[i] = q
			} else {
				ps[i] = math.NaN()
			}
		}
	} else {
		ps = model.ReadProbabilities(path)
	}
	order, ps = model.ReviewOf(ps, pts) // classified points: see model/order.go
	return pts, ps, order, nil
}

// openVolume opens spec as a volume: a NeXus scan named without a
// dataset shows its projections (frames with image_key 0); anything that
// is not one volume is tried as a stack of maps, returned as its maps
// one after the other along z with their number.
func openVolume(spec string) (vol *volume.Volume, maps int, err error) {
	path, ds := volume.SplitSpec(spec)
	if ds == "" && isHDF5(path) && h5.IsNeXus(path) {
		nx, err := h5.OpenNeXus(path)
		if err != nil {
			return nil, 0, err
		}
		return volume.New(path+" (projections)", closer{nx.Projections.Source(), nx.Close}), 1, nil
	}
	vol, err = volume.Open(spec)
	if err == nil {
		return vol, 1, nil
	}
	st, serr := volume.OpenStack(spec)
	if serr != nil {
		return nil, 0, err
	}
	pl := st.Planes()
	return volume.New(fmt.Sprintf("%s (%d maps)", pl.Name, st.N), closer{pl.Source(), st.Close}), st.N, nil
}

// closer is a Source whose Close closes what it was cut from (the NeXus
// file behind a projections subset).
type closer struct {
	volume.Source
	close func() error
}

func (c closer) Close() error { return c.close() }

func isHDF5(path string) bool {
	f := volume.FormatFor(path)
	return f != nil && (f.Name == "hdf5" || f.Name == "nexus")
}

// displayName is the layer name for a spec: the file name, and the
// dataset's last part for HDF5 or "channel N" for a TIFF's channel.
func displayName(spec string) string {
	path, ds := volume.SplitSpec(spec)
	name := filepath.Base(path)
	if c, ok := strings.CutPrefix(ds, "/channel/"); ok {
		return name + " channel " + c
	}
	if ds != "" && ds != "/" {
		name += ":" + ds[strings.LastIndex(ds, "/")+1:]
	}
	return name
}

// ReadPointsCSV reads points from a CSV file with columns z, y, x and
// optionally type (see points.ReadCSV).
func ReadPointsCSV(path string) ([]Point, error) { return points.ReadCSV(path) }

// Recent returns the recently opened specs, newest first.
func (v *Viewer) Recent() []string {
	return fyne.CurrentApp().Preferences().StringList(recentKey)
}

func (v *Viewer) addRecent(spec string) {
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
	if v.win != nil && v.win.MainMenu() != nil {
		v.win.SetMainMenu(v.mainMenu())
	}
}

// Shortcuts of the menu items: Fyne shows them beside the items and runs
// them from anywhere in the window, whatever has the focus.
var (
	openShortcut       = &desktop.CustomShortcut{KeyName: fyne.KeyO, Modifier: fyne.KeyModifierShortcutDefault}
	openFolderShortcut = &desktop.CustomShortcut{KeyName: fyne.KeyO, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
	resetShortcut      = &desktop.CustomShortcut{KeyName: fyne.Key0, Modifier: fyne.KeyModifierShortcutDefault}
	gridShortcut       = &desktop.CustomShortcut{KeyName: fyne.KeyG, Modifier: fyne.KeyModifierShortcutDefault}
	saveAsShortcut     = &desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
	newPointsShortcut  = &desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: fyne.KeyModifierShortcutDefault}
	quitShortcut       = &desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierShortcutDefault}
)

// mainMenu is File (Open, Open folder, Open recent, New points layer,
// Save points, Save points as, Quit) and View (Reset view, Toggle grid),
// with their shortcuts. Quit has no action of its own: Fyne gives it one
// that closes the window through its close intercept, so Ctrl+Q asks
// about unsaved edits (and running jobs) as the close button does.
func (v *Viewer) mainMenu() *fyne.MainMenu {
	recent := fyne.NewMenuItem("Open recent", nil)
	var items []*fyne.MenuItem
	for _, spec := range v.Recent() {
		items = append(items, fyne.NewMenuItem(spec, func() { v.openInteractive(spec) }))
	}
	if len(items) == 0 {
		items = []*fyne.MenuItem{fyne.NewMenuItem("(none)", nil)}
		items[0].Disabled = true
	}
	recent.ChildMenu = fyne.NewMenu("", items...)
	item := func(label string, sc fyne.Shortcut, f func()) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, f)
		it.Shortcut = sc
		return it
	}
	view := fyne.NewMenu("View",
		item("Reset view", resetShortcut, v.ResetView),
		item("Toggle grid", gridShortcut, func() { v.SetGrid(!v.grid) }),
	)
	return fyne.NewMainMenu(
		fyne.NewMenu("File",
			item("Open…", openShortcut, v.ShowOpenDialog),
			item("Open folder…", openFolderShortcut, v.ShowOpenFolderDialog),
			recent,
			item("Export layer…", nil, v.actions.Export),
			fyne.NewMenuItemSeparator(),
			item("New points layer", newPointsShortcut, func() { v.NewPointsLayer() }),
			item("Save points", saveShortcut, v.SaveSelected),
			item("Save points as…", saveAsShortcut, v.SaveSelectedAs),
			fyne.NewMenuItemSeparator(),
			quitItem()),
		view,
		v.editMenu(),
	)
}

// quitItem is File ▸ Quit with Ctrl+Q, its action left to Fyne (see
// mainMenu).
func quitItem() *fyne.MenuItem {
	q := fyne.NewMenuItem("Quit", nil)
	q.IsQuit = true
	q.Shortcut = quitShortcut
	return q
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

// ShowOpenDialog asks for a file or folder to open: its path typed or
// pasted (a leading ~ is the home folder), or picked with Browse files…
// or Browse folders…. HDF5 files then get a dataset chooser.
func (v *Viewer) ShowOpenDialog() { showOpenDialog(v, false) }

// ShowOpenFolderDialog asks for a folder (of TIFF planes, of MRC maps)
// to open as one layer, as ShowOpenDialog does: typed or pasted, or
// picked with Browse folders…; Enter opens, Escape cancels.
func (v *Viewer) ShowOpenFolderDialog() { showOpenDialog(v, true) }

// showOpenDialog shows the Open dialog, or File ▸ Open folder's (folder).
func showOpenDialog(v *Viewer, folder bool) {
	o := &openDialog{path: &dialogEntry{}, msg: widgets.WrapLabel("", widget.DangerImportance), folder: folder}
	o.path.ExtendBaseWidget(o.path)
	title, label := "Open", "Path of a file or folder"
	o.path.SetPlaceHolder("a file, a folder of TIFF planes, or FILE.h5:/dataset")
	if folder {
		title, label = "Open folder", "Path of a folder of TIFF planes or MRC maps"
		o.path.SetPlaceHolder("a folder, e.g. crop_planes/ch0")
	}
	if recent := v.Recent(); len(recent) > 0 {
		p, _ := volume.SplitSpec(recent[0])
		o.path.SetText(filepath.Dir(p) + string(filepath.Separator))
		o.path.CursorColumn = len([]rune(o.path.Text))
	}
	widgets.SetLabel(o.msg, "")
	o.path.OnSubmitted = func(string) { v.openTyped(o) }
	o.path.OnChanged = func(string) { widgets.SetLabel(o.msg, "") }
	o.files = widget.NewButtonWithIcon("Browse files…", theme.FileIcon(), func() {
		v.closeOpenDialog(o)
		v.showFileChooser()
	})
	folders := widget.NewButtonWithIcon("Browse folders…", theme.FolderIcon(), func() {
		v.closeOpenDialog(o)
		showFolderChooser(v)
	})
	browse := container.NewHBox(o.files, folders)
	if folder {
		browse = container.NewHBox(folders)
	}
	content := container.NewVBox(widget.NewLabel(label), o.path, o.msg, browse)
	o.m = v.dlg.show("open", title, content, []DialogButton{
		{Label: "Cancel", Icon: theme.CancelIcon(), Do: func() { v.closeOpenDialog(o) }},
		{Label: "Open", Icon: theme.ConfirmIcon(), Importance: widget.HighImportance, Stay: true, Do: func() { v.openTyped(o) }},
	}, 1, 0)
	o.open = &o.m.buttons[1].Button
	o.path.m = o.m
	o.m.keep = o.path
	o.m.d.Resize(fyne.NewSize(640, 0))
	v.openDlg = o
	o.m.focus(v.win)
}

// closeOpenDialog hides the Open dialog.
func (v *Viewer) closeOpenDialog(o *openDialog) {
	o.m.hide(&v.dlg)
	if v.openDlg == o {
		v.openDlg = nil
	}
}

// openTyped opens the path typed in the Open dialog, or says beside it
// why it cannot.
func (v *Viewer) openTyped(o *openDialog) {
	spec := expandHome(strings.TrimSpace(o.path.Text))
	if spec == "" {
		widgets.SetLabel(o.msg, "type the path of a file or folder, or browse for one")
		return
	}
	p, _ := volume.SplitSpec(spec)
	st, err := os.Stat(p)
	switch {
	case err != nil && o.folder:
		widgets.SetLabel(o.msg, fmt.Sprintf("%s: no such folder", p))
		return
	case err != nil:
		widgets.SetLabel(o.msg, fmt.Sprintf("%s: no such file or folder", p))
		return
	case o.folder && !st.IsDir():
		widgets.SetLabel(o.msg, fmt.Sprintf("%s is a file, not a folder: use File ▸ Open… for files", p))
		return
	}
	v.closeOpenDialog(o)
	v.openInteractive(spec)
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

// showFileChooser lets the user pick a file in Fyne's chooser.
func (v *Viewer) showFileChooser() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			v.ShowError(err)
			return
		}
		if r == nil {
			return
		}
		path := r.URI().Path()
		r.Close()
		v.openInteractive(path)
	}, v.win)
	exts := []string{".csv", ".xml"}
	for _, f := range volume.Formats() {
		for _, e := range f.Extensions {
			if e != "/" {
				exts = append(exts, e)
			}
		}
	}
	d.SetFilter(storage.NewExtensionFileFilter(exts))
	v.startAtRecent(d)
	d.Resize(fyne.NewSize(800, 560))
	d.Show()
}

// showFolderChooser lets the user pick a folder (of TIFF planes, of
// MRC maps) in Fyne's chooser, to open as one layer.
func showFolderChooser(v *Viewer) {
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err != nil {
			v.ShowError(err)
			return
		}
		if u != nil {
			v.openInteractive(u.Path())
		}
	}, v.win)
	v.startAtRecent(d)
	d.Resize(fyne.NewSize(800, 560))
	d.Show()
}

// startAtRecent starts a chooser in the folder of the file opened last.
func (v *Viewer) startAtRecent(d *dialog.FileDialog) {
	if recent := v.Recent(); len(recent) > 0 {
		p, _ := volume.SplitSpec(recent[0])
		if dir, err := storage.ListerForURI(storage.NewFileURI(filepath.Dir(p))); err == nil {
			d.SetLocation(dir)
		}
	}
}

// dropped opens files dropped on the window.
func (v *Viewer) dropped(_ fyne.Position, uris []fyne.URI) {
	for _, u := range uris {
		v.openInteractive(u.Path())
	}
}

// openInteractive opens a spec picked by the user: errors go to a dialog,
// and an HDF5 file without a dataset asks which one to show.
func (v *Viewer) openInteractive(spec string) {
	path, ds := volume.SplitSpec(spec)
	if ds == "" {
		if names := datasets(path); len(names) > 1 {
			v.chooseDataset(path, names)
			return
		} else if len(names) == 1 {
			spec = path + ":" + names[0]
		}
	}
	if _, err := v.Open(spec); err != nil {
		v.ShowError(err)
	}
}

// datasets lists the datasets of an HDF5 file that open as volumes, the
// channels of a multi-channel TIFF ("/channel/N"), or nil for other files
// and NeXus scans (which open on their projections).
func datasets(path string) []string {
	if f := volume.FormatFor(path); f != nil && f.Name == "tiff" {
		n, err := volume.TIFFChannels(path)
		if err != nil || n <= 1 {
			return nil
		}
		names := make([]string, n)
		for c := range names {
			names[c] = fmt.Sprintf("/channel/%d", c)
		}
		return names
	}
	if !isHDF5(path) || h5.IsNeXus(path) {
		return nil
	}
	nodes, err := h5.Datasets(path)
	if err != nil {
		return nil
	}
	var names []string
	for _, n := range nodes {
		if h5.Readable(n) {
			names = append(names, n.Path)
		}
	}
	return names
}

// chooseDataset asks which dataset of an HDF5 file (or channel of a TIFF)
// to open.
func (v *Viewer) chooseDataset(path string, names []string) {
	sel := widget.NewRadioGroup(names, nil)
	sel.SetSelected(names[0])
	v.dlg.show("dataset", "Dataset of "+filepath.Base(path), sel, []DialogButton{
		{Label: "Cancel", Icon: theme.CancelIcon()},
		{Label: "Open", Icon: theme.ConfirmIcon(), Importance: widget.HighImportance, Do: func() {
			if sel.Selected != "" {
				if _, err := v.Open(path + ":" + sel.Selected); err != nil {
					v.ShowError(err)
				}
			}
		}},
	}, 1, 0)
}
