package viewer

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/resources"
	"github.com/voxlab/voxlab/viewer/model"
	"github.com/voxlab/voxlab/widgets"
)

// newLayerList lists the layers top first, as napari does: a visibility
// check, an icon for the kind of layer and the name per row (the kind
// as an icon leaves the name the room: long file names were cut off at
// 1280 px); selecting a row selects the layer.
func (v *Viewer) newLayerList() *widget.List {
	l := widget.NewList(
		func() int { return v.stack.Len() },
		func() fyne.CanvasObject {
			name := widget.NewLabel("layer name")
			name.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, container.NewHBox(widget.NewCheck("", nil), widget.NewIcon(theme.MediaPhotoIcon())), nil, name)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= v.stack.Len() {
				return
			}
			l := v.stack.At(v.stack.Len() - 1 - id)
			row := o.(*fyne.Container)
			left := row.Objects[1].(*fyne.Container)
			chk := left.Objects[0].(*widget.Check)
			chk.OnChanged = nil
			chk.SetChecked(l.Visible())
			chk.OnChanged = func(on bool) {
				l.SetVisible(on)
				widgets.Refocus(v.win, false)
			}
			left.Objects[1].(*widget.Icon).SetResource(kindIcon(l))
			row.Objects[0].(*widget.Label).SetText(l.Name() + unsavedMark(l))
		})
	l.OnSelected = func(id widget.ListItemID) {
		if id < v.stack.Len() {
			v.Select(v.stack.At(v.stack.Len() - 1 - id))
		}
		// A tapped list keeps the keys (they move its selection).
		widgets.Refocus(v.win, false)
	}
	return l
}

// kindIcon is the layer list's icon for the kind of l.
func kindIcon(l Layer) fyne.Resource {
	switch l.(type) {
	case *PointsLayer:
		return theme.RadioButtonCheckedIcon()
	case *HeatmapLayer:
		return theme.GridIcon()
	}
	return theme.MediaPhotoIcon()
}

// controlRefs are the controls of the selected layer (the tests reach
// them here). An image control follows its one setting through the
// setting's event (watch); unwatch disconnects them when the panel is
// rebuilt for another layer.
type controlRefs struct {
	layer    Layer
	contrast *RangeSlider
	lo, hi   *widget.Entry
	// limitsMsg says why typed contrast limits were refused.
	limitsMsg *widget.Label
	// voxel is the voxel size entry, voxelMsg its message.
	voxel    *widget.Entry
	voxelMsg *widget.Label
	auto     *widget.Check
	gamma    *widget.Slider
	gammaLbl *widget.Label
	cmap     *widget.Select
	opacity  *widget.Slider
	pts      *pointsRefs
	unwatch  []func()
}

// watch has show put the setting into its control now and after every
// event e.
func (c *controlRefs) watch(show func(), e ...*model.Event) {
	show()
	for _, ev := range e {
		c.unwatch = append(c.unwatch, ev.Connect(show))
	}
}

// setSlider moves s to x without calling its OnChanged: the slider
// clamps to its range, and the clamped value must not become the
// setting.
func setSlider(s *widget.Slider, x float64) {
	if s.Value != x {
		f := s.OnChanged
		s.OnChanged = nil
		s.SetValue(x)
		s.OnChanged = f
	}
}

