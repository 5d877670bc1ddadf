package viewer

import (
	"context"
	"fmt"
	"image"
	"math"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/viewer/render3d"
	"github.com/voxlab/voxlab/widgets"
)

// The 3D view draws the visible image layers with render3d (MIP,
// attenuated MIP, minimum, average or a shaded iso-surface) through
// each layer's contrast limits, gamma and colormap, blended bottom to
// top as the 2D view blends them, with the points layers over them
// (hidden behind an iso-surface). Dragging turns it (arcball), the
// wheel zooms, a double click resets.
//
// Each image layer gets two grids built in one pass over its volume
// on the layer's loader goroutine (the one user of its source), a slab
// between slice reads: a coarse one within coarse3DBytes for frames
// while the view moves, and a fine one within the 3D budget (full
// resolution where it fits) drawn once the view has been still for
// stillDelay. Rendering runs on a goroutine of the view's own, on all
// cores, never on the UI goroutine; a new request cancels a fine frame
// in progress.

// coarse3DBytes is the coarse grid's budget: 512³ uint16 becomes 128³,
// whose frames take ~10 ms (BENCHMARKS.md).
const coarse3DBytes = 8 << 20

// Default3DBudget is the fine grid's default budget per layer.
const Default3DBudget = 512 << 20

// stillDelay is how long the view must stay still before the fine
// frame is drawn.
const stillDelay = 150 * time.Millisecond

// view3D is the 3D canvas and its controls.
type view3D struct {
	widget.BaseWidget
	v *Viewer

	cam    render3d.Camera
	mode   render3d.Mode
	thr    float64
	thrSet bool
	atten  float64
	budget int64
	// coarse is the coarse grid's budget (coarse3DBytes; tests lower it).
	coarse int64

	// UI goroutine state.
	shown    *image.RGBA
	grids    map[*ImageLayer]*layerGrids
	gen      uint64 // requests sent
	finalGen uint64 // the request whose final frame is on show
	lastSig  string
	status   string
	// view is the last request's view, for tests.
	view render3d.View

	content   *fyne.Container
	modeSel   *widget.Select
	thrSlider *widget.Slider
	thrLabel  *widget.Label
	thrBox    *fyne.Container
	attSlider *widget.Slider
	extra     *fyne.Container
	// syncing is set while the program moves the threshold slider.
	syncing bool

	// The render goroutine's inbox.
	mu     sync.Mutex
	req    *renderReq
	cancel context.CancelFunc
	wake   chan struct{}
	quit   chan struct{}
	done   chan struct{}
}

// layerGrids are one image layer's 3D grids (UI goroutine).
type layerGrids struct {
	m            int // the map they hold
	coarse, fine *render3d.Grid
	done, total  int
	err          error
}

// renderReq is everything a frame needs, copied on the UI goroutine.
type renderReq struct {
	gen    uint64
	w, h   int
	view   render3d.View
	layers []layerSnap
	points []pointsSnap
	// final: the coarse grids are the fine ones (nothing to refine).
	final bool
}

type layerSnap struct {
	coarse, fine *render3d.Grid
	p            render3d.Params
	tab          []uint32
	lutLo, scale float64
	direct       bool
	opacity      float64
	blend        Blending
}

type pointsSnap struct {
	pts     []render3d.Vec
	cls     []points.Class
	style   PointsStyle
	diam    float64 // world units
	opacity float64
}

