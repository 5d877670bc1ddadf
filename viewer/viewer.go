package viewer

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer/model"
	"github.com/voxlab/voxlab/widgets"
)

// Viewer is the volume viewer: a layer list with per-layer controls, one
// canvas panel (or a grid of them), a dims slider and a status bar. It
// keeps the layers and hands out the parts that hold the rest (Dims,
// Panels, Scene, Curation, Dialogs, Dock, Offer, Async). Its methods and
// theirs must be called on the UI goroutine (through Async.Do from other
// goroutines), except Async's own.
type Viewer struct {
	win fyne.Window

	// stack is the layers and the selection, the model the views
	// observe (model.LayerList).
	stack model.LayerList[Layer]
	// actions are the application's (File ▸ Export layer…, points actions).
	actions Actions
	// at is where the view stands: the axis, the plane per axis and the
	// map (model.Dims); dims is the bar of sliders that shows it.
	at model.Dims
	// nav is the pan and zoom every panel applies after its own fit.
	nav nav
	// navigated: the user panned or zoomed since the last reset.
	navigated bool
	grid      bool
	// ortho is the orthogonal views (ortho.go); v3 is the 3D view
	// (view3d.go), nil until first shown.
	ortho   orthoView
	v3      *view3D
	v3Check *widget.Check
	// frozen > 0 inside Batch: redraws are skipped.
	frozen int

	// post runs f on the UI goroutine (fyne.Do; tests queue instead).
	post func(f func())
	// redraws is what other goroutines (loaders, feeds) may ask of the
	// viewer (redraws.go).
	redraws redraws

	panels   []*sliceView
	panelBox *fyne.Container
	// viewBox holds panelBox above the dims bar; it is laid out again
	// when the map slider comes or goes.
	viewBox  *fyne.Container
	list     *widget.List
	controls *fyne.Container
	ctl      controlRefs
	dims     *dimsBar
	// bar is the status bar under the view.
	bar      *statusBar
	grdCheck *widget.Check
	// offer proposes the view change a result makes possible (compare
	// it with its input side by side) instead of making it.
	offer *Offer
	// dock holds the view's tab and the processing panel's (dock.go).
	dock *Dock
	root *fyne.Container

	// ptr is where the mouse is (input.go).
	ptr pointer

	// files opens what the user asks for (open.go).
	files opener
	// dlg are the dialogs on show and the last error (dialogs.go).
	dlg Dialogs
	// save saves points layers and asks before edits are lost
	// (points_saver.go).
	save saver

	// bg is what other goroutines may ask of the viewer (async.go):
	// posting to the UI, and the goroutines that do, which a closing
	// window waits for.
	bg Async

	// now is the clock settle measures stalls with (tests set their own).
	now func() time.Time

	// edit is the points-editing state (points_mouse.go).
	edit editState
}

// New builds a viewer and makes it the content of win, with a File menu,
// drag-and-drop of files and arrow-key slice stepping.
func New(win fyne.Window) *Viewer {
	v := newViewer(win, func(f func()) { fyne.Do(f) })
	win.SetContent(v.root)
	win.SetMainMenu(v.mainMenu())
	win.SetOnDropped(v.files.dropped)
	win.Canvas().SetOnTypedKey(v.typedKey)
	v.edit.addShortcuts()
	return v
}