// rebuildControls shows the controls of the selected layer.
func (v *Viewer) rebuildControls() {
	for _, f := range v.ctl.unwatch {
		f()
	}
	v.ctl = controlRefs{layer: v.stack.Selected()}
	var objs []fyne.CanvasObject
	switch l := v.stack.Selected().(type) {
	case nil:
		objs = []fyne.CanvasObject{widget.NewLabel("No layer selected")}
	case *PointsLayer:
		objs = v.pointsControls(l)
	default:
		objs = v.imageControls(imageOf(l))
	}
	title := widget.NewLabelWithStyle("Layer controls", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.controls.Objects = append([]fyne.CanvasObject{title}, objs...)
	v.controls.Refresh()
}

func (v *Viewer) imageControls(l *ImageLayer) []fyne.CanvasObject {
	c := &v.ctl
	lo, hi := l.ContrastLimits()
	rlo, rhi := l.ContrastRange()
	c.contrast = NewRangeSlider(rlo, rhi, lo, hi)
	c.contrast.OnChanged = l.SetContrastLimits
	c.lo, c.hi = widget.NewEntry(), widget.NewEntry()
	c.limitsMsg = widgets.WrapLabel("", widget.DangerImportance)
	widgets.SetLabel(c.limitsMsg, "")
	setLimits := func(string) {
		if msg := checkLimits(c.lo.Text, c.hi.Text); msg != "" {
			// Said beside the entries, where the user looks, until
			// mended (the status bar's line is overwritten by the next
			// pointer move).
			widgets.SetLabel(c.limitsMsg, msg)
			v.controls.Refresh()
			return
		}
		a, _ := strconv.ParseFloat(strings.TrimSpace(c.lo.Text), 64)
		b, _ := strconv.ParseFloat(strings.TrimSpace(c.hi.Text), 64)
		widgets.SetLabel(c.limitsMsg, "")
		l.SetContrastLimits(a, b)
		// Enter ends the typing: the keys step through slices again.
		widgets.Refocus(v.win, true)
	}
	c.lo.OnSubmitted, c.hi.OnSubmitted = setLimits, setLimits
	c.watch(func() { c.showLimits(l, v.focused) }, &l.ContrastChanged, &l.RangeChanged, &l.ShownChanged)
	voxelRow := v.voxelControl(l)
	autoOnce := widgets.NewButton(v.win, "Auto", nil, func() { l.AutoContrast() })
	c.auto = widget.NewCheck("continuous", func(on bool) {
		if on != l.ContinuousAutoContrast() {
			l.SetContinuousAutoContrast(on)
		}
		widgets.Refocus(v.win, false)
	})
	c.watch(func() { c.auto.SetChecked(l.ContinuousAutoContrast()) }, &l.AutoChanged)
	c.gamma = widget.NewSlider(0.2, 5)
	c.gamma.Step = 0.01
	c.gammaLbl = widget.NewLabel("")
	c.gamma.OnChanged = l.SetGamma
	c.gamma.OnChangeEnded = v.sliderDone
	c.watch(func() {
		setSlider(c.gamma, l.Gamma())
		c.gammaLbl.SetText(fmt.Sprintf("%.2f", l.Gamma()))
	}, &l.GammaChanged)
	c.cmap = widget.NewSelect(resources.ColormapNames(), func(name string) {
		if name != l.Colormap() {
			_ = l.SetColormap(name)
		}
		widgets.Refocus(v.win, false)
	})
	c.watch(func() { c.cmap.SetSelected(l.Colormap()) }, &l.ColormapChanged)
	c.opacity = widget.NewSlider(0, 1)
	c.opacity.Step = 0.01
	c.opacity.OnChanged = l.SetOpacity
	c.opacity.OnChangeEnded = v.sliderDone
	c.watch(func() { setSlider(c.opacity, l.Opacity()) }, &l.OpacityChanged)
	blend := widget.NewSelect([]string{Translucent.String(), Additive.String()}, func(s string) {
		m := Translucent
		if s == Additive.String() {
			m = Additive
		}
		l.SetBlending(m)
		widgets.Refocus(v.win, false)
	})
	c.watch(func() { blend.SetSelected(l.Blending().String()) }, &l.BlendingChanged)
	form := widget.NewForm()
	if voxelRow != nil {
		// First: the voxel size shapes every view, and its message is
		// then on show without scrolling (at the end of the form it
		// fell below the side panel's fold at 1280x800).
		form.Append("voxel", container.NewVBox(voxelRow, c.voxelMsg))
	}
	for _, it := range []*widget.FormItem{
		widget.NewFormItem("contrast", c.contrast),
		widget.NewFormItem("", container.NewVBox(container.NewGridWithColumns(2, c.lo, c.hi), c.limitsMsg)),
		widget.NewFormItem("", container.NewHBox(autoOnce, c.auto)),
		widget.NewFormItem("gamma", container.NewBorder(nil, nil, nil, c.gammaLbl, c.gamma)),
		widget.NewFormItem("colormap", c.cmap),
		widget.NewFormItem("opacity", c.opacity),
		widget.NewFormItem("blending", blend),
	} {
		form.AppendItem(it)
	}
	name := widget.NewLabel(describe(l))
	name.Wrapping = fyne.TextWrapBreak // long file names are read whole
	return []fyne.CanvasObject{name, form}
}

// checkLimits says what is wrong with contrast limits typed as lo and
// hi ("" when nothing).
func checkLimits(lo, hi string) string {
	a, err1 := strconv.ParseFloat(strings.TrimSpace(lo), 64)
	b, err2 := strconv.ParseFloat(strings.TrimSpace(hi), 64)
	switch {
	case err1 != nil:
		return fmt.Sprintf("%q is not a number: type the low limit as one (e.g. 100)", lo)
	case err2 != nil:
		return fmt.Sprintf("%q is not a number: type the high limit as one (e.g. 4000)", hi)
	case math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0):
		return "the limits must be finite numbers"
	case a > b:
		return fmt.Sprintf("the low limit %s is above the high limit %s: swap them", formatValue(a), formatValue(b))
	}
	return ""
}

