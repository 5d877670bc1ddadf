package viewer

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/widgets"
)

// Viewer is the volume viewer: a layer list with per-layer controls, one
// canvas panel (or a grid of them), a dims slider and a status bar. Its
// methods must be called on the UI goroutine (inside fyne.Do from other
// goroutines) unless they say otherwise.
type Viewer struct {
	win fyne.Window

	// stack is the layers and the selection, the model the views
	// observe (layerstack.go).
	stack layerStack
	axis  Axis
	// index is the slice shown along each axis; want is the one last
	// asked for (SetSlice), which index returns to when hiding a layer
	// had clamped it and showing the layer again makes room.
	index, want [3]int
	// axisSeen marks the axes a slice was chosen along (SetSlice,
	// SetPoint, or shown): the others start at their middle.
	axisSeen [3]bool
	// mapIdx is the map shown of stack layers (their fourth dimension),
	// mapWant the one last asked for (SetMap).
	mapIdx, mapWant int
	// nav is the pan and zoom every panel applies after its own fit.
	nav nav
	// navigated: the user panned or zoomed since the last reset.
	navigated bool
	grid      bool
	// ortho: the orthogonal views are on show (ortho.go); v3 is the 3D
	// view (view3d.go), nil until first shown.
	ortho      bool
	orthoCheck *widget.Check
	// orthoZ is how much the ortho side panels stretch z (zStretch;
	// 1: not at all), set by their layout.
	orthoZ  float64
	v3      *view3D
	v3Check *widget.Check
	// frozen > 0 inside Batch: redraws are skipped.
	frozen int

	// post runs f on the UI goroutine (fyne.Do; tests queue instead).
	post          func(f func())
	redrawPending atomic.Bool
	lastLive      atomic.Int64 // unix ns of the last posted redraw

	panels   []*sliceView
	panelBox *fyne.Container
	// viewBox holds panelBox above the dims bar; it is laid out again
	// when the map slider comes or goes.
	viewBox  *fyne.Container
	list     *widget.List
	controls *fyne.Container
	ctl      controlRefs
	dims     dimsBar
	// bar is the status bar under the view.
	bar      *statusBar
	grdCheck *widget.Check
	// offer proposes the view change a result makes possible (compare
	// it with its input side by side) instead of making it.
	offer  offerBar
	tabs   *container.AppTabs
	dock   *container.AppTabs
	centre *fyne.Container
	root   *fyne.Container

	playMu   sync.Mutex
	playStop chan struct{}
	// playDone is closed when the play goroutine has returned.
	playDone chan struct{}

	hoverPanel *sliceView
	hoverPos   fyne.Position
	lastErr    string

	// openDlg is the Open dialog on show (nil when none), for tests.
	openDlg *openDialog
	// modals are the dialogs on show, by kind and oldest first
	// (dialogs.go).
	modals     map[string]*modal
	modalOrder []*modal
	// saveDlg is the Save points as dialog on show (nil when none).
	saveDlg *saveDialog

	// bg counts background goroutines that post to the UI (Go: the
	// panel's plot renderers), so a closing window can wait for them.
	bg      sync.WaitGroup
	bgCount atomic.Int32

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
	win.SetOnDropped(v.dropped)
	win.Canvas().SetOnTypedKey(v.typedKey)
	v.addEditShortcuts()
	return v
}

