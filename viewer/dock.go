package viewer

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
)

// Dock is the room beside the view that the processing panel fills:
// tabs beside the "View" tab (plots, tables) and a side panel at the
// right of the canvas, hidden until its first tab comes. Use it on the
// UI goroutine.
type Dock struct {
	// tabs hold the view and the tabs added beside it; side is the
	// side panel's tabs; centre holds tabs, alone or split with side.
	tabs   *container.AppTabs
	side   *container.AppTabs
	centre *fyne.Container
}

// newDock returns a dock around view, the "View" tab.
func newDock(view fyne.CanvasObject) *Dock {
	d := &Dock{tabs: container.NewAppTabs(container.NewTabItem("View", view)), side: container.NewAppTabs()}
	d.centre = container.NewStack(d.tabs)
	return d
}

// Dock returns the room beside the view.
func (v *Viewer) Dock() *Dock { return v.dock }

// AddPanel adds a tab to the side panel at the right of the canvas (the
// processing panel), showing the panel when it was hidden.
func (d *Dock) AddPanel(title string, obj fyne.CanvasObject) {
	d.side.Append(container.NewTabItem(title, obj))
	if len(d.side.Items) == 1 {
		split := container.NewHSplit(d.tabs, d.side)
		// About 350 px of a 1280 px window: paths and the plan fit
		// beside a canvas still larger than both side panels.
		split.Offset = 0.64
		d.centre.Objects = []fyne.CanvasObject{split}
		d.centre.Refresh()
	}
}

// AddTab adds a tab beside the "View" tab (plots, tables) and returns it,
// so its content can be replaced as results arrive.
func (d *Dock) AddTab(title string, obj fyne.CanvasObject) *container.TabItem {
	t := container.NewTabItem(title, obj)
	d.tabs.Append(t)
	return t
}

// ShowTab brings a tab added with AddTab (or the view, with nil) to the
// front.
func (d *Dock) ShowTab(t *container.TabItem) {
	if t == nil {
		d.tabs.SelectIndex(0)
		return
	}
	d.tabs.Select(t)
}