// voxelControl is an image layer's voxel size, z, y and x in its unit,
// typed as three numbers (or one for cubic voxels): it sets the
// physical shape of y and x slices, the scale bar and the orthogonal
// views' proportions. nil for a heat map.
func (v *Viewer) voxelControl(l *ImageLayer) fyne.CanvasObject {
	if l.vol == nil {
		return nil
	}
	c := &v.ctl
	c.voxel = widget.NewEntry()
	c.voxel.SetPlaceHolder("z, y, x (e.g. 5, 2, 2)")
	c.watch(func() {
		if vs := l.VoxelSize(); vs != [3]float64{} && !v.focused(c.voxel) {
			c.voxel.SetText(fmt.Sprintf("%g, %g, %g", vs[0], vs[1], vs[2]))
		}
	}, &l.VoxelSizeChanged)
	c.voxelMsg = widgets.WrapLabel("", widget.DangerImportance)
	widgets.SetLabel(c.voxelMsg, "")
	unit := l.Unit()
	if unit == "" {
		unit = "µm"
	}
	c.voxel.OnSubmitted = func(s string) {
		vs, err := parseVoxelSize(s, unit)
		if err != nil {
			widgets.SetLabel(c.voxelMsg, err.Error())
			v.controls.Refresh()
			return
		}
		widgets.SetLabel(c.voxelMsg, "")
		l.SetVoxelSize(vs)
		widgets.Refocus(v.win, true)
	}
	return container.NewBorder(nil, nil, nil, widget.NewLabel(unit), c.voxel)
}

// parseVoxelSize reads "z, y, x" (commas, spaces or x between them) or
// one number for all three; each must be a positive number. Its errors
// say what is wanted, in unit.
func parseVoxelSize(s, unit string) ([3]float64, error) {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == 'x' || r == '×' || r == '\t' })
	var vs [3]float64
	switch len(f) {
	case 1:
		f = []string{f[0], f[0], f[0]}
	case 3:
	default:
		return vs, fmt.Errorf("voxel size %q has %d numbers: type three numbers z,y,x in %s (e.g. 5, 2, 2), or one for cubic voxels", s, len(f), unit)
	}
	for i, t := range f {
		x, err := strconv.ParseFloat(t, 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			return vs, fmt.Errorf("voxel size %q: %q is not a positive number; type three numbers z,y,x in %s (e.g. 5, 2, 2)", s, t, unit)
		}
		vs[i] = x
	}
	return vs, nil
}

func describe(l *ImageLayer) string {
	if l.vol == nil {
		p := l.fixed()
		return fmt.Sprintf("%s\n%d x %d matrix", l.Name(), p.rows, p.cols)
	}
	in := l.vol.Info
	e := l.extent()
	s := fmt.Sprintf("%s\n%d x %d x %d %s", l.Name(), e[0], e[1], e[2], in.DType)
	if l.maps > 1 {
		s = fmt.Sprintf("%s\n%d maps of %d x %d x %d %s", l.Name(), l.maps, e[0], e[1], e[2], in.DType)
	}
	if in.VoxelSize != [3]float64{} {
		s += fmt.Sprintf("\nvoxel %g x %g x %g %s", in.VoxelSize[0], in.VoxelSize[1], in.VoxelSize[2], l.Unit())
	}
	return s
}