func newViewer(win fyne.Window, post func(func())) *Viewer {
	v := &Viewer{win: win, post: post, now: time.Now, edit: editState{walk: WalkAll}, dlg: Dialogs{win: win}}
	v.bg.post = post
	v.dlg.status = func(s string) { v.bar.status.SetText(s) }
	v.ortho.at = &v.at
	v.edit.v = v
	v.redraws = redraws{post: post, showError: v.dlg.ShowError, redraw: v.redraw, refresh: func() {
		v.dims.update()
		v.redraw()
		v.ctl.settle(v.stack.All(), v.stack.Selected())
	}}
	v.save = saver{win: win, dlg: &v.dlg, layers: v.stack.All, selected: v.stack.Selected,
		status: func(s string) { v.bar.status.SetText(s) }, showError: v.dlg.ShowError, remove: v.RemoveLayer}
	v.files = opener{win: win, dlg: &v.dlg, open: v.Open, showError: v.dlg.ShowError,
		menuChanged: func() { v.win.SetMainMenu(v.mainMenu()) }}
	v.actions.v = v
	v.stack.Watch(v.stackChanged)
	v.panelBox = container.New(gridLayout{v})
	v.Panels().rebuild()
	v.bar = newStatusBar(func() {
		if v.root != nil {
			v.root.Refresh()
		}
	})
	v.list = newLayerList(v.win, &v.stack, v.Select)
	v.controls = container.NewVBox()
	v.dims = newDimsBar(v.win, &v.at, dimsActions{
		setAxis:  v.Dims().SetAxis,
		setSlice: v.Dims().SetSlice,
		setMap:   v.Dims().SetMap,
		step:     func() { v.post(func() { v.Dims().Step(1, true) }) },
	})
	v.dims.extent, v.dims.maps = v.Dims().Extent, v.Dims().Maps
	v.dims.relayout = func() {
		if v.viewBox != nil {
			v.viewBox.Refresh()
		}
	}

	open := widgets.NewButton(v.win, "Open…", theme.FolderOpenIcon(), func() { v.files.show(false) })
	reset := widgets.NewButton(v.win, "Reset view", theme.ZoomFitIcon(), v.Panels().ResetView)
	v.grdCheck = widget.NewCheck("Grid", func(on bool) {
		v.Panels().SetGrid(on)
		widgets.Refocus(v.win, false)
	})
	v.ortho.check = widget.NewCheck("Ortho", func(on bool) {
		v.Panels().SetOrtho(on)
		widgets.Refocus(v.win, false)
	})
	v.v3Check = widget.NewCheck("3D", func(on bool) {
		v.Scene().SetOn(on)
		widgets.Refocus(v.win, false)
	})
	// napari's new points layer, for marking cells on an image.
	newPts := widgets.NewButton(v.win, "New points", theme.ContentAddIcon(), func() { v.edit.newLayer() })
	toolbar := container.NewHBox(open, newPts, reset, v.grdCheck, v.ortho.check, v.v3Check)

	up := widgets.NewButton(v.win, "", theme.MoveUpIcon(), func() { v.stack.Move(v.stack.Selected(), +1) })
	down := widgets.NewButton(v.win, "", theme.MoveDownIcon(), func() { v.stack.Move(v.stack.Selected(), -1) })
	remove := widgets.NewButton(v.win, "", theme.DeleteIcon(), func() {
		if v.stack.Selected() != nil {
			v.save.askRemove(v.stack.Selected())
		}
	})
	listBox := container.NewBorder(container.NewHBox(widget.NewLabelWithStyle("Layers", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), up, down, remove), nil, nil, nil, v.list)
	left := container.NewVSplit(widgets.PanelScroll(v.controls), listBox)
	left.Offset = 0.55

	v.offer = newOffer(v.win, func(l Layer) bool { return v.stack.IndexOf(l) >= 0 }, func(ls ...Layer) { v.Panels().Focus(true, ls...) }, func() { v.dims.relayout() })
	v.viewBox = container.NewBorder(v.offer.box, v.dims.box, nil, nil, v.panelBox)
	v.dock = newDock(v.viewBox)
	split := container.NewHSplit(left, v.dock.centre)
	split.Offset = 0.24
	v.root = container.NewBorder(toolbar, v.bar, nil, nil, split)
	v.rebuildControls()
	return v
}

// Content returns the viewer's root object, for embedding it elsewhere
// than a whole window.
func (v *Viewer) Content() fyne.CanvasObject { return v.root }

// Window returns the window the viewer lives in.
func (v *Viewer) Window() fyne.Window { return v.win }

// Layers returns the layers from bottom to top.
func (v *Viewer) Layers() []Layer { return v.stack.All() }

// Selected returns the selected layer, or nil.
func (v *Viewer) Selected() Layer { return v.stack.Selected() }

// AddImage adds an image layer over vol on top of the others and selects
// it. The viewer owns vol from now on: it closes it when the layer is
// removed.
func (v *Viewer) AddImage(name string, vol *volume.Volume, opts ImageOptions) (*ImageLayer, error) {
	return v.addImage(name, vol, 1, opts)
}

// AddStack adds a stack of maps as an image layer on top and selects it:
// the dims bar gets a map slider beside the slice slider, which spans
// one map (napari's slider per non-displayed dimension). Only the slices
// shown are read. The viewer owns st from now on.
func (v *Viewer) AddStack(name string, st *volume.Stack, opts ImageOptions) (*ImageLayer, error) {
	vol := volume.New(st.Name, closer{st.Planes().Source(), st.Close})
	return v.addImage(name, vol, st.N, opts)
}

// addImage adds vol, which holds maps maps one after the other along z
// (1 for a plain volume).
func (v *Viewer) addImage(name string, vol *volume.Volume, maps int, opts ImageOptions) (*ImageLayer, error) {
	if maps < 1 || vol.Shape[0]%maps != 0 {
		return nil, fmt.Errorf("%s: %d planes do not hold %d maps", vol.Name, vol.Shape[0], maps)
	}
	l, err := newImageLayer(name, opts)
	if err != nil {
		return nil, err
	}
	l.vol, l.maps, l.depth = vol, maps, vol.Shape[0]/maps
	_ = l.Image.SetVoxelSize(vol.VoxelSize) // zero (unknown) stays unset
	l.ld = newLoader(vol, l.depth, v.redraws.sliceReady, func() { v.redraws.request(true) })
	l.attachPyramid()
	v.add(l)
	return l, nil
}

// AddPoints adds a points layer (detections) on top and selects it.
func (v *Viewer) AddPoints(name string, pts []Point, opts ...PointsOptions) *PointsLayer {
	var o PointsOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	l := newPointsLayer(name, pts, o, v.edit.made)
	v.edit.made++
	v.add(l)
	return l
}

