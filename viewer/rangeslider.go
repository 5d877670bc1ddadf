package viewer

import (
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// RangeSlider is a slider with two handles selecting [Low, High] within
// [Min, Max]: the contrast limits control. Dragging moves the handle
// nearer the pointer where the drag started; tapping moves the nearer
// handle to the tap.
type RangeSlider struct {
	widget.BaseWidget
	Min, Max  float64
	Low, High float64
	// OnChanged is called with the new limits after every move.
	OnChanged func(low, high float64)

	dragHigh bool
	dragging bool
}

// NewRangeSlider returns a slider over [min, max] with both limits set.
func NewRangeSlider(min, max, low, high float64) *RangeSlider {
	s := &RangeSlider{Min: min, Max: max, Low: low, High: high}
	s.ExtendBaseWidget(s)
	return s
}

// SetRange sets the bounds and limits without calling OnChanged.
func (s *RangeSlider) SetRange(min, max, low, high float64) {
	s.Min, s.Max, s.Low, s.High = min, max, low, high
	s.Refresh()
}

const handleSize = 14

// valueAt maps an x position to a value.
func (s *RangeSlider) valueAt(x float32) float64 {
	w := float64(s.Size().Width - handleSize)
	if w <= 0 || s.Max <= s.Min {
		return s.Min
	}
	t := math.Min(math.Max(float64(x-handleSize/2)/w, 0), 1)
	return s.Min + t*(s.Max-s.Min)
}

// posOf maps a value to the x of its handle's centre.
func (s *RangeSlider) posOf(v float64) float32 {
	w := float64(s.Size().Width - handleSize)
	if s.Max <= s.Min {
		return handleSize / 2
	}
	t := math.Min(math.Max((v-s.Min)/(s.Max-s.Min), 0), 1)
	return float32(t*w) + handleSize/2
}

func (s *RangeSlider) nearHigh(x float32) bool {
	dl, dh := math.Abs(float64(x-s.posOf(s.Low))), math.Abs(float64(x-s.posOf(s.High)))
	if dl == dh { // handles together: pick by side
		return x > s.posOf(s.High)
	}
	return dh < dl
}

func (s *RangeSlider) moveTo(high bool, x float32) {
	v := s.valueAt(x)
	if high {
		s.High = math.Max(v, s.Low)
	} else {
		s.Low = math.Min(v, s.High)
	}
	s.Refresh()
	if s.OnChanged != nil {
		s.OnChanged(s.Low, s.High)
	}
}

// Tapped moves the nearer handle to the tap.
func (s *RangeSlider) Tapped(e *fyne.PointEvent) { s.moveTo(s.nearHigh(e.Position.X), e.Position.X) }

// Dragged moves the handle picked when the drag started.
func (s *RangeSlider) Dragged(e *fyne.DragEvent) {
	if !s.dragging {
		// Where the drag started: the position minus this first step.
		s.dragHigh = s.nearHigh(e.Position.X - e.Dragged.DX)
		s.dragging = true
	}
	s.moveTo(s.dragHigh, e.Position.X)
}

// DragEnd ends a drag.
func (s *RangeSlider) DragEnd() { s.dragging = false }

// CreateRenderer draws the track, the selected span and two handles.
func (s *RangeSlider) CreateRenderer() fyne.WidgetRenderer {
	r := &rangeRenderer{s: s,
		track: canvas.NewRectangle(theme.Color(theme.ColorNameInputBorder)),
		span:  canvas.NewRectangle(theme.Color(theme.ColorNamePrimary)),
		lo:    canvas.NewCircle(theme.Color(theme.ColorNameForeground)),
		hi:    canvas.NewCircle(theme.Color(theme.ColorNameForeground)),
	}
	return r
}

type rangeRenderer struct {
	s           *RangeSlider
	track, span *canvas.Rectangle
	lo, hi      *canvas.Circle
}

func (r *rangeRenderer) Layout(size fyne.Size) {
	y := size.Height / 2
	r.track.Move(fyne.NewPos(handleSize/2, y-2))
	r.track.Resize(fyne.NewSize(size.Width-handleSize, 4))
	xl, xh := r.s.posOf(r.s.Low), r.s.posOf(r.s.High)
	r.span.Move(fyne.NewPos(xl, y-2))
	r.span.Resize(fyne.NewSize(xh-xl, 4))
	r.lo.Move(fyne.NewPos(xl-handleSize/2, y-handleSize/2))
	r.lo.Resize(fyne.NewSize(handleSize, handleSize))
	r.hi.Move(fyne.NewPos(xh-handleSize/2, y-handleSize/2))
	r.hi.Resize(fyne.NewSize(handleSize, handleSize))
}

func (r *rangeRenderer) MinSize() fyne.Size { return fyne.NewSize(4*handleSize, handleSize+8) }

func (r *rangeRenderer) Refresh() {
	r.track.FillColor = theme.Color(theme.ColorNameInputBorder)
	r.span.FillColor = theme.Color(theme.ColorNamePrimary)
	r.lo.FillColor = theme.Color(theme.ColorNameForeground)
	r.hi.FillColor = theme.Color(theme.ColorNameForeground)
	r.Layout(r.s.Size())
	canvas.Refresh(r.s)
}

func (r *rangeRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.track, r.span, r.lo, r.hi}
}

func (r *rangeRenderer) Destroy() {}
