package viewer

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/processing/volume/h5"
	"github.com/voxlab/voxlab/viewer/model"
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
	setTitle(v.win, v.stack.All())
	v.files.addRecent(spec)
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
	setTitle(v.win, v.stack.All())
	v.files.addRecent(path)
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
	for _, spec := range v.files.recent() {
		items = append(items, fyne.NewMenuItem(spec, func() { v.files.interactive(spec) }))
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
		item("Reset view", resetShortcut, v.Panels().ResetView),
		item("Toggle grid", gridShortcut, func() { v.Panels().SetGrid(!v.grid) }),
	)
	return fyne.NewMainMenu(
		fyne.NewMenu("File",
			item("Open…", openShortcut, func() { v.files.show(false) }),
			item("Open folder…", openFolderShortcut, func() { v.files.show(true) }),
			recent,
			item("Export layer…", nil, v.actions.Export),
			fyne.NewMenuItemSeparator(),
			item("New points layer", newPointsShortcut, func() { v.edit.newLayer() }),
			item("Save points", saveShortcut, v.save.saveSelected),
			item("Save points as…", saveAsShortcut, v.save.saveSelectedAs),
			fyne.NewMenuItemSeparator(),
			quitItem()),
		view,
		editMenu(v.stack.Selected, func(step int) { v.Curation().Next(step) }),
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
