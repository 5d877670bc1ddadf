package viewer

import (
	"bytes"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/points"
	"github.com/voxlab/voxlab/processing/volume"
)

// editHarness is a viewer with a blank 20 x 60 x 80 image and a points
// layer selected, driven as a user would: taps, drags, keys and
// shortcuts delivered to the panel's handlers.
type editHarness struct {
	*harness
	pl *PointsLayer
}

func newEditHarness(t *testing.T, pts []Point) *editHarness {
	h := newHarness(t)
	h.v.edit.addShortcuts()
	h.v.AddImage("img", memVolume(t, volume.Uint8, [3]int{20, 60, 80}, func(z, y, x int) float64 { return 0 }), ImageOptions{Contrast: [2]float64{0, 255}})
	pl := h.v.AddPoints("cells", pts, PointsOptions{Size: 4, OutOfSlice: 1})
	h.v.Dims().SetSlice(5)
	h.settle()
	return &editHarness{h, pl}
}

// screen returns the panel position drawing data voxel (row, col).
func (h *editHarness) screen(row, col float64) fyne.Position {
	p := h.panel()
	sz := p.Size()
	x, y := p.xf().ToScreen(col+0.5, row+0.5, float64(sz.Width), float64(sz.Height))
	return fyne.NewPos(float32(x), float32(y))
}

// click taps the panel at voxel (row, col), with shift held if asked.
func (h *editHarness) click(row, col float64, shift bool) {
	p := h.panel()
	if shift {
		p.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: h.screen(row, col)}, Modifier: fyne.KeyModifierShift})
	}
	test.TapAt(p, h.screen(row, col))
	h.settle()
}

// drag drags across the panel from voxel (r0, c0) to (r1, c1) in a few
// steps, as the desktop driver reports a drag: each event carries the
// pointer's current position and the move since the last event. (Fyne's
// test.Drag sends one event at the start position, which is not what a
// drag looks like to the widget.)
func (h *editHarness) drag(r0, c0, r1, c1 float64, shift bool) {
	p := h.panel()
	from, to := h.screen(r0, c0), h.screen(r1, c1)
	if shift {
		p.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: from}, Modifier: fyne.KeyModifierShift})
	}
	const steps = 4
	prev := from
	for i := 1; i <= steps; i++ {
		cur := fyne.NewPos(from.X+(to.X-from.X)*float32(i)/steps, from.Y+(to.Y-from.Y)*float32(i)/steps)
		p.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: cur}, Dragged: fyne.NewDelta(cur.X-prev.X, cur.Y-prev.Y)})
		prev = cur
	}
	p.DragEnd()
	h.settle()
}

// key types a key to whatever holds the keyboard (the panel after a
// click), else to the window's canvas.
func (h *editHarness) key(k fyne.KeyName) {
	e := &fyne.KeyEvent{Name: k}
	if f := h.w.Canvas().Focused(); f != nil {
		f.TypedKey(e)
	} else {
		h.v.typedKey(e)
	}
	h.settle()
}

// shortcut sends a shortcut as the desktop driver does: to the focused
// widget when it takes shortcuts, else to the canvas.
func (h *editHarness) shortcut(sc fyne.Shortcut) {
	if f, ok := h.w.Canvas().Focused().(fyne.Shortcutable); ok {
		f.TypedShortcut(sc)
	} else {
		h.w.Canvas().(interface{ TypedShortcut(fyne.Shortcut) }).TypedShortcut(sc)
	}
	h.settle()
}

