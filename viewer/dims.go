package viewer

import (
	"fmt"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/viewer/model"
	"github.com/voxlab/voxlab/widgets"
)

// dimsBar is the slice navigation: play, axis, slider, position, and
// above them, while a stack of maps is on show, the map slider. It shows
// the model's Dims (at) and calls back into the viewer for what a user
// does with it (napari's QtDims).
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
	// setting is true while update moves the sliders, so their
	// OnChanged does not echo back.
	setting bool

	at *model.Dims
	// extent and maps are the ranges of the sliders (the viewer's
	// visible layers); relayout lays the view out again after the bar
	// changed height.
	extent   func() [3]int
	maps     func() int
	relayout func()
	player   player
}

// dimsActions are what the dims bar's controls do to the view.
type dimsActions struct {
	setAxis  func(Axis)
	setSlice func(int)
	setMap   func(int)
	step     func()
}

func newDimsBar(win fyne.Window, at *model.Dims, do dimsActions) *dimsBar {
	d := &dimsBar{at: at}
	d.play = widgets.NewButton(win, "", theme.MediaPlayIcon(), d.player.toggle)
	d.player.button, d.player.step = d.play, do.step
	d.axis = widget.NewRadioGroup([]string{"z", "y", "x"}, func(s string) {
		if a, err := ParseAxis(s); err == nil {
			do.setAxis(a)
		}
		widgets.Refocus(win, false)
	})
	d.axis.Horizontal = true
	d.axis.Required = true
	d.axis.SetSelected("z")
	d.slider = widget.NewSlider(0, 0)
	d.slider.Step = 1
	d.slider.OnChanged = func(x float64) {
		if !d.setting {
			do.setSlice(int(x))
		}
	}
	d.slider.OnChangeEnded = sliderDone(win)
	d.label = widget.NewLabel("0/0")
	d.mapSlider = widget.NewSlider(0, 0)
	d.mapSlider.Step = 1
	d.mapSlider.OnChanged = func(x float64) {
		if !d.setting {
			do.setMap(int(x))
		}
	}
	d.mapSlider.OnChangeEnded = sliderDone(win)
	d.mapLabel = widget.NewLabel("map 0/0")
	d.mapSlider.Hide()
	d.mapLabel.Hide()
	d.box = container.New(dimsLayout{}, layout.NewSpacer(), d.mapSlider, d.mapLabel,
		container.NewHBox(d.play, d.axis), d.slider, d.label)
	return d
}

// update sets the slider's range from the visible layers (extent) and
// its position: the slice last asked for, clamped into the range, so
// that hiding a deep layer and showing it again comes back to the same
// slice.
func (d *dimsBar) update() {
	n := d.extent()[d.at.Axis()]
	d.at.Clamp(n)
	d.setting = true
	d.slider.Max = float64(max(n-1, 0))
	d.slider.SetValue(float64(d.at.Slice()))
	d.slider.Refresh()
	d.setting = false
	if d.axis.Selected != d.at.Axis().String() {
		d.axis.SetSelected(d.at.Axis().String())
	}
	setText(d.label, fmt.Sprintf("%s %d/%d", d.at.Axis(), d.at.Slice(), max(n-1, 0)), d.box)
	d.updateMap()
}

// updateMap shows the map slider while a stack is on show, with its
// range and the map last asked for, clamped into it.
func (d *dimsBar) updateMap() {
	n := d.maps()
	d.at.ClampMap(n)
	if n <= 1 {
		if !d.mapSlider.Hidden {
			d.mapSlider.Hide()
			d.mapLabel.Hide()
			d.relayout()
		}
		return
	}
	d.setting = true
	d.mapSlider.Max = float64(n - 1)
	d.mapSlider.SetValue(float64(d.at.Map()))
	d.mapSlider.Refresh()
	d.setting = false
	setText(d.mapLabel, d.mapText(d.at.Map(), n), d.box)
	if d.mapSlider.Hidden {
		d.mapSlider.Show()
		d.mapLabel.Show()
		d.relayout()
	}
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

// playInterval is the frame period of the play button (10 slices/s);
// slices that have not loaded in time are skipped by the loader.
const playInterval = 100 * time.Millisecond

// player steps the slice on a ticker while the play button is down.
// The ticker's goroutine posts step to the UI goroutine (step does
// that), so mu guards only stop and done.
type player struct {
	button *widget.Button
	step   func()

	mu   sync.Mutex
	stop chan struct{}
	// done is closed when the play goroutine has returned.
	done chan struct{}
}

func (p *player) toggle() {
	p.mu.Lock()
	playing := p.stop != nil
	p.mu.Unlock()
	if playing {
		p.halt()
		return
	}
	stop, done := make(chan struct{}), make(chan struct{})
	p.mu.Lock()
	p.stop, p.done = stop, done
	p.mu.Unlock()
	p.button.SetIcon(theme.MediaPauseIcon())
	go func() {
		defer close(done)
		t := time.NewTicker(playInterval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				p.step()
			}
		}
	}()
}

func (p *player) halt() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
		p.button.SetIcon(theme.MediaPlayIcon())
	}
}

// ended returns a channel closed once the last play goroutine has
// returned (it posts no more steps); nil when play never ran.
func (p *player) ended() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// playing reports whether the play goroutine is running.
func (p *player) playing() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stop != nil
}

// sliderDone is the OnChangeEnded of the viewer's sliders: a slider
// takes the focus when tapped, and would keep the arrow keys (they move
// it, not the slice) without it.
func sliderDone(win fyne.Window) func(float64) {
	return func(float64) { widgets.Refocus(win, false) }
}

// focusedIn reports whether the user is typing in o in win.
func focusedIn(win fyne.Window, o fyne.Focusable) bool {
	return win != nil && win.Canvas().Focused() == o
}