func newViewer(win fyne.Window, post func(func())) *Viewer {
	v := &Viewer{win: win, post: post, now: time.Now, edit: editState{walk: WalkAll}}
	v.stack.watch(v.stackChanged)
	v.panelBox = container.New(gridLayout{v})
	v.setPanels()
	v.bar = newStatusBar(func() {
		if v.root != nil {
			v.root.Refresh()
		}
	})
	v.list = v.newLayerList()
	v.controls = container.NewVBox()
	v.dims = v.newDimsBar()

	open := widgets.NewButton(v.win, "Open…", theme.FolderOpenIcon(), v.ShowOpenDialog)
	reset := widgets.NewButton(v.win, "Reset view", theme.ZoomFitIcon(), v.ResetView)
	v.grdCheck = widget.NewCheck("Grid", func(on bool) {
		v.SetGrid(on)
		widgets.Refocus(v.win, false)
	})
	v.orthoCheck = widget.NewCheck("Ortho", func(on bool) {
		v.SetOrtho(on)
		widgets.Refocus(v.win, false)
	})
	v.v3Check = widget.NewCheck("3D", func(on bool) {
		v.Set3D(on)
		widgets.Refocus(v.win, false)
	})
	// napari's new points layer, for marking cells on an image.
	newPts := widgets.NewButton(v.win, "New points", theme.ContentAddIcon(), func() { v.NewPointsLayer() })
	toolbar := container.NewHBox(open, newPts, reset, v.grdCheck, v.orthoCheck, v.v3Check)

	up := widgets.NewButton(v.win, "", theme.MoveUpIcon(), func() { v.stack.move(v.stack.sel, +1) })
	down := widgets.NewButton(v.win, "", theme.MoveDownIcon(), func() { v.stack.move(v.stack.sel, -1) })
	remove := widgets.NewButton(v.win, "", theme.DeleteIcon(), func() {
		if v.stack.sel != nil {
			v.AskRemoveLayer(v.stack.sel)
		}
	})
	listBox := container.NewBorder(container.NewHBox(widget.NewLabelWithStyle("Layers", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), up, down, remove), nil, nil, nil, v.list)
	left := container.NewVSplit(widgets.PanelScroll(v.controls), listBox)
	left.Offset = 0.55

	v.offer = v.newOfferBar()
	v.viewBox = container.NewBorder(v.offer.box, v.dims.box, nil, nil, v.panelBox)
	v.tabs = container.NewAppTabs(container.NewTabItem("View", v.viewBox))
	v.dock = container.NewAppTabs()
	v.centre = container.NewStack(v.tabs)
	split := container.NewHSplit(left, v.centre)
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
func (v *Viewer) Layers() []Layer { return v.stack.all() }

// Selected returns the selected layer, or nil.
func (v *Viewer) Selected() Layer { return v.stack.sel }

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
	l.ld = newLoader(vol, l.depth, v.sliceReady, func() { v.postRedraw(true) })
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
	first := len(v.stack.layers) == 0
	v.stack.add(l)
	// Until the user pans or zooms, the panels fit whatever they show
	// (sliceView.fitNow); the first layer always starts fitted.
	if first {
		v.ResetView()
	}
}

