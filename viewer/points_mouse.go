package viewer

import (
	"math"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/viewer/model"
)

// EditMode is what the mouse does on the canvas to the selected points
// layer, as napari's points modes.
type EditMode int

// Edit modes. In Select mode a drag that starts on a selected point
// moves the selection (as napari's select mode does); Move mode moves it
// wherever the drag starts.
const (
	PanZoom EditMode = iota
	AddPoints
	SelectPoints
	MovePoints
)

var editModeNames = []string{"pan/zoom", "add", "select", "move"}

// String names the mode as the layer controls show it.
func (m EditMode) String() string { return editModeNames[m] }

type dragKind int

const (
	dragNone dragKind = iota
	dragPan
	dragBox
	dragMove
)

// editState is the viewer's points-editing state: the mode, the shift
// key at the last press, and a box selection or move in progress.
type editState struct {
	// v is the viewer whose panels the editing acts in.
	v     *Viewer
	mode  EditMode
	shift bool
	drag  dragKind
	panel *sliceView
	// from is where the drag started, to where it is now (panel
	// positions).
	from, to fyne.Position
	// press is where the last primary press was; clicks counts the
	// clicks MouseUp acted on whose Tapped has not come yet.
	press  fyne.Position
	clicks int
	// moveIdx and moveFrom: the points being moved and their states when
	// the drag started.
	moveIdx  []int32
	moveFrom []model.PointState
	// made counts the points layers added, for their default colours.
	made int
	// walk is the class the curation walk visits (-1: every point).
	walk int
	// onMode are called when the mode changes (the layer controls).
	onMode func()
}

// setMode sets the edit mode (it applies to the selected points layer).
func (ed *editState) setMode(m EditMode) {
	if m == ed.mode {
		return
	}
	ed.mode = m
	if ed.onMode != nil {
		ed.onMode()
	}
	ed.v.bar.update(ed.v)
}

// layer returns the selected points layer when it is visible and
// shown in panel p (any panel for nil), else nil.
func (ed *editState) layer(p *sliceView) *PointsLayer {
	v := ed.v
	pl, ok := pointsLayer(v.stack.Selected())
	if !ok || !pl.Visible() {
		return nil
	}
	if p != nil && p.group != nil {
		found := false
		for _, l := range p.group {
			found = found || l == Layer(pl)
		}
		if !found {
			return nil
		}
	}
	return pl
}

// dataAt returns the continuous data (row, col) under panel position
// pos: voxel r covers [r, r+1), and a point at integer r is drawn at its
// centre.
func (s *sliceView) dataAt(pos fyne.Position) (row, col float64) {
	sz := s.Size()
	x, y := s.xf().ToData(float64(pos.X), float64(pos.Y), float64(sz.Width), float64(sz.Height))
	return y - 0.5, x - 0.5
}

// pickRadius is how near, in data pixels, a click must be to a point to
// hit it: the marker's radius, at least 6 screen pixels.
func (s *sliceView) pickRadius(pl *PointsLayer) float64 {
	t := s.xf()
	scr := math.Sqrt(t.Scale * t.RowScale())
	return math.Max(pl.size/2, 6/scr)
}

// MouseDown records the modifiers of a press (shift-click adds to the
// selection) and where it was. It makes the panel desktop.Mouseable.
func (s *sliceView) MouseDown(e *desktop.MouseEvent) {
	s.v.edit.shift = e.Modifier&fyne.KeyModifierShift != 0
	if e.Button == desktop.MouseButtonPrimary {
		s.v.edit.press = e.Position
	}
}

// clickSlop is how far, in panel units, the pointer may move between
// press and release for the two to be a click rather than a drag.
const clickSlop = 3

// MouseUp acts on a click in the add and select modes at once. The
// panel also takes double taps (reset view), so the desktop driver
// holds its Tapped back for the double-tap delay (300 ms) to see
// whether a second click follows: adding a hundred cells would lag at
// every click. The Tapped or DoubleTapped that follows is then skipped
// (edit.clicks counts the clicks acted on).
func (s *sliceView) MouseUp(e *desktop.MouseEvent) {
	d := e.Position.Subtract(s.v.edit.press)
	if e.Button != desktop.MouseButtonPrimary || s.ortho != nil || math.Hypot(float64(d.X), float64(d.Y)) > clickSlop {
		return
	}
	if s.v.edit.tapped(s, &e.PointEvent) {
		s.v.edit.clicks++
	}
}

