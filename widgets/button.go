package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// textInput is a focused widget the user types into (an entry): it keeps
// the keyboard when another control changes.
type textInput interface {
	fyne.Focusable
	SelectedText() string
}

// Refocus gives the keyboard of win's canvas back to the canvas after a
// click on a control, so that the arrow and Page keys step through slices
// again: a check, select, slider, radio or list takes the focus when
// tapped and would keep the keys, and a button leaves the focus where it
// was. Text being typed keeps the focus unless all is set (a button was
// pressed, or Enter ended the entry), so that a control changed by the
// program meanwhile does not take it away. A nil win does nothing.
func Refocus(win fyne.Window, all bool) {
	if win == nil {
		return
	}
	c := win.Canvas()
	f := c.Focused()
	if f == nil {
		return
	}
	if _, typing := f.(textInput); typing && !all {
		return
	}
	c.Unfocus()
}

// NewButton returns a button that gives win's keyboard back to the
// canvas (Refocus) before it acts, so that a dialog it opens keeps the
// focus it gives its own entry.
func NewButton(win fyne.Window, label string, icon fyne.Resource, tapped func()) *widget.Button {
	return widget.NewButtonWithIcon(label, icon, func() {
		Refocus(win, true)
		tapped()
	})
}
