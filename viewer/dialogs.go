package viewer

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The viewer's dialogs answer the keyboard as desktop dialogs do: Enter
// (or Return, or Space on the focused button) presses the focused
// button, which is the default one when the dialog opens; Escape
// presses the one that leaves things as they were; Tab moves between
// the buttons. Fyne's own dialogs ignore all three (and let the keys
// reach the canvas under them: an arrow key stepped the slice behind an
// error). At most one dialog of each kind is on show: a second error
// replaces the first instead of stacking on it.

// Kinds of dialog: one of each at a time.
const (
	dlgError      = "error"
	dlgUnsaved    = "unsaved"
	dlgRemove     = "remove"
	dlgSave       = "save"
	dlgOverwrite  = "overwrite"
	dlgUnknownXML = "unknown-xml"
)

// modal is a dialog on show.
type modal struct {
	kind    string
	title   string
	d       *dialog.CustomDialog
	buttons []*keyButton
	// def and esc are the buttons Enter and Escape press when no button
	// has the keyboard.
	def, esc *keyButton
	// keep, when set, takes the keys first (an entry of the dialog).
	keep fyne.Focusable
}

// keyButton is a dialog button that presses on Enter, Return and Space
// and passes Escape to its dialog.
type keyButton struct {
	widget.Button
	m *modal
}

// TypedKey presses the button on Enter, Return or Space; Escape presses
// the dialog's cancelling button.
func (b *keyButton) TypedKey(e *fyne.KeyEvent) {
	switch e.Name {
	case fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace:
		if !b.Disabled() && b.OnTapped != nil {
			b.OnTapped()
		}
	case fyne.KeyEscape:
		if b.m != nil && b.m.esc != nil {
			b.m.esc.OnTapped()
		}
	default:
		b.Button.TypedKey(e)
	}
}

// DialogButton is one button of a dialog: its label, what it does
// (after the dialog closes, unless Stay is set), and its look.
type DialogButton struct {
	Label      string
	Icon       fyne.Resource
	Do         func()
	Importance widget.Importance
	Disabled   bool
	// Stay keeps the dialog open when pressed (Do closes it itself).
	Stay bool
}

// Dialogs are the viewer's dialogs on show over win, by kind and
// oldest first, and the last error shown. Use them on the UI goroutine.
type Dialogs struct {
	win    fyne.Window
	byKind map[string]*modal
	order  []*modal
	// status shows a line in the status bar; lastErr is the last error
	// shown.
	status  func(string)
	lastErr string
}

// Dialogs returns the viewer's dialogs.
func (v *Viewer) Dialogs() *Dialogs { return &v.dlg }

// open shows a dialog of kind (replacing one of that kind on show)
// with content and buttons, left to right; def is the index of the
// button Enter presses, esc that of the button Escape presses (-1:
// none). It returns the dialog.
func (ds *Dialogs) open(kind, title string, content fyne.CanvasObject, buttons []DialogButton, def, esc int) *modal {
	if old := ds.byKind[kind]; old != nil {
		old.hide(ds)
	}
	m := &modal{kind: kind, title: title}
	var objs []fyne.CanvasObject
	for _, bd := range buttons {
		b := &keyButton{m: m}
		b.Text, b.Icon, b.Importance = bd.Label, bd.Icon, bd.Importance
		b.ExtendBaseWidget(b)
		do, stay := bd.Do, bd.Stay
		b.OnTapped = func() {
			if !stay {
				m.hide(ds)
			}
			if do != nil {
				do()
			}
		}
		if bd.Disabled {
			b.Disable()
		}
		m.buttons = append(m.buttons, b)
		objs = append(objs, b)
	}
	if def >= 0 && def < len(m.buttons) {
		m.def = m.buttons[def]
	}
	if esc >= 0 && esc < len(m.buttons) {
		m.esc = m.buttons[esc]
	}
	m.d = dialog.NewCustomWithoutButtons(title, content, ds.win)
	m.d.SetButtons(objs)
	m.d.SetOnClosed(func() { ds.forget(m) })
	m.d.Resize(fyne.NewSize(dialogWidth, 0))
	if ds.byKind == nil {
		ds.byKind = map[string]*modal{}
	}
	ds.byKind[kind] = m
	ds.order = append(ds.order, m)
	m.d.Show()
	m.focus(ds.win)
	return m
}

