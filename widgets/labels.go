package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// WrapLabel returns a word-wrapped caption-sized label, as the viewer and
// the processing panel show help, messages and notes.
func WrapLabel(s string, imp widget.Importance) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = imp
	l.SizeName = theme.SizeNameCaptionText
	return l
}

// SetLabel sets a label's text, hiding it when empty.
func SetLabel(l *widget.Label, s string) {
	l.Hidden = s == ""
	l.SetText(s)
}

// CodeLabel returns a wrapped, selectable monospace label for text to be
// read and copied as written (a command line): at the text size, since
// the theme's monospace face at the caption size draws no underscores
// ("crop_planes" read "crop planes").
func CodeLabel(s string, imp widget.Importance) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = imp
	l.Selectable = true
	l.TextStyle.Monospace = true
	return l
}