// clickDone reports whether a Tapped (n = 1) or DoubleTapped (n = 2)
// is of clicks MouseUp already acted on, and counts them off.
func (ed *editState) clickDone(n int) bool {
	v := ed.v
	if v.edit.clicks == 0 {
		return false
	}
	v.edit.clicks = max(0, v.edit.clicks-n)
	return true
}

// TypedShortcut passes the panel's shortcuts (undo, redo) to the viewer.
func (s *sliceView) TypedShortcut(sc fyne.Shortcut) { s.v.edit.shortcut(sc) }

// tapped handles a click in the add and select modes and reports
// whether it did.
func (ed *editState) tapped(p *sliceView, e *fyne.PointEvent) bool {
	v := ed.v
	pl := ed.layer(p)
	if pl == nil || v.edit.mode == PanZoom {
		return false
	}
	row, col := p.dataAt(e.Position)
	switch v.edit.mode {
	case AddPoints:
		// A whole voxel of the plane on show, as cellfinder's markers.
		z, y, x := model.FromCoords(v.at.Axis(), float64(v.at.Slice()), math.Floor(row+0.5), math.Floor(col+0.5))
		i := pl.AddPoint(Point{Z: z, Y: y, X: x, Type: pl.TypeName(points.Cell)})
		pl.MarkReviewed(i) // the user put it there: nothing to review
		pl.SetSelected(false, i)
	case SelectPoints, MovePoints:
		// Points of the plane on show only, as napari picks: the fainter
		// markers of the planes around it are context, not targets.
		i := pl.Pick(v.at.Axis(), v.at.Slice(), 0, row, col, p.pickRadius(pl))
		switch {
		case v.edit.shift && i >= 0:
			pl.ToggleSelected(i)
		case v.edit.shift:
		case i >= 0:
			pl.SetSelected(false, i)
		default:
			pl.SetSelected(false)
		}
	}
	v.edit.shift = false
	return true
}

// dragged handles a drag in the select and move modes (a box, or
// moving the selection) and reports whether it did; in the other modes
// the drag pans.
func (ed *editState) dragged(p *sliceView, e *fyne.DragEvent) bool {
	v := ed.v
	pl := ed.layer(p)
	if ed.drag == dragPan || pl == nil || ed.mode == PanZoom || ed.mode == AddPoints {
		ed.drag = dragPan
		return false
	}
	if ed.drag == dragNone {
		ed.panel = p
		ed.from = e.Position.Subtract(e.Dragged)
		row, col := p.dataAt(ed.from)
		hit := pl.Pick(v.at.Axis(), v.at.Slice(), 0, row, col, p.pickRadius(pl))
		onSelected := hit >= 0 && slices.Contains(pl.Selected(), hit)
		switch {
		case ed.mode == MovePoints || onSelected:
			if ed.mode == MovePoints && hit >= 0 && !onSelected {
				pl.SetSelected(false, hit)
			}
			ed.drag = dragMove
			ed.moveIdx = pl.SelectedIdx()
			ed.moveFrom = pl.States(ed.moveIdx)
		default:
			ed.drag = dragBox
		}
	}
	if p != ed.panel {
		return true
	}
	ed.to = e.Position
	switch ed.drag {
	case dragBox:
		v.redraw()
	case dragMove:
		r0, c0 := p.dataAt(ed.from)
		r1, c1 := p.dataAt(ed.to)
		// Whole voxels: points stay on the voxel grid they were on.
		dz, dy, dx := model.FromCoords(v.at.Axis(), 0, math.Round(r1-r0), math.Round(c1-c0))
		next := make([]model.PointState, len(ed.moveFrom))
		for j, st := range ed.moveFrom {
			st.P.Z, st.P.Y, st.P.X = st.P.Z+dz, st.P.Y+dy, st.P.X+dx
			next[j] = st
		}
		pl.Preview(ed.moveIdx, next)
		v.redraw()
	}
	return true
}

// dragEnd ends a box selection (selecting what it holds) or a move
// (one undoable edit).
func (ed *editState) dragEnd(p *sliceView) {
	v := ed.v
	kind := ed.drag
	ed.drag = dragNone
	pl := ed.layer(p)
	if pl == nil || p != ed.panel {
		return
	}
	switch kind {
	case dragBox:
		r0, c0 := p.dataAt(ed.from)
		r1, c1 := p.dataAt(ed.to)
		// The plane on show only: a box never takes points the user
		// cannot see on it (napari's select mode does the same).
		got := pl.InBox(nil, v.at.Axis(), v.at.Slice(), 0,
			math.Min(r0, r1), math.Min(c0, c1), math.Max(r0, r1), math.Max(c0, c1))
		pl.SetSelected(ed.shift, got...)
	case dragMove:
		after := pl.States(ed.moveIdx)
		if !slices.Equal(after, ed.moveFrom) {
			pl.Commit(ed.moveIdx, ed.moveFrom, after)
		}
		ed.moveIdx, ed.moveFrom = nil, nil
	}
	ed.shift = false
	ed.panel = nil
	v.redraw()
}