// AddHeatmap adds a rows x cols matrix (row-major; nil for a matrix to be
// filled later with SetBlock) as a 2D layer shown on every slice. Its
// contrast follows the data until set.
func (v *Viewer) AddHeatmap(name string, rows, cols int, data []float64, opts ...ImageOptions) (*HeatmapLayer, error) {
	var o ImageOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Contrast == [2]float64{} {
		o.AutoContrast = true
	}
	h, err := newHeatmap(name, rows, cols, data, o)
	if err != nil {
		return nil, err
	}
	v.add(h)
	return h, nil
}

func (v *Viewer) add(l Layer) {
	l.base().setViewer(v)
	first := v.stack.Len() == 0
	if il, ok := imageLayer(l); ok && first {
		// The first volume starts at its middle plane along every axis
		// (napari's dims start there), not at an edge plane.
		v.at.Centre(il.extent())
	}
	v.stack.Add(l)
	// Until the user pans or zooms, the panels fit whatever they show
	// (sliceView.fitNow); the first layer always starts fitted.
	if first {
		v.Panels().ResetView()
	}
}

// RemoveLayer removes l, closing its volume.
func (v *Viewer) RemoveLayer(l Layer) {
	if v.stack.IndexOf(l) < 0 {
		return
	}
	if il := imageOf(l); il != nil && il.ld != nil {
		il.ld.close()
		_ = il.vol.Close()
	}
	l.base().setViewer(nil)
	if v.offer.about(l) {
		v.offer.hide()
	}
	v.stack.Remove(l)
}

// MoveLayer moves l up (delta > 0, towards the top) or down the stack.
func (v *Viewer) MoveLayer(l Layer, delta int) { v.stack.Move(l, delta) }

// Select makes l the layer whose controls are shown.
func (v *Viewer) Select(l Layer) { v.stack.Choose(l) }

// stackChanged follows the layer stack: what a change touches is laid
// out, listed and drawn again.
func (v *Viewer) stackChanged(c model.ListChange) {
	switch c {
	case model.LayersMoved:
		v.layersChanged()
	case model.SelectionMoved:
		v.rebuildControls()
		if i := v.stack.IndexOf(v.stack.Selected()); i >= 0 {
			v.list.Select(v.stack.Len() - 1 - i)
		}
	case model.LayerEdited:
		v.layerChanged()
	}
}

// layersChanged updates everything that depends on the layer stack.
func (v *Viewer) layersChanged() {
	if v.grid {
		v.Panels().rebuild()
	}
	v.list.Refresh()
	if i := v.stack.IndexOf(v.stack.Selected()); i >= 0 {
		v.list.Select(v.stack.Len() - 1 - i)
	} else {
		v.list.UnselectAll()
	}
	v.rebuildControls()
	v.dims.update()
	v.redraw()
	setTitle(v.win, v.stack.All())
}

// setTitle names the files open in layers in win's title: "voxlab —
// planes, cells.xml".
func setTitle(win fyne.Window, layers []Layer) {
	if win == nil {
		return
	}
	var names []string
	for _, l := range layers {
		if sp := l.base().spec; sp != "" {
			p, _ := volume.SplitSpec(sp)
			if n := filepath.Base(p); !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	t := "voxlab"
	if len(names) > 0 {
		t += " — " + strings.Join(names, ", ")
	}
	if win.Title() != t {
		win.SetTitle(t)
	}
}

// OnLayersChanged has f called, on the UI goroutine, after every change
// of the layer stack (a layer added, removed or moved: edited false) and
// after a layer's setting changed (its voxel size, visibility, contrast or
// another: edited true). The processing panel offers the open layers as
// inputs on the first and suggests again from the voxel size the user set
// on the second.
func (v *Viewer) OnLayersChanged(f func(edited bool)) {
	v.stack.Watch(func(c model.ListChange) {
		switch c {
		case model.LayersMoved:
			f(false)
		case model.LayerEdited:
			f(true)
		}
	})
}

// layerChanged redraws after a layer setting changed (showing or hiding
// one changes the dims slider's range).
func (v *Viewer) layerChanged() {
	if v.grid {
		v.Panels().rebuild()
	}
	v.list.Refresh()
	v.ctl.settle(v.stack.All(), v.stack.Selected())
	v.dims.update()
	v.redraw()
}

// Batch runs f with drawing suspended and draws once afterwards: open
// several files and choose the slice without reading (and taking the
// contrast limits from) slices that are never meant to be seen.
func (v *Viewer) Batch(f func()) {
	v.frozen++
	defer func() {
		v.frozen--
		if v.frozen == 0 {
			v.dims.update()
			v.redraw()
		}
	}()
	f()
}

// redraw repaints every panel and the status bar now.
func (v *Viewer) redraw() {
	if v.frozen > 0 {
		return
	}
	for _, p := range v.panels {
		p.Refresh()
	}
	v.v3.request()
	v.bar.update(v)
}

// Close stops the loaders and closes every layer's volume.
func (v *Viewer) Close() {
	v.dims.player.halt()
	v.v3.close()
	for _, l := range v.stack.All() {
		if il := imageOf(l); il != nil && il.ld != nil {
			il.ld.close()
			_ = il.vol.Close()
		}
	}
}