// RemoveLayer removes l, closing its volume.
func (v *Viewer) RemoveLayer(l Layer) {
	if v.stack.indexOf(l) < 0 {
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
	v.stack.remove(l)
}

// MoveLayer moves l up (delta > 0, towards the top) or down the stack.
func (v *Viewer) MoveLayer(l Layer, delta int) { v.stack.move(l, delta) }

// Select makes l the layer whose controls are shown.
func (v *Viewer) Select(l Layer) { v.stack.choose(l) }

// stackChanged follows the layer stack: what a change touches is laid
// out, listed and drawn again.
func (v *Viewer) stackChanged(c stackChange) {
	switch c {
	case layersMoved:
		v.layersChanged()
	case selectionMoved:
		v.rebuildControls()
		if i := v.stack.indexOf(v.stack.sel); i >= 0 {
			v.list.Select(len(v.stack.layers) - 1 - i)
		}
	case layerEdited:
		v.layerChanged()
	}
}

// layersChanged updates everything that depends on the layer stack.
func (v *Viewer) layersChanged() {
	if v.grid {
		v.setPanels()
	}
	v.list.Refresh()
	if i := v.stack.indexOf(v.stack.sel); i >= 0 {
		v.list.Select(len(v.stack.layers) - 1 - i)
	} else {
		v.list.UnselectAll()
	}
	v.rebuildControls()
	v.updateDims()
	v.redraw()
	v.updateTitle()
}

// updateTitle names the files open in the window's title: "voxlab —
// planes, cells.xml".
func (v *Viewer) updateTitle() {
	if v.win == nil {
		return
	}
	var names []string
	for _, l := range v.stack.layers {
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
	if v.win.Title() != t {
		v.win.SetTitle(t)
	}
}

// OnLayersChanged has f called, on the UI goroutine, after every change
// of the layer stack (a layer added, removed or moved): the processing
// panel offers the open layers as inputs.
func (v *Viewer) OnLayersChanged(f func()) {
	v.stack.watch(func(c stackChange) {
		if c == layersMoved {
			f()
		}
	})
}

// layerChanged redraws after a layer setting changed (showing or hiding
// one changes the dims slider's range).
func (v *Viewer) layerChanged() {
	if v.grid {
		v.setPanels()
	}
	v.list.Refresh()
	v.syncControls()
	v.updateDims()
	v.redraw()
}

// Axis returns the slicing axis.
func (v *Viewer) Axis() Axis { return v.axis }

// SetAxis chooses which axis the view slices along, keeping each axis's
// own position; an axis not sliced along before starts at its middle
// (napari's dims start there too), not at an edge plane.
func (v *Viewer) SetAxis(a Axis) {
	if a == v.axis {
		return
	}
	v.axisSeen[v.axis] = true
	if !v.axisSeen[a] {
		mid := v.dimsExtent()[a] / 2
		v.index[a], v.want[a] = mid, mid
		v.axisSeen[a] = true
	}
	v.axis = a
	v.updateDims()
	v.ResetView()
}

// Slice returns the current slice index along the slicing axis.
func (v *Viewer) Slice() int { return v.index[v.axis] }

// Map returns the map shown of stack layers.
func (v *Viewer) Map() int { return v.mapIdx }

// Maps returns the range of the map slider: the most maps of a visible
// stack layer (of any stack layer when none is visible); 0 without
// stacks.
func (v *Viewer) Maps() int {
	visible := slices.ContainsFunc(v.stack.layers, Layer.Visible)
	n := 0
	for _, l := range v.stack.layers {
		if il, ok := l.(*ImageLayer); ok && il.maps > 1 && (l.Visible() || !visible) {
			n = max(n, il.maps)
		}
	}
	return n
}

// SetMap shows map i of the stack layers (clamped to Maps); other image
// layers do not change (napari broadcasts them along the map axis).
func (v *Viewer) SetMap(i int) {
	i = min(max(i, 0), max(v.Maps()-1, 0))
	v.mapWant = i
	if i == v.mapIdx {
		return
	}
	v.mapIdx = i
	v.updateDims()
	v.redraw()
}

// StepMap moves d maps (clamped at the ends).
func (v *Viewer) StepMap(d int) { v.SetMap(v.mapIdx + d) }

// SetSlice moves to slice i along the slicing axis (clamped).
func (v *Viewer) SetSlice(i int) {
	n := v.dimsExtent()[v.axis]
	i = min(max(i, 0), max(n-1, 0))
	v.want[v.axis] = i
	v.axisSeen[v.axis] = true
	if i == v.index[v.axis] {
		return
	}
	v.index[v.axis] = i
	v.updateDims()
	v.redraw()
}

// Step moves d slices, wrapping round at the ends when wrap is set.
func (v *Viewer) Step(d int, wrap bool) {
	n := v.dimsExtent()[v.axis]
	if n == 0 {
		return
	}
	i := v.index[v.axis] + d
	if wrap {
		i = ((i % n) + n) % n
	}
	v.SetSlice(i)
}

// Extent returns the range of the dims slider along z, y and x: the
// largest extent of the visible layers (one map's for a stack).
func (v *Viewer) Extent() [3]int { return v.dimsExtent() }

// dimsExtent is the range of the dims slider along z, y, x: the extent
// of the visible layers (of every layer when none is visible), one map's
// for a stack. napari's slider spans every layer, hidden or not;
// voxlab's spans what is on show, so that hiding the demo's 90
// projections gives the slider back to the 60 planes of the brain.
func (v *Viewer) dimsExtent() [3]int { return v.extentOf(nil) }

// extentOf returns the size along z, y, x of the union of the layers of
// a panel's group, or for nil of the visible layers (of every layer when
// none is visible).
func (v *Viewer) extentOf(group []Layer) [3]int {
	visible := slices.ContainsFunc(v.stack.layers, Layer.Visible)
	var e [3]int
	for _, l := range v.stack.layers {
		if group == nil && visible && !l.Visible() || group != nil && !slices.Contains(group, l) {
			continue
		}
		var le [3]int
		switch l := l.(type) {
		case *ImageLayer:
			le = l.extent()
		case *HeatmapLayer:
			le = l.extent()
		case *PointsLayer:
			l.store.mu.RLock()
			le = l.store.extent
			l.store.mu.RUnlock()
		}
		for i := range e {
			e[i] = max(e[i], le[i])
		}
	}
	return e
}

// Grid reports whether grid mode is on.
func (v *Viewer) Grid() bool { return v.grid }

// SetGrid turns grid mode on (each visible layer in its own panel, side
// by side, with linked pan, zoom and slice) or off.
func (v *Viewer) SetGrid(on bool) {
	if v.grid == on {
		return
	}
	v.grid = on
	v.grdCheck.SetChecked(on)
	v.setPanels()
	v.ResetView()
}

// setPanels rebuilds the panels for the current mode. In grid mode each
// visible image or heat-map layer gets a panel, shared with the points
// layers stacked above it (detections over the data they came from).
func (v *Viewer) setPanels() {
	if v.ortho {
		if len(v.panels) != 3 {
			v.panels = v.orthoPanels()
			v.panelBox.Objects = v.orthoObjects()
			v.panelBox.Refresh()
		}
		return
	}
	var groups [][]Layer
	if v.grid {
		for _, l := range v.stack.layers {
			if !l.Visible() {
				continue
			}
			if _, pts := l.(*PointsLayer); pts && len(groups) > 0 {
				groups[len(groups)-1] = append(groups[len(groups)-1], l)
				continue
			}
			groups = append(groups, []Layer{l})
		}
	}
	if len(groups) == 0 {
		groups = [][]Layer{nil}
	}
	same := len(groups) == len(v.panels) && (len(v.panels) == 0 || v.panels[0].ortho == nil)
	for i := 0; same && i < len(groups); i++ {
		same = slices.Equal(v.panels[i].group, groups[i])
	}
	if same {
		return
	}
	v.panels = v.panels[:0]
	objs := make([]fyne.CanvasObject, len(groups))
	for i, g := range groups {
		p := newSliceView(v, g)
		v.panels = append(v.panels, p)
		objs[i] = p
	}
	v.panelBox.Objects = objs
	v.panelBox.Refresh()
}

// ResetView fits each panel to what it shows (the visible layers, or in
// grid mode its own layers), undoing pans and zooms.
func (v *Viewer) ResetView() {
	v.nav = nav{}
	v.navigated = false
	for _, p := range v.panels {
		p.fitted = false
	}
	v.redraw()
}

// aspectOf returns the height/width of a displayed voxel from the voxel
// size of the lowest visible image layer of group (of all layers for
// nil) that has one; 1 without.
func (v *Viewer) aspectOf(group []Layer) float64 { return v.aspectAlong(group, v.axis) }

// aspectAlong is aspectOf for slices along axis.
func (v *Viewer) aspectAlong(group []Layer, axis Axis) float64 {
	ra, ca := axis.displayAxes()
	for _, l := range v.stack.layers {
		if il, ok := l.(*ImageLayer); ok && l.Visible() && (group == nil || slices.Contains(group, l)) {
			if vs := il.vol.VoxelSize; vs[ra] > 0 && vs[ca] > 0 {
				return vs[ra] / vs[ca]
			}
		}
	}
	return 1
}

// zoomRange returns the zooms (relative to the fits) that keep every
// panel's scale within [minScale, maxScale].
func (v *Viewer) zoomRange() (lo, hi float64) {
	fits := make([]xform, len(v.panels))
	for i, p := range v.panels {
		fits[i] = p.fitNow()
	}
	return zoomRange(fits)
}

// setNav sets the shared pan and zoom and redraws.
func (v *Viewer) setNav(n nav) {
	v.nav = n
	v.navigated = true
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
			v.updateDims()
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
	v.request3D()
	v.bar.update(v)
}

// liveInterval spaces the redraws that live updates cause: at most 20
// a second, however often a pipeline appends points or fills chunks.
const liveInterval = 50 * time.Millisecond

// postRedraw schedules one redraw on the UI goroutine; calls that arrive
// before it runs are merged. Live updates (throttled) wait until
// liveInterval has passed since the last live redraw; loaded slices show
// at once. Safe from any goroutine.
func (v *Viewer) postRedraw(throttled bool) {
	if !v.redrawPending.CompareAndSwap(false, true) {
		return
	}
	run := func() {
		v.post(func() {
			v.redrawPending.Store(false)
			v.lastLive.Store(time.Now().UnixNano())
			v.updateDims()
			v.redraw()
			v.syncControls()
		})
	}
	if wait := time.Duration(v.lastLive.Load()) + liveInterval - time.Duration(time.Now().UnixNano()); throttled && wait > 0 {
		time.AfterFunc(wait, run)
		return
	}
	run()
}

// sliceReady is the loaders' callback, on their goroutines.
func (v *Viewer) sliceReady(k sliceKey, err error) {
	// A live layer's plane that is not held is no failure: the status
	// bar says so (loadingText) and no dialog interrupts the user.
	if err != nil && !errors.Is(err, ErrNotHeld) {
		v.post(func() { v.ShowError(err) })
		return
	}
	v.postRedraw(false)
}

// ShowError shows err in the status bar and a dialog that Enter, Escape
// or Space closes. A new error replaces the one on show (errors do not
// stack up); the same error again leaves it as it is.
func (v *Viewer) ShowError(err error) {
	msg := err.Error()
	v.bar.status.SetText("error: " + msg)
	if msg == v.lastErr && v.modals[dlgError] != nil {
		return
	}
	v.lastErr = msg
	if v.win == nil {
		return
	}
	v.showModal(dlgError, "Error", messageContent(theme.ErrorIcon(), msg),
		[]DialogButton{{Label: "OK", Importance: widget.HighImportance}}, 0, 0)
}

// LastError returns the last error shown in the window ("" when none).
func (v *Viewer) LastError() string { return v.lastErr }

// Loaded reports whether every visible image layer has its current slice
// in memory or failed to read it (no slice is still loading).
func (v *Viewer) Loaded() bool {
	for _, l := range v.stack.layers {
		il := imageOf(l)
		if il == nil || !l.Visible() || il.fixed != nil {
			continue
		}
		for _, ax := range v.shownAxes() {
			k, ok := il.keyFor(ax, v.index[ax], v.mapIdx)
			if ok && !il.ld.cache.Contains(k) && il.ld.err(k) == nil {
				return false
			}
		}
	}
	return v.view3DSettled()
}

// loadError returns the first error reading a slice on screen (or a
// 3D view's volume), or nil.
func (v *Viewer) loadError() error {
	if err := v.view3DError(); err != nil {
		return err
	}
	for _, l := range v.stack.layers {
		if il := imageOf(l); il != nil && l.Visible() && il.ld != nil {
			for _, ax := range v.shownAxes() {
				if k, ok := il.keyFor(ax, v.index[ax], v.mapIdx); ok {
					if err := il.ld.err(k); err != nil && !errors.Is(err, ErrNotHeld) {
						return err
					}
				}
			}
		}
	}
	return nil
}

// imageOf returns the image part of an image or heat-map layer.
func imageOf(l Layer) *ImageLayer {
	switch l := l.(type) {
	case *ImageLayer:
		return l
	case *HeatmapLayer:
		return l.ImageLayer
	}
	return nil
}

// paint draws the panel's layers (all visible ones, or a group) into f,
// which must be sized, through the panel's transform t. The background
// is painted first, except under a bottom layer of opaque integer data,
// which is drawn straight into the frame with the background painted
// around it.
func (v *Viewer) paint(f *frame, group []Layer, t xform, sw, sh, ps float64) {
	v.paintAlong(f, group, v.axis, t, sw, sh, ps)
}

// paintAlong is paint for a slice along axis (a panel of the
// orthogonal views).
func (v *Viewer) paintAlong(f *frame, group []Layer, axis Axis, t xform, sw, sh, ps float64) {
	idx := v.index[axis]
	var shown []Layer
	for _, l := range v.stack.layers {
		if l.Visible() && (group == nil || slices.Contains(group, l)) {
			shown = append(shown, l)
		}
	}
	v.pickLevels(shown, t, ps)
	start := 0
	if len(shown) > 0 {
		if il := imageOf(shown[0]); il != nil && il.opacity >= 1 && il.blend == Translucent {
			if p, _ := il.planeFor(axis, idx, v.mapIdx); p != nil && lutDirect(p.dtype) && p.off == nil {
				f.fillAround(drawPlane(f, p, il.lookup(p.dtype), t, sw, sh, ps, 1, Translucent))
				start = 1
			}
		}
	}
	if start == 0 {
		f.fill(0, 0, f.w, f.h)
	}
	for _, l := range shown[start:] {
		switch l := l.(type) {
		case *PointsLayer:
			l.inView = drawPoints(f, l.store, axis, idx, l.outOfSlice, &l.style, l.size, l.opacity, t, sw, sh, ps)
		default:
			il := imageOf(l)
			p, _ := il.planeFor(axis, idx, v.mapIdx)
			if p == nil {
				continue
			}
			drawPlane(f, p, il.lookup(p.dtype), t, sw, sh, ps, il.opacity, il.blend)
		}
	}
}

// scaleBar returns the scale bar's length in logical pixels and its
// label for panel p, from the voxel size of its lowest visible image
// layer; 0 when that layer has no voxel size.
func (v *Viewer) scaleBar(p *sliceView) (float64, string) {
	for _, l := range v.stack.layers {
		il, ok := l.(*ImageLayer)
		if !ok || !l.Visible() || p.group != nil && !slices.Contains(p.group, l) {
			continue
		}
		_, ca := p.axis().displayAxes()
		vs := il.vol.VoxelSize[ca]
		if vs <= 0 {
			return 0, ""
		}
		// Aim for about a fifth of the panel, at most 150 pixels.
		scale := p.xf().scale
		target := math.Min(float64(p.Size().Width)/5, 150) / scale * vs
		if target <= 0 {
			return 0, ""
		}
		phys := niceLength(target)
		return phys / vs * scale, fmt.Sprintf("%g %s", phys, il.unit)
	}
	return 0, ""
}

// panelTitle names what a grid panel shows: its image layer, with the
// map on show for a stack, and why it is empty when the sliders are past
// the layer's end (the slice is shared by layers of different depths).
func (v *Viewer) panelTitle(group []Layer) string {
	if len(group) == 0 {
		return ""
	}
	il, ok := group[0].(*ImageLayer)
	if !ok {
		return group[0].Name()
	}
	title := il.Name()
	if il.maps > 1 {
		if v.mapIdx >= il.maps {
			return fmt.Sprintf("%s: no map %d", title, v.mapIdx)
		}
		title = fmt.Sprintf("%s: map %d", title, v.mapIdx)
	}
	if n := il.extent()[v.axis]; v.index[v.axis] >= n {
		title += fmt.Sprintf(" (ends at %s %d)", v.axis, n-1)
	}
	return title
}

// typedKey steps through slices: Right and Left by one, Page Down and
// Page Up by ten; with a stack on show the up and down arrows step
// through its maps. While a dialog is on show the keys are its.
func (v *Viewer) typedKey(e *fyne.KeyEvent) {
	if v.modalKey(e) || v.editKey(e) {
		return
	}
	stacks := v.Maps() > 1
	switch e.Name {
	case fyne.KeyUp:
		if stacks {
			v.StepMap(1)
		} else {
			v.Step(1, false)
		}
	case fyne.KeyDown:
		if stacks {
			v.StepMap(-1)
		} else {
			v.Step(-1, false)
		}
	case fyne.KeyRight:
		v.Step(1, false)
	case fyne.KeyLeft:
		v.Step(-1, false)
	// Page Down goes on through the stack, as Right does (and as it
	// goes down a document); Page Up goes back.
	case fyne.KeyPageDown:
		v.Step(10, false)
	case fyne.KeyPageUp:
		v.Step(-10, false)
	case fyne.KeyHome:
		v.SetSlice(0)
	case fyne.KeyEnd:
		v.SetSlice(v.dimsExtent()[v.axis] - 1)
	}
}

// hover reports the position and the values under the pointer.
func (v *Viewer) hover(p *sliceView, pos fyne.Position) {
	v.hoverPanel, v.hoverPos = p, pos
	v.bar.update(v)
}

func (v *Viewer) hoverOut() {
	v.hoverPanel = nil
	v.bar.update(v)
}

// cursorVoxel returns the (z, y, x) voxel under the pointer, in the
// data of the panel it is over.
func (v *Viewer) cursorVoxel() (zyx [3]int, row, col int, ok bool) {
	if v.hoverPanel == nil {
		return zyx, 0, 0, false
	}
	row, col = v.hoverPanel.cellAt(v.hoverPos)
	ax := v.hoverPanel.axis()
	ra, ca := ax.displayAxes()
	zyx[ax] = v.index[ax]
	zyx[ra], zyx[ca] = row, col
	return zyx, row, col, true
}

// ValueAt returns the value of layer l at display (row, col) of the
// current slice, and whether there is one (the slice is loaded and the
// position inside it).
func (v *Viewer) ValueAt(l Layer, row, col int) (float64, bool) {
	il := imageOf(l)
	if il == nil {
		return 0, false
	}
	p := il.current()
	if p != nil {
		row, col = p.at(row, col)
	}
	if p == nil || row < 0 || col < 0 || row >= p.rows || col >= p.cols || p.offAt(row) {
		return 0, false
	}
	return p.value(row, col), true
}

// heatmapUnder returns the topmost visible heat map of panel p with a
// cell at (row, col), or nil.
func (v *Viewer) heatmapUnder(p *sliceView, row, col int) *HeatmapLayer {
	for i := len(v.stack.layers) - 1; i >= 0; i-- {
		h, ok := v.stack.layers[i].(*HeatmapLayer)
		if !ok || !h.Visible() || p.group != nil && !slices.Contains(p.group, v.stack.layers[i]) {
			continue
		}
		if row >= 0 && col >= 0 && row < h.rows && col < h.cols {
			return h
		}
	}
	return nil
}

// stackOf returns the stack layer whose maps are the rows of heat map h
// (a distance matrix's ground-truth maps): the topmost with as many maps
// as h has rows, or nil.
func (v *Viewer) stackOf(h *HeatmapLayer) *ImageLayer {
	for i := len(v.stack.layers) - 1; i >= 0; i-- {
		if il, ok := v.stack.layers[i].(*ImageLayer); ok && il.maps > 1 && il.maps == h.rows {
			return il
		}
	}
	return nil
}

// tapped shows, for a tap on a cell of a distance heat map, the map of
// its row in the stack those rows index at its middle plane (the slider
// may have been past the end of a map, or at an empty border plane),
// showing the stack if hidden.
func (v *Viewer) tapped(p *sliceView, pos fyne.Position) {
	row, col := p.cellAt(pos)
	h := v.heatmapUnder(p, row, col)
	if h == nil {
		return
	}
	st := v.stackOf(h)
	if st == nil {
		return
	}
	v.Batch(func() {
		if !st.Visible() {
			st.SetVisible(true)
		}
		v.SetMap(row)
		v.SetSlice(st.extent()[v.axis] / 2)
	})
}

func formatValue(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e9 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.4g", x)
}

// AddPanel adds a tab to the dock at the right of the canvas (the
// processing panel), showing the dock when it was hidden.
func (v *Viewer) AddPanel(title string, obj fyne.CanvasObject) {
	v.dock.Append(container.NewTabItem(title, obj))
	if len(v.dock.Items) == 1 {
		split := container.NewHSplit(v.tabs, v.dock)
		// About 350 px of a 1280 px window: paths and the plan fit
		// beside a canvas still larger than both side panels.
		split.Offset = 0.64
		v.centre.Objects = []fyne.CanvasObject{split}
		v.centre.Refresh()
	}
}

// AddTab adds a tab beside the "View" tab (plots, tables) and returns it,
// so its content can be replaced as results arrive.
func (v *Viewer) AddTab(title string, obj fyne.CanvasObject) *container.TabItem {
	t := container.NewTabItem(title, obj)
	v.tabs.Append(t)
	return t
}

// ShowTab brings a tab added with AddTab (or the view, with nil) to the
// front.
func (v *Viewer) ShowTab(t *container.TabItem) {
	if t == nil {
		v.tabs.SelectIndex(0)
		return
	}
	v.tabs.Select(t)
}

// Close stops the loaders and closes every layer's volume.
func (v *Viewer) Close() {
	v.stopPlay()
	v.close3D()
	for _, l := range v.stack.layers {
		if il := imageOf(l); il != nil && il.ld != nil {
			il.ld.close()
			_ = il.vol.Close()
		}
	}
}

// offerBar is the line above the canvas that offers the view change a
// result makes possible — showing it side by side with the data it came
// from — with one click, instead of making it: results never rearrange
// the user's view.
type offerBar struct {
	box     *fyne.Container
	text    *widget.Label
	compare *widget.Button
	// a and b are the layers the offer would show side by side.
	a, b Layer
}

func (v *Viewer) newOfferBar() offerBar {
	o := offerBar{text: widget.NewLabel("")}
	o.text.Truncation = fyne.TextTruncateEllipsis
	o.compare = widgets.NewButton(v.win, "Compare side by side", theme.GridIcon(), v.Compare)
	o.compare.Importance = widget.HighImportance
	dismiss := widgets.NewButton(v.win, "", theme.CancelIcon(), func() {
		v.offer.hide()
		v.relayoutDims()
	})
	dismiss.Importance = widget.LowImportance
	o.box = container.NewBorder(nil, widget.NewSeparator(), nil, container.NewHBox(o.compare, dismiss), o.text)
	o.box.Hide()
	return o
}

// about reports whether the offer concerns l.
func (o *offerBar) about(l Layer) bool { return o.a == l || o.b == l }

func (o *offerBar) hide() {
	o.a, o.b = nil, nil
	o.box.Hide()
}

// OfferCompare offers, above the canvas, to show result beside in (the
// data it came from) in grid mode; nothing changes until the user
// accepts (Compare). A later offer replaces it; removing either layer
// withdraws it.
func (v *Viewer) OfferCompare(in, result Layer) {
	if in == nil || result == nil || v.stack.indexOf(in) < 0 || v.stack.indexOf(result) < 0 {
		return
	}
	v.offer.a, v.offer.b = in, result
	msg := fmt.Sprintf("%s is ready", result.Name())
	if il, ok := result.(*ImageLayer); ok && il.vol != nil {
		if _, live := il.vol.Source().(*LiveVolume); live {
			// The job still runs: say so, not that it is done.
			msg = fmt.Sprintf("%s: planes appear as the job computes them", result.Name())
		}
	}
	v.offer.text.SetText(msg)
	v.offer.box.Show()
	v.relayoutDims()
}

// Offer returns the layers the compare offer would show side by side
// (nils when there is no offer) and its button.
func (v *Viewer) Offer() (in, result Layer, button *widget.Button) {
	return v.offer.a, v.offer.b, v.offer.compare
}

// Compare accepts the compare offer: its two layers alone, side by side
// in grid mode, fitted.
func (v *Viewer) Compare() {
	a, b := v.offer.a, v.offer.b
	if a == nil || b == nil {
		return
	}
	v.offer.hide()
	v.Focus(true, a, b)
	v.relayoutDims()
}
