package viewer

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/resources"
	"github.com/voxlab/voxlab/viewer/model"
	"github.com/voxlab/voxlab/widgets"
)

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

// controls are the controls of an image or heat-map layer: its
// description, voxel size, contrast limits and auto-contrast, gamma,
// colormap, opacity and blending, each following its setting.
func (l *ImageLayer) controls(v *Viewer) []fyne.CanvasObject {
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
	c.watch(func() { c.showLimits(l, func(o fyne.Focusable) bool { return focusedIn(v.win, o) }) }, &l.ContrastChanged, &l.RangeChanged, &l.ShownChanged)
	voxelRow := voxelControl(v, l)
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
	c.gamma.OnChangeEnded = sliderDone(v.win)
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
	c.opacity.OnChangeEnded = sliderDone(v.win)
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
func voxelControl(v *Viewer, l *ImageLayer) fyne.CanvasObject {
	if l.vol == nil {
		return nil
	}
	c := &v.ctl
	c.voxel = widget.NewEntry()
	c.voxel.SetPlaceHolder("z, y, x (e.g. 5, 2, 2)")
	c.watch(func() {
		if vs := l.VoxelSize(); vs != [3]float64{} && !focusedIn(v.win, c.voxel) {
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

// settle brings the controls up to date after a redraw: an image layer
// of layers tells them of the limits its slices moved (Settle), the
// selected points layer's counts are read again.
func (c *controlRefs) settle(layers []Layer, selected Layer) {
	for _, l := range layers {
		if il := imageOf(l); il != nil {
			il.Settle()
		}
	}
	if pl, ok := pointsLayer(c.layer); ok && pl == selected {
		c.pts.sync(pl, imageExtent(layers))
	}
}
