package viewer

// Methods only the viewer's tests call: they look into the dialogs on
// show and the play animation.

// Showing returns the title and button labels of the dialog of kind on
// show ("error", "unsaved", "remove", "save", "overwrite",
// "unknown-xml"), and whether there is one: for tests and scripts.
func (ds *Dialogs) Showing(kind string) (title string, buttons []string, ok bool) {
	m := ds.byKind[kind]
	if m == nil {
		return "", nil, false
	}
	for _, b := range m.buttons {
		buttons = append(buttons, b.Text)
	}
	return m.title, buttons, true
}

// Len returns how many dialogs are on show.
func (ds *Dialogs) Len() int { return len(ds.order) }

// Playing reports whether the play button is animating the slices.
func (v *Viewer) Playing() bool {
	return v.dims.player.playing()
}
