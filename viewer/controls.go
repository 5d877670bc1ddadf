package viewer

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

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
		objs = imageControls(v, imageOf(l))
	}
	title := widget.NewLabelWithStyle("Layer controls", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.controls.Objects = append([]fyne.CanvasObject{title}, objs...)
	v.controls.Refresh()
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
	mapLabels func(i int) string // SetMapLabels's; nil: "map i/N"
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
	setText(d.mapLabel, d.mapText(v.at.Map(), n), d.box)
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