// newView3D builds v's 3D view and starts its render goroutine.
func newView3D(v *Viewer) *view3D {
	w := &view3D{v: v, cam: render3d.DefaultCamera(), atten: 0.05, budget: Default3DBudget, coarse: coarse3DBytes,
		grids: map[*ImageLayer]*layerGrids{}, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	w.ExtendBaseWidget(w)
	// The controls' callbacks, run as they are set up, find it there.
	v.v3 = w
	w.modeSel = widget.NewSelect(render3d.Modes(), func(s string) {
		if m, err := render3d.ParseMode(s); err == nil {
			v.Scene().SetMode(m)
		}
		widgets.Refocus(v.win, false)
	})
	w.modeSel.SetSelected(w.mode.String())
	w.thrLabel = widget.NewLabel("")
	w.thrSlider = widget.NewSlider(0, 1)
	w.thrSlider.OnChanged = func(x float64) {
		if !w.syncing {
			v.Scene().SetIsoThreshold(x)
		}
	}
	w.attSlider = widget.NewSlider(0, 0.5)
	w.attSlider.Step = 0.005
	w.attSlider.SetValue(w.atten)
	w.attSlider.OnChanged = func(x float64) {
		w.atten = x
		w.request()
	}
	reset := widgets.NewButton(v.win, "Reset", theme.ZoomFitIcon(), func() {
		w.cam = render3d.DefaultCamera()
		w.request()
	})
	w.thrBox = container.NewBorder(nil, nil, w.thrLabel, nil, w.thrSlider)
	w.extra = container.NewStack()
	bar := container.NewBorder(nil, nil, container.NewHBox(widget.NewLabel("Rendering"), w.modeSel, reset), nil, w.extra)
	w.content = container.NewBorder(bar, nil, nil, nil, w)
	w.syncBar()
	go w.run()
	return w
}

// syncBar shows the control of the mode: the threshold for iso, the
// attenuation for attenuated MIP.
func (w *view3D) syncBar() {
	switch w.mode {
	case render3d.Iso:
		w.extra.Objects = []fyne.CanvasObject{w.thrBox}
	case render3d.Attenuated:
		w.extra.Objects = []fyne.CanvasObject{container.NewBorder(nil, nil, widget.NewLabel("Attenuation"), nil, w.attSlider)}
	default:
		w.extra.Objects = nil
	}
	w.extra.Refresh()
}

// onShow reports whether the 3D view is on show.
func (w *view3D) onShow() bool { return w.on() && w.Visible() }

// on reports whether the 3D view is chosen (its toolbar check is on);
// false for a view not built yet (nil).
func (w *view3D) on() bool { return w != nil && w.v.v3Check != nil && w.v.v3Check.Checked }

// Scene is the 3D view as the application drives it: shown or not, its
// rendering mode, camera and iso threshold (the view is built the first
// time one is set). Use it on the UI goroutine.
type Scene struct{ v *Viewer }

// Scene returns the viewer's 3D view.
func (v *Viewer) Scene() Scene { return Scene{v} }

// view returns the 3D view, built on first use.
func (sc Scene) view() *view3D {
	if sc.v.v3 == nil {
		sc.v.v3 = newView3D(sc.v)
	}
	return sc.v.v3
}

// SetOn shows the 3D view in place of the slice panels (on), or the
// panels again.
func (sc Scene) SetOn(on bool) {
	v := sc.v
	if on {
		sc.view()
	}
	if v.v3Check.Checked != on {
		v.v3Check.SetChecked(on) // calls SetOn again
		return
	}
	if v.v3 == nil {
		return
	}
	if on && v.ortho.on {
		v.Panels().SetOrtho(false) // one or the other (SetOrtho turns 3D off)
	}
	from, to := fyne.CanvasObject(v.v3.content), fyne.CanvasObject(v.panelBox)
	if on {
		from, to = to, from
	}
	for i, o := range v.viewBox.Objects {
		if o == from {
			v.viewBox.Objects[i] = to
		}
	}
	v.viewBox.Refresh()
	v.redraw()
}

// SetMode chooses the 3D rendering mode.
func (sc Scene) SetMode(m render3d.Mode) {
	w := sc.view()
	if w.mode == m {
		return
	}
	w.mode = m
	w.modeSel.SetSelected(m.String())
	w.syncBar()
	w.request()
}

// SetCameraAngles turns the 3D view to azimuth az and elevation el, in
// degrees (render3d.Angles), keeping its zoom.
func (sc Scene) SetCameraAngles(az, el float64) {
	w := sc.view()
	z := w.cam.Zoom
	w.cam = render3d.Angles(az, el)
	w.cam.Zoom = z
	w.request()
}

// SetIsoThreshold sets the iso-surface's value (default: halfway
// between the contrast limits of the lowest visible image layer).
func (sc Scene) SetIsoThreshold(x float64) {
	w := sc.view()
	if w.thrSet && w.thr == x {
		return
	}
	w.thr, w.thrSet = x, true
	w.request()
}

// camera returns the 3D view's camera (the default one for a view not
// built yet).
func (w *view3D) camera() render3d.Camera {
	if w == nil {
		return render3d.DefaultCamera()
	}
	return w.cam
}

// threshold is the iso value: the one set, else halfway between the
// contrast limits of the lowest visible image layer.
func (w *view3D) threshold() float64 {
	if w.thrSet {
		return w.thr
	}
	for _, l := range w.v.stack.All() {
		if il, ok := imageLayer(l); ok && l.Visible() {
			lo, hi := il.ContrastLimits()
			return (lo + hi) / 2
		}
	}
	return 0
}

// close stops the render goroutine (none for a nil view).
func (w *view3D) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	if w.cancel != nil {
		w.cancel()
	}
	w.mu.Unlock()
	select {
	case <-w.quit:
	default:
		close(w.quit)
	}
	<-w.done
}