var (
	ctrlZ      = &fyne.ShortcutUndo{}
	ctrlShiftZ = &desktop.CustomShortcut{KeyName: fyne.KeyZ, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
)

func pt(z, y, x float64, typ string) Point { return Point{Z: z, Y: y, X: x, Type: typ} }

// TestEditSession adds, selects, moves, deletes and classes points with
// the mouse and keys, undoes and redoes every step, and saves; each
// state is held against the list of points a user would expect.
func TestEditSession(t *testing.T) {
	h := newEditHarness(t, []Point{pt(5, 10, 10, "cell"), pt(5, 30, 40, "cell"), pt(6, 50, 70, "artifact"), pt(12, 10, 10, "cell")})
	want := func(step string, pts ...Point) {
		t.Helper()
		if got := h.pl.Points(); !slices.Equal(got, pts) {
			t.Fatalf("%s: points %v, want %v", step, got, pts)
		}
	}
	orig := h.pl.Points()

	// Add: key 2, click at voxel (20, 25) of plane 5.
	h.click(1, 1, false) // in pan/zoom mode a click adds nothing
	h.key(fyne.Key2)
	if h.v.edit.mode != AddPoints || h.v.ctl.pts.mode.Selected != "add (2)" {
		t.Fatalf("mode %v, radio %q", h.v.edit.mode, h.v.ctl.pts.mode.Selected)
	}
	h.click(20, 25, false)
	added := pt(5, 20, 25, "cell")
	want("add", append(slices.Clone(orig), added)...)
	if !h.pl.Modified() || !strings.Contains(test.RenderObjectToMarkup(h.v.list), "cells  • unsaved") {
		t.Errorf("an added point does not mark the layer unsaved in the layer list")
	}

	// Select: click one, shift-click another, then a box around two.
	h.key(fyne.Key3)
	h.click(10, 10, false)
	if got := h.pl.Selected(); !slices.Equal(got, []int{0}) {
		t.Fatalf("click selected %v", got)
	}
	h.click(30, 40, true)
	if got := h.pl.Selected(); !slices.Equal(got, []int{0, 1}) {
		t.Fatalf("shift-click selected %v", got)
	}
	h.click(30, 40, true) // shift-click again takes it out
	if got := h.pl.Selected(); !slices.Equal(got, []int{0}) {
		t.Fatalf("second shift-click left %v", got)
	}
	h.drag(15, 20, 35, 45, false) // box holding (20,25) and (30,40)
	if got := h.pl.Selected(); !slices.Equal(got, []int{1, 4}) {
		t.Fatalf("box selected %v, want [1 4]", got)
	}
	// The plane-6 point is drawn (±1 plane) but not on the plane on
	// show: a box around it takes nothing (napari's select mode).
	h.drag(45, 65, 55, 75, true)
	if got := h.pl.Selected(); !slices.Equal(got, []int{1, 4}) {
		t.Fatalf("shift-box around a point of the next plane selected %v, want [1 4]", got)
	}
	if !strings.Contains(h.v.ctl.pts.count.Text, "2 selected") {
		t.Errorf("controls %q", h.v.ctl.pts.count.Text)
	}

	// Move: drag a selected point 5 rows down and 3 columns right.
	h.drag(30, 40, 35, 43, false)
	moved := []Point{orig[0], pt(5, 35, 43, "cell"), orig[2], orig[3], pt(5, 25, 28, "cell")}
	want("move", moved...)

	// Type: N makes them non-cells with the layer's own name for it.
	h.key(fyne.KeyN)
	classed := []Point{orig[0], pt(5, 35, 43, "artifact"), orig[2], orig[3], pt(5, 25, 28, "artifact")}
	want("class", classed...)
	if c := h.pl.Counts(); c[points.NonCell] != 3 || c[points.Cell] != 2 {
		t.Errorf("counts %v", c)
	}
	if !strings.Contains(h.v.bar.info.Text, "cells: 3 in view (1 cell, 2 non-cell) of 5 (2 cell, 3 non-cell)") {
		t.Errorf("status %q", h.v.bar.info.Text)
	}

	// Delete.
	h.key(fyne.KeyDelete)
	want("delete", orig[0], orig[2], orig[3])
	if h.pl.Len() != 3 || h.pl.NumSelected() != 0 {
		t.Errorf("after delete: %d points, %d selected", h.pl.Len(), h.pl.NumSelected())
	}

	// Undo each step back to the file as opened, then redo them all.
	for i, w := range [][]Point{classed, moved, append(slices.Clone(orig), added), orig} {
		h.shortcut(ctrlZ)
		if got := h.pl.Points(); !slices.Equal(got, w) {
			t.Fatalf("undo %d: %v, want %v", i+1, got, w)
		}
	}
	if h.pl.Modified() {
		t.Error("undone to the file's state, still modified")
	}
	h.shortcut(ctrlZ) // nothing left: no change
	want("extra undo", orig...)
	for i, w := range [][]Point{append(slices.Clone(orig), added), moved, classed, {orig[0], orig[2], orig[3]}} {
		h.shortcut(ctrlShiftZ)
		if got := h.pl.Points(); !slices.Equal(got, w) {
			t.Fatalf("redo %d: %v, want %v", i+1, got, w)
		}
	}

	// Save (Ctrl+S) to the layer's file as XML: the bytes cellfinder's
	// writer gives for those points, through a temporary file.
	path := filepath.Join(t.TempDir(), "curated.xml")
	h.pl.path = path
	h.shortcut(saveShortcut)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ref bytes.Buffer
	points.WriteXML(&ref, []Point{orig[0], orig[2], orig[3]})
	if !bytes.Equal(got, ref.Bytes()) || h.pl.Modified() {
		t.Errorf("saved %q (modified %v)", got, h.pl.Modified())
	}
	back, err := points.ReadXML(path)
	if err != nil || len(back) != 3 || back[0].Type != points.TypeNonCell || back[1].Type != points.TypeCell {
		t.Errorf("read back %v, %v", back, err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestUndoAddThenEdit: a redo stack is dropped by a new edit, and an
// undone add leaves no point behind to select or save.
func TestUndoAddThenEdit(t *testing.T) {
	h := newEditHarness(t, nil)
	h.key(fyne.Key2)
	h.click(10, 10, false)
	h.click(20, 20, false)
	h.shortcut(ctrlZ)
	if h.pl.Len() != 1 {
		t.Fatalf("%d points after undo", h.pl.Len())
	}
	h.key(fyne.Key3)
	h.drag(0, 0, 59, 79, false)
	if got := h.pl.Selected(); !slices.Equal(got, []int{0}) {
		t.Fatalf("box over everything selected %v", got)
	}
	h.key(fyne.KeyU)
	h.shortcut(ctrlShiftZ) // the undone add is gone for good
	if got := h.pl.Points(); !slices.Equal(got, []Point{pt(5, 10, 10, "unknown")}) {
		t.Errorf("points %v", got)
	}
}

// TestCurationWalk walks the points with '.' and ',': each step shows
// the point's plane, centres it in the view, selects it and counts it
// reviewed.
func TestCurationWalk(t *testing.T) {
	pts := []Point{pt(9, 40, 70, "unknown"), pt(2, 30, 20, "unknown"), pt(9, 10, 10, "cell"), pt(2, 5, 60, "unknown"), pt(15, 50, 5, "unknown")}
	h := newEditHarness(t, pts)
	h.v.Dims().SetSlice(0)
	h.v.Curation().SetWalk(int(points.Unknown))
	order := []int{3, 1, 0, 4} // plane, then row: (2,5), (2,30), (9,40), (15,50); the cell is skipped
	p := h.panel()
	sz := p.Size()
	for step, i := range order {
		h.key(fyne.KeyPeriod)
		if got := h.pl.Selected(); !slices.Equal(got, []int{i}) {
			t.Fatalf("step %d: selected %v, want [%d]", step, got, i)
		}
		if h.v.Dims().Slice() != int(pts[i].Z) {
			t.Errorf("step %d: slice %d, want %v", step, h.v.Dims().Slice(), pts[i].Z)
		}
		at := h.screen(pts[i].Y, pts[i].X)
		if dx, dy := at.X-sz.Width/2, at.Y-sz.Height/2; dx*dx+dy*dy > 1 {
			t.Errorf("step %d: point drawn at %v, not at the centre of %v", step, at, sz)
		}
		if got := h.v.ctl.pts.progress.Text; got != fmt.Sprintf("%d of 5 reviewed", step+1) {
			t.Errorf("step %d: progress %q", step, got)
		}
		if step == 1 {
			h.key(fyne.KeyC) // classed: it stays reviewed, is no longer unknown
		}
	}
	if h.v.Curation().Next(+1) {
		t.Error("walked past the last unknown point")
	}
	h.key(fyne.KeyComma)
	if got := h.pl.Selected(); !slices.Equal(got, []int{0}) {
		t.Errorf("back from the last: selected %v, want [0] (point 1 is a cell now)", got)
	}
	if !strings.Contains(h.v.bar.info.Text, "4 of 5 reviewed") {
		t.Errorf("status %q lacks the progress", h.v.bar.info.Text)
	}
}

// TestLayersDistinctColours: two points layers draw in different colours,
// each class in its own symbol, and a style set by the user is used.
func TestLayersDistinctColours(t *testing.T) {
	h := newEditHarness(t, []Point{pt(5, 20, 20, "cell")})
	other := h.v.AddPoints("truth", []Point{pt(5, 40, 60, "cell"), pt(5, 40, 20, "non-cell")}, PointsOptions{Size: 4, OutOfSlice: 1})
	h.settle()
	a, b := h.pl.Style().Face, other.Style().Face
	if a == b {
		t.Fatalf("both layers %v", a)
	}
	has := func(row, col float64, c color.NRGBA) int {
		p := h.panel()
		n := 0
		for dr := -3.0; dr <= 3; dr += 0.25 {
			for dc := -3.0; dc <= 3; dc += 0.25 {
				if got := h.pixelAt(p, row+dr, col+dc); got.R == c.R && got.G == c.G && got.B == c.B {
					n++
				}
			}
		}
		return n
	}
	if has(20, 20, a) == 0 || has(40, 60, b) == 0 || has(20, 20, b) > 0 || has(40, 60, a) > 0 {
		t.Errorf("layer colours not where their points are: %d %d %d %d", has(20, 20, a), has(40, 60, b), has(20, 20, b), has(40, 60, a))
	}
	// A cross and a ring of the same size cover different pixels.
	ring, cross := stencil(other.Style().Symbols[points.Cell], 20), stencil(other.Style().Symbols[points.NonCell], 20)
	if slices.Equal(ring.stroke, cross.stroke) {
		t.Error("cell and non-cell symbols are the same")
	}
	st := other.Style()
	st.Face = color.NRGBA{0xff, 0xff, 0xff, 0xff}
	other.SetStyle(st)
	h.settle()
	if has(40, 60, st.Face) == 0 {
		t.Error("the face colour set is not drawn")
	}
}

// TestOpenCellfinderXML: cellfinder's own XML opens as a points layer
// with its 56 cells, points outside the image are kept and reported.
func TestOpenCellfinderXML(t *testing.T) {
	h := newHarness(t)
	h.v.AddImage("img", memVolume(t, volume.Uint8, [3]int{16, 400, 400}, func(z, y, x int) float64 { return 0 }), ImageOptions{})
	l, err := h.v.Open("../processing/points/testdata/cellfinder_cell_classification.xml")
	if err != nil {
		t.Fatal(err)
	}
	pl := l.(*PointsLayer)
	h.settle()
	if c := pl.Counts(); pl.Len() != 56 || c[points.Cell] != 56 {
		t.Errorf("%d points, counts %v", pl.Len(), c)
	}
	// Independent count: markers with z ≥ 16, y ≥ 400 or x ≥ 400.
	want := 0
	for _, p := range pl.Points() {
		if p.Z >= 16 || p.Y >= 400 || p.X >= 400 {
			want++
		}
	}
	if want == 0 || !strings.Contains(h.v.ctl.pts.count.Text, fmt.Sprintf("%d points outside the volume", want)) {
		t.Errorf("controls %q, want %d outside", h.v.ctl.pts.count.Text, want)
	}
	if !strings.Contains(h.v.bar.info.Text, fmt.Sprintf("of 56 (56 cell), %d outside the volume", want)) {
		t.Errorf("status %q lacks the points outside", h.v.bar.info.Text)
	}
	if pl.Modified() || pl.Path() == "" {
		t.Errorf("opened layer: modified %v, path %q", pl.Modified(), pl.Path())
	}
	bad := filepath.Join(t.TempDir(), "bad.xml")
	os.WriteFile(bad, []byte("<CellCounter_Marker_File><Marker_Data><Marker_Type><Type>2</Type>\n<Marker><MarkerX>x</MarkerX></Marker></Marker_Type></Marker_Data></CellCounter_Marker_File>"), 0o644)
	n := len(h.v.Layers())
	if _, err := h.v.Open(bad); err == nil || !strings.Contains(err.Error(), "bad.xml line 2") || len(h.v.Layers()) != n {
		t.Errorf("bad XML: %v, %d layers (had %d)", err, len(h.v.Layers()), n)
	}
}

// TestConfirmUnsaved: quitting with unsaved edits asks first; after a
// save it quits at once.
func TestConfirmUnsaved(t *testing.T) {
	h := newEditHarness(t, []Point{pt(5, 10, 10, "cell")})
	quits := 0
	h.v.ConfirmUnsaved(func() { quits++ })
	if quits != 1 {
		t.Fatalf("no edits: quit ran %d times", quits)
	}
	h.pl.SetSelected(false, 0)
	h.pl.DeleteSelected()
	h.v.ConfirmUnsaved(func() { quits++ })
	if quits != 1 {
		t.Fatal("quit without asking about unsaved edits")
	}
	ov := h.w.Canvas().Overlays().Top()
	if ov == nil || !strings.Contains(test.RenderObjectToMarkup(ov), "cells") || !strings.Contains(test.RenderObjectToMarkup(ov), quitDiscard) {
		t.Fatalf("no question naming the layer on screen")
	}
	// The layer has no file yet: Save and quit is off.
	if b := unsavedButton(ov, quitSave); b == nil || !b.Disabled() {
		t.Fatalf("Save and quit offered for a layer without a file")
	}
	test.Tap(unsavedButton(ov, quitKeep))
	if quits != 1 || h.w.Canvas().Overlays().Top() != nil {
		t.Fatal("Keep editing quit or left the question")
	}
	path := filepath.Join(t.TempDir(), "c.csv")
	if err := h.pl.Save(path); err != nil {
		t.Fatal(err)
	}
	h.v.ConfirmUnsaved(func() { quits++ })
	if quits != 2 {
		t.Error("saved, but quit still asks")
	}
	// Edited again: Save and quit writes the file, then quits.
	h.pl.AddPoint(pt(3, 4, 5, "cell"))
	h.v.ConfirmUnsaved(func() { quits++ })
	test.Tap(unsavedButton(h.w.Canvas().Overlays().Top(), quitSave))
	got, err := points.ReadCSV(path)
	if quits != 3 || err != nil || !slices.Equal(got, []Point{pt(3, 4, 5, "cell")}) || h.pl.Modified() {
		t.Errorf("Save and quit: quit %d, file %v %v", quits, got, err)
	}
}

// unsavedButton returns the button labelled label in o (a dialog's or
// any other), or nil.
func unsavedButton(o fyne.CanvasObject, label string) *widget.Button {
	for _, x := range test.LaidOutObjects(o) {
		switch b := x.(type) {
		case *widget.Button:
			if b.Text == label {
				return b
			}
		case *keyButton:
			if b.Text == label {
				return &b.Button
			}
		}
	}
	return nil
}

// TestClickActsOnMouseUp: in add mode a click adds its point on the
// release, without waiting for the desktop driver's delayed Tapped (held
// back for the double-tap delay), and the Tapped or DoubleTapped that
// follows adds nothing more; a press and release far apart (a drag)
// adds nothing.
func TestClickActsOnMouseUp(t *testing.T) {
	h := newEditHarness(t, nil)
	h.key(fyne.Key2)
	p := h.panel()
	press := func(row, col float64) *fyne.PointEvent {
		ev := &desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: h.screen(row, col)}, Button: desktop.MouseButtonPrimary}
		p.MouseDown(ev)
		p.MouseUp(ev)
		return &ev.PointEvent
	}
	ev := press(10, 10)
	if got := h.pl.Points(); !slices.Equal(got, []Point{pt(5, 10, 10, "cell")}) {
		t.Fatalf("after the release: points %v, want the one clicked", got)
	}
	p.Tapped(ev)
	if n := h.pl.Len(); n != 1 {
		t.Fatalf("the delayed Tapped added a point again: %d points", n)
	}
	press(20, 20)
	ev = press(30, 30)
	p.DoubleTapped(ev) // two quick clicks arrive as one double tap
	if got := h.pl.Points(); !slices.Equal(got, []Point{pt(5, 10, 10, "cell"), pt(5, 20, 20, "cell"), pt(5, 30, 30, "cell")}) {
		t.Fatalf("after a double click: points %v", got)
	}
	p.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: h.screen(40, 10)}, Button: desktop.MouseButtonPrimary})
	p.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: h.screen(40, 60)}, Button: desktop.MouseButtonPrimary})
	if n := h.pl.Len(); n != 3 {
		t.Errorf("a press and release far apart added a point: %d points", n)
	}
	// A tap the release did not act on (the test driver's, or one in
	// pan/zoom mode) still adds as before.
	test.TapAt(p, h.screen(50, 50))
	if n := h.pl.Len(); n != 4 {
		t.Errorf("a tap after the releases: %d points, want 4", n)
	}
}
