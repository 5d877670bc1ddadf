package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// PanelScroll returns the vertical scroller of a side panel (the layer
// controls, the processing panel's form, the plots). The mouse wheel
// scrolls it wherever the pointer is: Fyne gives the wheel to the
// innermost scrollable object under the pointer, and every entry holds a
// scroller of its own that takes the wheel and, its text fitting, does
// nothing with it; a wheelCatcher stacked over the content is found
// after them and hands the wheel to the panel. The content is inset by
// the scroll bar's width, so the bar never covers it.
func PanelScroll(content fyne.CanvasObject) *container.Scroll {
	s := container.NewVScroll(nil)
	w := &wheelCatcher{target: s}
	w.ExtendBaseWidget(w)
	s.Content = container.NewStack(container.New(scrollInset{}, content), w)
	return s
}

// wheelCatcher passes wheel events to its target. It is transparent and
// handles nothing else (it is not tappable, hoverable or draggable), so
// clicks, typing and hovering reach the widgets below it.
type wheelCatcher struct {
	widget.BaseWidget
	target fyne.Scrollable
}

// Scrolled scrolls the target.
func (w *wheelCatcher) Scrolled(e *fyne.ScrollEvent) { w.target.Scrolled(e) }

// CreateRenderer draws nothing.
func (w *wheelCatcher) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewWithoutLayout())
}

// scrollInset lays its objects out leaving the scroll bar's width free
// at the right.
type scrollInset struct{}

func (scrollInset) bar() float32 { return theme.Size(theme.SizeNameScrollBar) }

// Layout gives every object the width less the bar.
func (l scrollInset) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(fyne.NewSize(max(size.Width-l.bar(), 0), size.Height))
	}
}

// MinSize is the largest object's, and the bar.
func (l scrollInset) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var m fyne.Size
	for _, o := range objs {
		m = m.Max(o.MinSize())
	}
	return m.AddWidthHeight(l.bar(), 0)
}