// frame3D returns the reference frame of the 3D view: the physical
// extent (x, y, z) of the box holding every visible layer, each at its
// own voxel size with its voxel (0, 0, 0) at the box's corner, so layers
// of different voxel sizes are coregistered as napari's world
// coordinates have them.
func frame3D(layers []Layer, extent [3]int) render3d.Vec {
	var ext render3d.Vec
	grow := func(sh [3]int, sp [3]float64) {
		for k := range 3 {
			ext[2-k] = math.Max(ext[2-k], float64(sh[k])*sp[k])
		}
	}
	for _, l := range layers {
		if !l.Visible() {
			continue
		}
		if sp, ok := l.spacing3D(layers); ok {
			grow(l.extent(), sp)
		}
	}
	if ext == (render3d.Vec{}) {
		grow(extent, [3]float64{1, 1, 1})
	}
	return ext
}

// layerSpacing is an image layer's voxel size (z, y, x), 1 where unknown.
func layerSpacing(il *ImageLayer) [3]float64 {
	sp := [3]float64{1, 1, 1}
	if s := il.vol.VoxelSize; s[0] > 0 && s[1] > 0 && s[2] > 0 {
		sp = s
	}
	return sp
}

// pointsSpacing is the voxel size a points layer's coordinates are in:
// that of the nearest visible image layer below it (the image it was
// opened over, as `voxlab view IMG cells.csv` stacks them), else of the
// lowest visible image layer, else 1.
func pointsSpacing(layers []Layer, pl *PointsLayer) [3]float64 {
	var below, lowest *ImageLayer
	for _, l := range layers {
		if l == Layer(pl) {
			break
		}
		if il, ok := imageLayer(l); ok && l.Visible() {
			below = il
		}
	}
	for _, l := range layers {
		if il, ok := imageLayer(l); ok && l.Visible() {
			lowest = il
			break
		}
	}
	switch {
	case below != nil:
		return layerSpacing(below)
	case lowest != nil:
		return layerSpacing(lowest)
	}
	return [3]float64{1, 1, 1}
}

// worldOf is the world position of voxel (z, y, x) of a layer of voxel
// size sp in a frame of extent ext (its voxel (0, 0, 0) at the corner).
func worldOf(z, y, x float64, sp [3]float64, ext render3d.Vec) render3d.Vec {
	return render3d.Vec{(x+0.5)*sp[2] - ext[0]/2, (y+0.5)*sp[1] - ext[1]/2, (z+0.5)*sp[0] - ext[2]/2}
}

// building reports whether a visible layer's grids are still being
// built.
func (w *view3D) building() bool {
	for _, lg := range w.grids {
		if lg.fine == nil && lg.err == nil {
			return true
		}
	}
	return false
}

// settled reports whether the 3D view, if on show, has drawn the
// final frame of the current state (offscreen rendering waits for it).
func (w *view3D) settled() bool {
	if !w.on() {
		return true
	}
	w.request()
	return !w.building() && w.gen > 0 && w.finalGen == w.gen
}

// err returns the first error building a visible layer's 3D grids, or
// nil.
func (w *view3D) err() error {
	if !w.on() {
		return nil
	}
	for _, l := range w.v.stack.All() {
		if il, ok := imageLayer(l); ok && l.Visible() {
			if lg := w.grids[il]; lg != nil && lg.err != nil {
				return lg.err
			}
		}
	}
	return nil
}

