package viewer

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
)

// Docking: the side panel and the tabs beside the view that the
// processing panel adds.

// AddPanel adds a tab to the dock at the right of the canvas (the
// processing panel), showing the dock when it was hidden.
func (v *Viewer) AddPanel(title string, obj fyne.CanvasObject) {
	v.dock.Append(container.NewTabItem(title, obj))
	if len(v.dock.Items) == 1 {
		split := container.NewHSplit(v.tabs, v.dock)
		// About 350 px of a 1280 px window: paths and the plan fit
		// beside a canvas still larger than both side panels.
		split.Offset = 0.64
		v.centre.Objects = []fyne.CanvasObject{split}
		v.centre.Refresh()
	}
}

// AddTab adds a tab beside the "View" tab (plots, tables) and returns it,
// so its content can be replaced as results arrive.
func (v *Viewer) AddTab(title string, obj fyne.CanvasObject) *container.TabItem {
	t := container.NewTabItem(title, obj)
	v.tabs.Append(t)
	return t
}

// ShowTab brings a tab added with AddTab (or the view, with nil) to the
// front.
func (v *Viewer) ShowTab(t *container.TabItem) {
	if t == nil {
		v.tabs.SelectIndex(0)
		return
	}
	v.tabs.Select(t)
}