// focus gives the keyboard to the dialog's entry, else its default
// button (else its first enabled one).
func (m *modal) focus(win fyne.Window) {
	if win == nil {
		return
	}
	if m.keep != nil {
		win.Canvas().Focus(m.keep)
		return
	}
	for _, b := range append([]*keyButton{m.def}, m.buttons...) {
		if b != nil && !b.Disabled() {
			win.Canvas().Focus(b)
			return
		}
	}
}

// hide closes the dialog.
func (m *modal) hide(ds *Dialogs) {
	m.d.Hide()
	ds.forget(m)
}

// forget drops m from the dialogs on show.
func (ds *Dialogs) forget(m *modal) {
	if ds.byKind[m.kind] == m {
		delete(ds.byKind, m.kind)
	}
	ds.order = slices.DeleteFunc(ds.order, func(x *modal) bool { return x == m })
}

// key gives a key typed while a dialog is on show and nothing in it
// has the keyboard (a click on its text took it away) to the newest
// dialog, and reports whether one took it: the canvas under a dialog
// gets no keys.
func (ds *Dialogs) key(e *fyne.KeyEvent) bool {
	if len(ds.order) == 0 {
		return false
	}
	m := ds.order[len(ds.order)-1]
	switch e.Name {
	case fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace:
		if m.def != nil && !m.def.Disabled() {
			m.def.OnTapped()
		}
	case fyne.KeyEscape:
		if m.esc != nil {
			m.esc.OnTapped()
		}
	}
	return true
}

// Button returns the button labelled label of the dialog of kind on
// show, or nil: tests tap it as a user would.
func (ds *Dialogs) Button(kind, label string) *widget.Button {
	if m := ds.byKind[kind]; m != nil {
		for _, b := range m.buttons {
			if b.Text == label {
				return &b.Button
			}
		}
	}
	return nil
}

// messageContent is a message, wrapped, beside an icon (nil: none).
func messageContent(icon fyne.Resource, msg string) fyne.CanvasObject {
	l := widget.NewLabel(msg)
	l.Wrapping = fyne.TextWrapWord
	if icon == nil {
		return l
	}
	return container.NewBorder(nil, nil, container.NewCenter(widget.NewIcon(icon)), nil, l)
}

// dialogWidth is the width of the viewer's message dialogs: wide enough
// for a path, narrow enough for a 1280 px window.
const dialogWidth = 560

// Show shows a question or a message that answers the keyboard as the
// viewer's own dialogs do: message beside icon (nil: none), the buttons
// left to right, Enter pressing buttons[def] and Escape buttons[esc]
// (-1: none). One dialog of each kind is on show: a new one replaces
// it. It returns a function that closes the dialog (for a question
// answered by other means).
func (ds *Dialogs) Show(kind, title string, icon fyne.Resource, message string, buttons []DialogButton, def, esc int) (hide func()) {
	m := ds.open(kind, title, messageContent(icon, message), buttons, def, esc)
	return func() { m.hide(ds) }
}

// ShowError shows err in the status bar and a dialog that Enter, Escape
// or Space closes. A new error replaces the one on show (errors do not
// stack up); the same error again leaves it as it is.
func (ds *Dialogs) ShowError(err error) {
	msg := err.Error()
	ds.status("error: " + msg)
	if msg == ds.lastErr && ds.byKind[dlgError] != nil {
		return
	}
	ds.lastErr = msg
	if ds.win == nil {
		return
	}
	ds.open(dlgError, "Error", messageContent(theme.ErrorIcon(), msg),
		[]DialogButton{{Label: "OK", Importance: widget.HighImportance}}, 0, 0)
}

// LastError returns the last error shown in the window ("" when none).
func (ds *Dialogs) LastError() string { return ds.lastErr }