// build starts building il's grids of map m on its loader goroutine, a
// slab per task so that slice requests get in between.
func (w *view3D) build(il *ImageLayer, m int) *layerGrids {
	lg := &layerGrids{m: m, total: il.depth}
	w.grids[il] = lg
	b, err := render3d.NewBuilder(il.vol, m*il.depth, il.depth, []int64{w.coarse, w.budget})
	if err != nil {
		lg.err = err
		w.v.dlg.ShowError(err)
		return lg
	}
	var step func()
	step = func() {
		done, err := b.Step()
		n := b.Done()
		w.v.post(func() {
			if w.grids[il] != lg {
				return // the layer was removed, or another map asked for
			}
			lg.done = n
			switch {
			case err != nil:
				lg.err = fmt.Errorf("3D view of %s: %w", il.name, err)
				w.v.dlg.ShowError(lg.err)
			case done:
				gs := b.Grids()
				lg.coarse, lg.fine = gs[0], gs[1]
				if lg.fine.Factor == lg.coarse.Factor {
					lg.coarse = lg.fine
				}
			}
			w.v.v3.request()
		})
		if err == nil && !done {
			il.ld.do(step)
		}
	}
	il.ld.do(step)
	return lg
}

func (w *view3D) setStatus(s string) {
	if w.status == s {
		return
	}
	w.status = s
	w.Refresh()
}

// CreateRenderer draws the last frame and the build progress.
func (w *view3D) CreateRenderer() fyne.WidgetRenderer {
	r := &view3DRenderer{w: w}
	r.img = canvas.NewImageFromImage(nil)
	r.img.FillMode = canvas.ImageFillStretch
	r.img.ScaleMode = canvas.ImageScalePixels
	r.text = canvas.NewText("", overlayText)
	r.textBg = canvas.NewRectangle(overlayShade)
	r.text.TextSize = max(theme.TextSize()*0.9, widgets.MinTextSize)
	return r
}

type view3DRenderer struct {
	w      *view3D
	img    *canvas.Image
	text   *canvas.Text
	textBg *canvas.Rectangle
	size   fyne.Size
}

func (r *view3DRenderer) Layout(size fyne.Size) {
	if size != r.size {
		r.size = size
		r.img.Resize(size)
		r.w.v.v3.request()
	}
	r.Refresh()
}

func (r *view3DRenderer) MinSize() fyne.Size { return fyne.NewSize(64, 64) }

func (r *view3DRenderer) Refresh() {
	if r.w.shown != nil {
		r.img.Image = r.w.shown
	}
	r.img.Refresh()
	pad := theme.Padding()
	r.text.Text = r.w.status
	r.text.Move(fyne.NewPos(pad*2, pad))
	r.text.Refresh()
	ts := fyne.MeasureText(r.text.Text, r.text.TextSize, r.text.TextStyle)
	r.textBg.Hidden = r.text.Text == ""
	r.textBg.Move(fyne.NewPos(pad, pad))
	r.textBg.Resize(fyne.NewSize(ts.Width+2*pad, ts.Height))
	r.textBg.Refresh()
}

func (r *view3DRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.img, r.textBg, r.text}
}

func (r *view3DRenderer) Destroy() {}

// Dragged turns the volume with the pointer (arcball).
func (w *view3D) Dragged(e *fyne.DragEvent) {
	sz := w.Size()
	x1, y1 := float64(e.Position.X), float64(e.Position.Y)
	w.cam.Drag(x1-float64(e.Dragged.DX), y1-float64(e.Dragged.DY), x1, y1, float64(sz.Width), float64(sz.Height))
	w.v.v3.request()
}

// DragEnd ends a turn.
func (w *view3D) DragEnd() {}

// Scrolled zooms: one wheel notch by 2^(1/4), as the 2D view.
func (w *view3D) Scrolled(e *fyne.ScrollEvent) {
	w.cam.Zoom = math.Min(math.Max(w.cam.Zoom*math.Pow(2, float64(e.Scrolled.DY)/40), 1.0/16), 64)
	w.v.v3.request()
}

// DoubleTapped resets the camera.
func (w *view3D) DoubleTapped(*fyne.PointEvent) {
	w.cam = render3d.DefaultCamera()
	w.v.v3.request()
}

// syncThreshold sets the threshold slider's range to the lowest visible
// image layer's values seen so far.
func (w *view3D) syncThreshold() {
	for _, l := range w.v.stack.All() {
		if il, ok := imageLayer(l); ok && l.Visible() {
			lo, hi := il.ContrastRange()
			if hi > lo {
				w.thrSlider.Min, w.thrSlider.Max = lo, hi
				w.thrSlider.Step = (hi - lo) / 200
			}
			break
		}
	}
	t := w.threshold()
	w.syncing = true // SetValue must not count as the user's choice
	w.thrSlider.SetValue(t)
	w.syncing = false
	setText(w.thrLabel, "Threshold "+formatValue(t), w.thrBox)
}