// showLimits puts the layer's contrast limits and range into the
// slider and the entries (not into an entry the user is typing in).
func (c *controlRefs) showLimits(l *ImageLayer, focused func(fyne.Focusable) bool) {
	lo, hi := l.ContrastLimits()
	rlo, rhi := l.ContrastRange()
	if c.contrast.Low != lo || c.contrast.High != hi || c.contrast.Min != rlo || c.contrast.Max != rhi {
		c.contrast.SetRange(rlo, rhi, lo, hi)
	}
	if !focused(c.lo) {
		c.lo.SetText(formatValue(lo))
	}
	if !focused(c.hi) {
		c.hi.SetText(formatValue(hi))
	}
}

// settleControls brings the controls up to date after a redraw: an
// image layer tells them of the limits its slices moved (Settle), a
// points layer's counts are read again.
func (v *Viewer) settleControls() {
	for _, l := range v.stack.All() {
		if il := imageOf(l); il != nil {
			il.Settle()
		}
	}
	if pl, ok := v.ctl.layer.(*PointsLayer); ok && pl == v.stack.Selected() {
		v.syncPoints(pl)
	}
}

// dimsBar is the slice navigation: play, axis, slider, position, and
// above them, while a stack of maps is on show, the map slider.
type dimsBar struct {
	box    *fyne.Container
	play   *widget.Button
	axis   *widget.RadioGroup
	slider *widget.Slider
	label  *widget.Label
	// mapSlider and mapLabel are the map row, hidden without stacks.
	mapSlider *widget.Slider
	mapLabel  *widget.Label
	// setting is true while updateDims moves the sliders, so their
	// OnChanged does not echo back.
	setting bool
}

func (v *Viewer) newDimsBar() dimsBar {
	d := dimsBar{}
	d.play = widgets.NewButton(v.win, "", theme.MediaPlayIcon(), v.togglePlay)
	d.axis = widget.NewRadioGroup([]string{"z", "y", "x"}, func(s string) {
		if a, err := ParseAxis(s); err == nil {
			v.SetAxis(a)
		}
		widgets.Refocus(v.win, false)
	})
	d.axis.Horizontal = true
	d.axis.Required = true
	d.axis.SetSelected("z")
	d.slider = widget.NewSlider(0, 0)
	d.slider.Step = 1
	d.slider.OnChanged = func(x float64) {
		if !v.dims.setting {
			v.SetSlice(int(x))
		}
	}
	d.slider.OnChangeEnded = v.sliderDone
	d.label = widget.NewLabel("0/0")
	d.mapSlider = widget.NewSlider(0, 0)
	d.mapSlider.Step = 1
	d.mapSlider.OnChanged = func(x float64) {
		if !v.dims.setting {
			v.SetMap(int(x))
		}
	}
	d.mapSlider.OnChangeEnded = v.sliderDone
	d.mapLabel = widget.NewLabel("map 0/0")
	d.mapSlider.Hide()
	d.mapLabel.Hide()
	d.box = container.New(dimsLayout{}, layout.NewSpacer(), d.mapSlider, d.mapLabel,
		container.NewHBox(d.play, d.axis), d.slider, d.label)
	return d
}

// dimsLayout lays the dims bar out as rows of three objects (controls,
// slider, position), in columns so that the sliders line up; a row whose
// slider is hidden (the map row without stacks) takes no room.
type dimsLayout struct{}

// columns returns the widths of the first and last columns and the
// height of each row.
func (dimsLayout) columns(objs []fyne.CanvasObject) (left, right float32, heights []float32) {
	for i := 0; i+2 < len(objs); i += 3 {
		var h float32
		if objs[i+1].Visible() {
			for j, o := range objs[i : i+3] {
				m := o.MinSize()
				h = max(h, m.Height)
				switch j {
				case 0:
					left = max(left, m.Width)
				case 2:
					right = max(right, m.Width)
				}
			}
		}
		heights = append(heights, h)
	}
	return left, right, heights
}

// Layout places each visible row below the previous one.
func (l dimsLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	left, right, heights := l.columns(objs)
	pad := theme.Padding()
	var y float32
	for r, h := range heights {
		if h == 0 {
			continue
		}
		o := objs[3*r:]
		o[0].Move(fyne.NewPos(0, y))
		o[0].Resize(fyne.NewSize(left, h))
		o[1].Move(fyne.NewPos(left+pad, y))
		o[1].Resize(fyne.NewSize(max(size.Width-left-right-2*pad, 0), h))
		o[2].Move(fyne.NewPos(size.Width-right, y))
		o[2].Resize(fyne.NewSize(right, h))
		y += h + pad
	}
}

