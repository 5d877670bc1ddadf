// Package uitest holds helpers for the tests of the Fyne packages
// (viewer, panel). It is apart from internal/testutil, which the
// processing packages' tests import and which must not link Fyne.
package uitest

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// FindButton returns the button labelled text among the objects of o's
// containers, failing the test when there is none.
func FindButton(t testing.TB, o fyne.CanvasObject, text string) *widget.Button {
	t.Helper()
	var found *widget.Button
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Button:
			if x.Text == text {
				found = x
			}
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		}
	}
	walk(o)
	if found == nil {
		t.Fatalf("no button %q", text)
	}
	return found
}
