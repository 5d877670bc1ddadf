package panel

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/internal/uitest"
	"github.com/voxlab/voxlab/viewer"
	"github.com/voxlab/voxlab/widgets"
)

// viewTabs returns the tabs of v's centre: "View", then those added with
// AddTab.
func viewTabs(t *testing.T, v *viewer.Viewer) []*container.TabItem {
	t.Helper()
	return viewAppTabs(t, v).Items
}

// viewAppTabs returns v's centre: the tabs whose first is "View".
func viewAppTabs(t *testing.T, v *viewer.Viewer) *container.AppTabs {
	t.Helper()
	var found *container.AppTabs
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *container.AppTabs:
			if len(x.Items) > 0 && x.Items[0].Text == "View" {
				found = x
			}
		case *container.Split:
			walk(x.Leading)
			walk(x.Trailing)
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		}
	}
	walk(v.Content())
	if found == nil {
		t.Fatal("the viewer has no View tab")
	}
	return found
}

// findButton returns the button labelled text among the objects of o's
// containers.
func findButton(t *testing.T, o fyne.CanvasObject, text string) *widget.Button {
	t.Helper()
	return uitest.FindButton(t, o, text)
}

// themedHeadless is a headless viewer in the app theme, in a w x h
// window of a test app (returned too, to resize), closed when the test
// ends.
func themedHeadless(t *testing.T, w, h float32) (*viewer.Headless, fyne.Window) {
	test.NewTempApp(t).Settings().SetTheme(widgets.Theme())
	win := test.NewTempWindow(t, nil)
	hl := viewer.NewHeadless(win)
	win.Resize(fyne.NewSize(w, h))
	t.Cleanup(hl.Close)
	return hl, win
}