// MinSize is the widest row and the rows' heights together.
func (l dimsLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	left, right, heights := l.columns(objs)
	var h float32
	for _, x := range heights {
		if x > 0 {
			h += x + theme.Padding()
		}
	}
	h = max(h-theme.Padding(), 0)
	w := left + right + 2*theme.Padding()
	for i := 1; i < len(objs); i += 3 {
		if objs[i].Visible() {
			w = max(w, left+right+2*theme.Padding()+objs[i].MinSize().Width)
		}
	}
	return fyne.NewSize(w, h)
}

// updateDims sets the slider's range from the visible layers
// (dimsExtent) and its position: the slice last asked for, clamped into
// the range, so that hiding a deep layer and showing it again comes back
// to the same slice.
func (v *Viewer) updateDims() {
	d := &v.dims
	n := v.dimsExtent()[v.at.Axis()]
	v.at.Clamp(n)
	d.setting = true
	d.slider.Max = float64(max(n-1, 0))
	d.slider.SetValue(float64(v.at.Slice()))
	d.slider.Refresh()
	d.setting = false
	if d.axis.Selected != v.at.Axis().String() {
		d.axis.SetSelected(v.at.Axis().String())
	}
	setText(d.label, fmt.Sprintf("%s %d/%d", v.at.Axis(), v.at.Slice(), max(n-1, 0)), d.box)
	v.updateMapSlider()
}

// updateMapSlider shows the map slider while a stack is on show, with
// its range and the map last asked for, clamped into it.
func (v *Viewer) updateMapSlider() {
	d := &v.dims
	n := v.Maps()
	v.at.ClampMap(n)
	if n <= 1 {
		if !d.mapSlider.Hidden {
			d.mapSlider.Hide()
			d.mapLabel.Hide()
			v.relayoutDims()
		}
		return
	}
	d.setting = true
	d.mapSlider.Max = float64(n - 1)
	d.mapSlider.SetValue(float64(v.at.Map()))
	d.mapSlider.Refresh()
	d.setting = false
	setText(d.mapLabel, fmt.Sprintf("map %d/%d", v.at.Map(), n-1), d.box)
	if d.mapSlider.Hidden {
		d.mapSlider.Show()
		d.mapLabel.Show()
		v.relayoutDims()
	}
}

// relayoutDims lays the canvas and dims bar out again after the dims
// bar changed height (Fyne does not propagate size changes upwards).
func (v *Viewer) relayoutDims() {
	if v.viewBox != nil {
		v.viewBox.Refresh()
	}
}

// playInterval is the frame period of the play button (10 slices/s);
// slices that have not loaded in time are skipped by the loader.
const playInterval = 100 * time.Millisecond

func (v *Viewer) togglePlay() {
	v.playMu.Lock()
	playing := v.playStop != nil
	v.playMu.Unlock()
	if playing {
		v.stopPlay()
		return
	}
	stop, done := make(chan struct{}), make(chan struct{})
	v.playMu.Lock()
	v.playStop, v.playDone = stop, done
	v.playMu.Unlock()
	v.dims.play.SetIcon(theme.MediaPauseIcon())
	go func() {
		defer close(done)
		t := time.NewTicker(playInterval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				v.post(func() { v.Step(1, true) })
			}
		}
	}()
}

func (v *Viewer) stopPlay() {
	v.playMu.Lock()
	defer v.playMu.Unlock()
	if v.playStop != nil {
		close(v.playStop)
		v.playStop = nil
		v.dims.play.SetIcon(theme.MediaPlayIcon())
	}
}

// playEnded returns a channel closed once the last play goroutine has
// returned (it posts no more steps); nil when play never ran.
func (v *Viewer) playEnded() <-chan struct{} {
	v.playMu.Lock()
	defer v.playMu.Unlock()
	return v.playDone
}

// sliderDone is the OnChangeEnded of the viewer's sliders: a slider
// takes the focus when tapped, and would keep the arrow keys (they move
// it, not the slice) without it.
func (v *Viewer) sliderDone(float64) { widgets.Refocus(v.win, false) }

// focused reports whether the user is typing in o.
func (v *Viewer) focused(o fyne.Focusable) bool {
	return v.win != nil && v.win.Canvas().Focused() == o
}