// paint draws the box of a box selection in progress over panel
// frame f.
func (ed *editState) paint(f *frame, p *sliceView, ps float64) {
	if ed.drag != dragBox || p != ed.panel {
		return
	}
	x0, y0 := int(math.Min(float64(ed.from.X), float64(ed.to.X))*ps), int(math.Min(float64(ed.from.Y), float64(ed.to.Y))*ps)
	x1, y1 := int(math.Max(float64(ed.from.X), float64(ed.to.X))*ps), int(math.Max(float64(ed.from.Y), float64(ed.to.Y))*ps)
	const c = 0xffffffff
	for x := max(x0, 0); x <= min(x1, f.w-1); x++ {
		for _, y := range [2]int{y0, y1} {
			if y >= 0 && y < f.h && (x/4)%2 == 0 {
				f.px[y*f.w+x] = c
			}
		}
	}
	for y := max(y0, 0); y <= min(y1, f.h-1); y++ {
		for _, x := range [2]int{x0, x1} {
			if x >= 0 && x < f.w && (y/4)%2 == 0 {
				f.px[y*f.w+x] = c
			}
		}
	}
}

// key handles the points keys and reports whether it did: 1-4 the
// modes, Delete/Backspace deletes the selection, C, N and U class it,
// Escape clears it, '.' and ',' walk to the next and previous point.
func (ed *editState) key(e *fyne.KeyEvent) bool {
	v := ed.v
	pl := ed.layer(nil)
	if pl == nil {
		return false
	}
	switch e.Name {
	case fyne.Key1:
		v.edit.setMode(PanZoom)
	case fyne.Key2:
		v.edit.setMode(AddPoints)
	case fyne.Key3:
		v.edit.setMode(SelectPoints)
	case fyne.Key4:
		v.edit.setMode(MovePoints)
	case fyne.KeyDelete, fyne.KeyBackspace:
		pl.DeleteSelected()
	case fyne.KeyC:
		pl.SetSelectedClass(points.Cell)
	case fyne.KeyN:
		pl.SetSelectedClass(points.NonCell)
	case fyne.KeyU:
		pl.SetSelectedClass(points.Unknown)
	case fyne.KeyEscape:
		pl.SetSelected(false)
	case fyne.KeyPeriod:
		v.Curation().Next(+1)
	case fyne.KeyComma:
		v.Curation().Next(-1)
	default:
		return false
	}
	return true
}

// Shortcuts of the points edits.
var (
	undoShortcut = &fyne.ShortcutUndo{}
	redoShortcut = &desktop.CustomShortcut{KeyName: fyne.KeyZ, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
	saveShortcut = &desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierShortcutDefault}
)

// shortcut runs undo (Ctrl+Z), redo (Ctrl+Shift+Z, Ctrl+Y), save
// (Ctrl+S) and save as (Ctrl+Shift+S) on the selected points layer.
func (ed *editState) shortcut(sc fyne.Shortcut) {
	v := ed.v
	pl, ok := pointsLayer(v.stack.Selected())
	if !ok {
		return
	}
	switch sc := sc.(type) {
	case *fyne.ShortcutUndo:
		pl.Undo()
	case *fyne.ShortcutRedo:
		pl.Redo()
	case *desktop.CustomShortcut:
		switch {
		case sc.KeyName == fyne.KeyZ && sc.Modifier&fyne.KeyModifierShift != 0:
			pl.Redo()
		case sc.KeyName == fyne.KeyS && sc.Modifier&fyne.KeyModifierShift == 0:
			v.save.saveSelected()
		case sc.KeyName == fyne.KeyS:
			v.save.saveSelectedAs()
		}
	}
}

// addShortcuts lets the window's canvas take the edit shortcuts when
// no widget holds the keyboard.
func (ed *editState) addShortcuts() {
	v := ed.v
	if v.win == nil {
		return
	}
	c := v.win.Canvas()
	for _, sc := range []fyne.Shortcut{undoShortcut, redoShortcut, &fyne.ShortcutRedo{}, saveShortcut, saveAsShortcut} {
		c.AddShortcut(sc, ed.shortcut)
	}
}
