package viewer

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/voxlab/voxlab/processing/points"
)

// press taps the button labelled label of the dialog of kind on show.
func (h *editHarness) press(kind, label string) {
	h.t.Helper()
	m := h.v.dlg.byKind[kind]
	if m == nil {
		h.t.Fatalf("no %s dialog on show (dialogs: %d)", kind, h.v.Dialogs().Len())
	}
	for _, b := range m.buttons {
		if b.Text == label {
			if b.Disabled() {
				h.t.Fatalf("%s dialog: %q is disabled", kind, label)
			}
			test.Tap(b)
			h.settle()
			return
		}
	}
	h.t.Fatalf("%s dialog has no %q button", kind, label)
}

// saveAs opens Save points as on the layer, types path (replacing what
// the dialog proposed) and presses Enter in the entry.
func (h *editHarness) saveAs(path string) *saveDialog {
	h.t.Helper()
	h.shortcut(saveAsShortcut)
	sd := h.v.save.shown
	if sd == nil || h.v.dlg.byKind[dlgSave] == nil {
		h.t.Fatal("Ctrl+Shift+S opened no Save points as dialog")
	}
	sd.path.SetText(path)
	h.key(fyne.KeyReturn) // the entry has the keyboard
	return sd
}

// readBack reads a points file, failing the test on error.
func readBack(t *testing.T, path string) []Point {
	t.Helper()
	pts, err := points.Read(path)
	if err != nil {
		t.Fatalf("read back %s: %v", path, err)
	}
	return pts
}

// TestRemoveUnsavedPointsLayerAsks: the layer list's trash button on a
// points layer with unsaved edits asks before the edits are lost: keep
// (Escape) leaves it, save and remove writes the file first, remove
// without saving removes it; an unedited layer goes at once.
func TestRemoveUnsavedPointsLayerAsks(t *testing.T) {
	h := newEditHarness(t, []Point{pt(5, 10, 10, "cell"), pt(5, 30, 30, "cell")})
	path := filepath.Join(t.TempDir(), "cells.csv")
	if err := h.pl.Save(path); err != nil {
		t.Fatal(err)
	}
	h.pl.SetSelected(false, 0)
	h.key(fyne.KeyN)
	n := len(h.v.Layers())
	h.v.save.askRemove(h.pl)
	if _, _, ok := h.v.Dialogs().Showing(dlgRemove); !ok || len(h.v.Layers()) != n {
		t.Fatalf("the trash button removed a layer with unsaved edits without asking (%d layers, had %d)", len(h.v.Layers()), n)
	}
	h.key(fyne.KeyEscape) // keep the layer
	if len(h.v.Layers()) != n || h.v.Dialogs().Len() != 0 {
		t.Fatalf("Escape: %d layers (had %d), %d dialogs", len(h.v.Layers()), n, h.v.Dialogs().Len())
	}
	// Save and remove: the file holds the edit, the layer is gone.
	h.v.save.askRemove(h.pl)
	h.press(dlgRemove, "Save and remove")
	if got := readBack(t, path); !slices.Equal(got, []Point{pt(5, 10, 10, "non-cell"), pt(5, 30, 30, "cell")}) {
		t.Errorf("saved before removing: %v", got)
	}
	if h.v.stack.IndexOf(h.pl) >= 0 {
		t.Error("Save and remove left the layer")
	}
	// Remove without saving; and an unedited layer goes at once.
	fresh := h.v.AddPoints("new", nil)
	fresh.AddPoint(pt(1, 2, 3, "cell"))
	h.v.save.askRemove(fresh)
	h.press(dlgRemove, "Remove without saving")
	if h.v.stack.IndexOf(fresh) >= 0 {
		t.Error("Remove without saving left the layer")
	}
	plain := h.v.AddPoints("plain", []Point{pt(1, 1, 1, "cell")})
	h.v.save.askRemove(plain)
	if h.v.stack.IndexOf(plain) >= 0 || h.v.Dialogs().Len() != 0 {
		t.Error("an unedited layer was not removed at once")
	}
}

// TestSaveAsNeverLosesTheFile: the Save as dialog opens on the layer's
// own file; a typed absolute path is used as typed; replacing another
// file asks first and a "Cancel" leaves it untouched; a save that fails
// leaves the file as it was (nothing opened it before); a name without
// .csv or .xml is saved as .csv with no stray file, and asks before
// replacing that .csv. Every file is read back.
func TestSaveAsNeverLosesTheFile(t *testing.T) {
	h := newEditHarness(t, []Point{pt(5, 10, 10, "cell")})
	dir, other := t.TempDir(), t.TempDir()
	own := filepath.Join(dir, "cells.xml")
	if err := h.pl.Save(own); err != nil {
		t.Fatal(err)
	}
	h.pl.AddPoint(pt(5, 20, 20, "cell"))

	// Opens on the layer's file, not the home folder.
	h.shortcut(saveAsShortcut)
	if got := h.v.save.shown.path.Text; got != own {
		t.Errorf("Save as proposes %q, want the layer's file %q", got, own)
	}
	h.key(fyne.KeyEscape)
	if h.v.Dialogs().Len() != 0 {
		t.Fatal("Escape left the Save as dialog")
	}

	// Another file exists: Cancel keeps it byte for byte.
	curated := filepath.Join(other, "curated.xml")
	before := []byte("<previous curation/>\n")
	os.WriteFile(curated, before, 0o644)
	h.saveAs(curated)
	if _, _, ok := h.v.Dialogs().Showing(dlgOverwrite); !ok {
		t.Fatal("saving over another file did not ask")
	}
	h.press(dlgOverwrite, "Cancel")
	if got, _ := os.ReadFile(curated); string(got) != string(before) {
		t.Fatalf("after Cancel the file holds %q", got)
	}

	// Replace, but the save fails: the file is as it was, the dialog
	// says why and stays.
	savePoints = func(string, []Point, []float64) error { return errors.New("disk full") }
	h.key(fyne.KeyReturn)
	h.press(dlgOverwrite, "Replace")
	savePoints = points.SaveProbability
	if got, _ := os.ReadFile(curated); string(got) != string(before) {
		t.Fatalf("a failed save left the file %q", got)
	}
	if !strings.Contains(h.v.save.shown.msg.Text, "disk full") || h.v.dlg.byKind[dlgSave] == nil {
		t.Errorf("failed save: message %q, dialog on show %v", h.v.save.shown.msg.Text, h.v.dlg.byKind[dlgSave] != nil)
	}
	// Now it works: the typed absolute path, not one under the home folder.
	h.key(fyne.KeyReturn)
	h.press(dlgOverwrite, "Replace")
	want := []Point{pt(5, 10, 10, "cell"), pt(5, 20, 20, "cell")}
	if got := readBack(t, curated); !slices.Equal(got, want) {
		t.Errorf("saved %v, want %v", got, want)
	}
	if h.v.Dialogs().Len() != 0 {
		t.Errorf("%d dialogs after a save", h.v.Dialogs().Len())
	}
	if got := readBack(t, own); len(got) != 1 {
		t.Errorf("the old file changed: %v", got)
	}

	// No extension: NAME.csv, no stray NAME; an existing NAME.csv asks.
	bare := filepath.Join(other, "bare")
	os.WriteFile(bare+".csv", []byte("z,y,x,type\n1,1,1,cell\n"), 0o644)
	h.saveAs(bare)
	if _, _, ok := h.v.Dialogs().Showing(dlgOverwrite); !ok {
		t.Fatal("saving to NAME, which becomes the existing NAME.csv, did not ask")
	}
	h.press(dlgOverwrite, "Replace")
	if _, err := os.Stat(bare); err == nil {
		t.Error("a stray file without extension was left")
	}
	if got := readBack(t, bare+".csv"); !slices.Equal(got, want) {
		t.Errorf("NAME.csv holds %v", got)
	}
	// A relative name goes beside the file proposed.
	h.saveAs("rel.csv")
	if got := readBack(t, filepath.Join(other, "rel.csv")); !slices.Equal(got, want) {
		t.Errorf("rel.csv holds %v", got)
	}
}

// TestSaveAsRenamesTheLayer: after Save as, the layer list, the status
// bar, the window title and the close question name the new file, and
// Ctrl+S writes there.
func TestSaveAsRenamesTheLayer(t *testing.T) {
	h := newEditHarness(t, []Point{pt(5, 10, 10, "cell")})
	dir := t.TempDir()
	old := filepath.Join(dir, "old.csv")
	if err := h.pl.Save(old); err != nil {
		t.Fatal(err)
	}
	h.pl.spec = old
	h.pl.AddPoint(pt(5, 20, 20, "cell"))
	next := filepath.Join(dir, "renamed.csv")
	h.saveAs(next)
	if h.pl.Name() != "renamed.csv" || h.pl.Path() != next {
		t.Fatalf("after Save as: name %q, path %q", h.pl.Name(), h.pl.Path())
	}
	list := test.RenderObjectToMarkup(h.v.list)
	if !strings.Contains(list, ">renamed.csv  • unsaved<") && !strings.Contains(list, ">renamed.csv<") || strings.Contains(list, "old.csv") {
		t.Errorf("layer list still names the old file:\n%s", list)
	}
	if !strings.Contains(h.v.bar.info.Text, "renamed.csv:") {
		t.Errorf("status bar %q", h.v.bar.info.Text)
	}
	if got := h.w.Title(); !strings.Contains(got, "renamed.csv") || strings.Contains(got, "old.csv") {
		t.Errorf("title %q", got)
	}
	h.pl.AddPoint(pt(5, 30, 30, "cell"))
	h.v.ConfirmUnsaved(func() {})
	ov := test.RenderObjectToMarkup(h.w.Canvas().Overlays().Top())
	if !strings.Contains(ov, "renamed.csv") || strings.Contains(ov, "old.csv") {
		t.Errorf("close question names the old file:\n%s", ov)
	}
	h.key(fyne.KeyEscape)
	h.shortcut(saveShortcut)
	if got := readBack(t, next); len(got) != 3 {
		t.Errorf("Ctrl+S wrote %v to the new file", got)
	}
	if got := readBack(t, old); len(got) != 1 {
		t.Errorf("Ctrl+S wrote to the old file: %v", got)
	}
}

// TestUnknownPointsToXMLAsk: saving points of unknown class to
// cellfinder's XML, which has none, asks: save as CSV instead keeps the
// class (read back unknown), XML anyway writes them as non-cells (read
// back non-cell), cancel writes nothing.
func TestUnknownPointsToXMLAsk(t *testing.T) {
	h := newEditHarness(t, []Point{pt(5, 10, 10, "cell"), pt(5, 30, 30, "cell")})
	dir := t.TempDir()
	xml := filepath.Join(dir, "cells.xml")
	h.pl.SetSelected(false, 1)
	h.key(fyne.KeyU)
	h.saveAs(xml)
	if _, _, ok := h.v.Dialogs().Showing(dlgUnknownXML); !ok {
		t.Fatal("unknown points saved to XML without a word")
	}
	h.press(dlgUnknownXML, "Cancel")
	if _, err := os.Stat(xml); err == nil {
		t.Fatal("Cancel wrote the XML")
	}
	h.key(fyne.KeyReturn) // the Save dialog is still up
	h.press(dlgUnknownXML, "Save as CSV instead")
	csv := filepath.Join(dir, "cells.csv")
	if got := readBack(t, csv); !slices.Equal(got, []Point{pt(5, 10, 10, "cell"), pt(5, 30, 30, "unknown")}) {
		t.Errorf("CSV holds %v", got)
	}
	if h.pl.Path() != csv {
		t.Errorf("layer's file %q, want the CSV", h.pl.Path())
	}
	// XML anyway, through the menu's Save as.
	h.saveAs(xml)
	h.press(dlgUnknownXML, "Save as XML anyway")
	got := readBack(t, xml)
	c := points.Summarize(got).ByClass
	if len(got) != 2 || c[points.NonCell] != 1 || c[points.Cell] != 1 {
		t.Errorf("XML read back as %v", got)
	}
}

// TestBoxSelectsThePlaneOnShow: with ±3 planes of points drawn, a box
// takes only the points of the plane on show, and U changes only those.
func TestBoxSelectsThePlaneOnShow(t *testing.T) {
	h := newEditHarness(t, []Point{pt(12, 20, 20, "cell"), pt(13, 22, 22, "cell"), pt(13, 25, 25, "cell"), pt(14, 21, 24, "cell"), pt(16, 23, 23, "cell"), pt(13, 50, 70, "cell")})
	h.pl.SetOutOfSlice(3)
	h.v.Dims().SetSlice(13)
	h.key(fyne.Key3)
	h.drag(15, 15, 30, 30, false)
	if got := h.pl.Selected(); !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("box on plane 13 selected %v, want [1 2] (the plane's two inside it)", got)
	}
	h.key(fyne.KeyU)
	for i, p := range h.pl.Points() {
		if want := i == 1 || i == 2; (points.ClassOf(p.Type) == points.Unknown) != want {
			t.Errorf("point %d on plane %v: %q", i, p.Z, p.Type)
		}
	}
	// A click on the faint marker of plane 14 picks nothing.
	h.click(21, 24, false)
	if got := h.pl.Selected(); len(got) != 0 {
		t.Errorf("a click on a point of plane 14 from plane 13 selected %v", got)
	}
}

// TestErrorDialogKeys: an error dialog closes on Enter, Escape or Space,
// and errors shown while one is up replace it instead of stacking; the
// keys do not reach the canvas under it.
func TestErrorDialogKeys(t *testing.T) {
	h := newEditHarness(t, nil)
	for _, k := range []fyne.KeyName{fyne.KeyReturn, fyne.KeyEscape, fyne.KeySpace, fyne.KeyEnter} {
		h.v.Dialogs().ShowError(errors.New("first"))
		h.v.Dialogs().ShowError(errors.New("second"))
		h.v.Dialogs().ShowError(errors.New("second"))
		if n := h.v.Dialogs().Len(); n != 1 || len(h.w.Canvas().Overlays().List()) != 1 {
			t.Fatalf("three errors: %d dialogs, %d overlays, want 1", n, len(h.w.Canvas().Overlays().List()))
		}
		at := h.v.Dims().Slice()
		h.key(k)
		if h.v.Dialogs().Len() != 0 || h.w.Canvas().Overlays().Top() != nil {
			t.Errorf("key %s left the error dialog", k)
		}
		if h.v.Dims().Slice() != at {
			t.Errorf("key %s moved the slice behind the dialog", k)
		}
	}
	// With the keyboard taken off the buttons, the keys still close it,
	// and Right does not step the slice under it.
	h.v.Dialogs().ShowError(errors.New("third"))
	h.w.Canvas().Unfocus()
	at := h.v.Dims().Slice()
	h.key(fyne.KeyRight)
	if h.v.Dims().Slice() != at || h.v.Dialogs().Len() != 1 {
		t.Errorf("Right under an error dialog: slice %d -> %d, %d dialogs", at, h.v.Dims().Slice(), h.v.Dialogs().Len())
	}
	h.key(fyne.KeyEscape)
	if h.v.Dialogs().Len() != 0 {
		t.Error("Escape with nothing focused left the dialog")
	}
}

// TestNewPointsLayer: File ▸ New points layer (and the toolbar button)
// adds an empty points layer on an image, selected, in add mode: a click
// adds a point on the plane on show; Save asks where, beside the image.
func TestNewPointsLayer(t *testing.T) {
	h := newEditHarness(t, nil)
	h.v.RemoveLayer(h.pl)
	item := menuItem(h.v.mainMenu(), newPointsShortcut)
	if item == nil {
		t.Fatal("no menu item with Ctrl+N")
	}
	item.Action()
	pl, ok := h.v.Selected().(*PointsLayer)
	if !ok || pl.Len() != 0 || h.v.edit.mode != AddPoints {
		t.Fatalf("selected %v, mode %v", h.v.Selected(), h.v.edit.mode)
	}
	h.pl = pl
	h.click(20, 30, false)
	if got := pl.Points(); !slices.Equal(got, []Point{pt(5, 20, 30, "cell")}) {
		t.Errorf("a click on the new layer added %v", got)
	}
	h.v.edit.newLayer()
	if h.v.Selected().Name() != "points 2" {
		t.Errorf("second new layer named %q", h.v.Selected().Name())
	}
}

// TestMenuShortcuts: Save points as has Ctrl+Shift+S and opens the
// dialog; File ends with Quit on Ctrl+Q, left to Fyne, which closes
// the window through its close intercept (the unsaved-edits question).
func TestMenuShortcuts(t *testing.T) {
	h := newEditHarness(t, []Point{pt(5, 10, 10, "cell")})
	menu := h.v.mainMenu()
	save := menuItem(menu, saveAsShortcut)
	if save == nil || save.Label != "Save points as…" {
		t.Fatalf("Ctrl+Shift+S is %v", save)
	}
	save.Action()
	if h.v.dlg.byKind[dlgSave] == nil {
		t.Error("Save points as… opened nothing")
	}
	q := menuItem(menu, quitShortcut)
	file := menu.Items[0].Items
	if q == nil || !q.IsQuit || q.Action != nil || file[len(file)-1] != q {
		t.Errorf("File ▸ Quit: %+v", q)
	}
}

// menuItem returns the item of m with shortcut sc, or nil.
func menuItem(m *fyne.MainMenu, sc fyne.Shortcut) *fyne.MenuItem {
	for _, menu := range m.Items {
		for _, it := range menu.Items {
			if it.Shortcut != nil && it.Shortcut.ShortcutName() == sc.ShortcutName() {
				return it
			}
		}
	}
	return nil
}

// TestOpenDialogKeys: the Open dialog's path takes the keyboard; Escape
// in it cancels, Enter opens (or says why beside the path).
func TestOpenDialogKeys(t *testing.T) {
	h := newEditHarness(t, nil)
	h.v.files.show(false)
	if h.v.files.shown == nil || h.w.Canvas().Focused() != h.v.files.shown.path {
		t.Fatal("the Open dialog's path does not have the keyboard")
	}
	h.key(fyne.KeyEscape)
	if h.v.files.shown != nil || h.v.Dialogs().Len() != 0 {
		t.Fatal("Escape left the Open dialog")
	}
	csv := filepath.Join(t.TempDir(), "c.csv")
	os.WriteFile(csv, []byte("z,y,x\n1,2,3\n"), 0o644)
	h.v.files.show(false)
	h.v.files.shown.path.SetText(csv)
	h.key(fyne.KeyReturn)
	if h.v.Dialogs().Len() != 0 || h.v.Selected().Name() != "c.csv" {
		t.Errorf("Enter: %d dialogs, selected %q", h.v.Dialogs().Len(), h.v.Selected().Name())
	}
}

// TestSaveKeepsTheProbabilities opens a classify CSV (z,y,x,type,
// probability; an unknown candidate has none), deletes a point and adds
// one, saves to a new CSV and reopens it: the probability column is
// kept for the points read (empty for the unknown and the new point),
// so the review shows them again; saving dropped it, and the reopened
// layer showed no probability and lost its review order.
func TestSaveKeepsTheProbabilities(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "classified.csv")
	if err := os.WriteFile(in, []byte("z,y,x,type,probability\n1,2,3,2,0.75\n4,5,6,1,0.125\n7,8,9,1,\n10,11,12,2,0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := h.v.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	pl := l.(*PointsLayer)
	pl.SetSelected(false, 1)
	if pl.DeleteSelected() != 1 {
		t.Fatal("the second point was not deleted")
	}
	pl.AddPoint(Point{Z: 13, Y: 14, X: 15, Type: "cell"})
	out := filepath.Join(dir, "reviewed.csv")
	if err := pl.Save(out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := "z,y,x,type,probability\n1,2,3,2,0.75\n7,8,9,unknown,\n10,11,12,2,0.5\n13,14,15,cell,\n"
	if string(got) != want {
		t.Errorf("saved\n%s\nwant\n%s", got, want)
	}
	back, err := h.v.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	bp := back.(*PointsLayer)
	_, prob := bp.LiveWithProbabilities()
	if len(prob) != 4 || prob[0] != 0.75 || prob[2] != 0.5 || prob[1] == prob[1] || prob[3] == prob[3] {
		t.Errorf("reopened probabilities %v, want [0.75 NaN 0.5 NaN]", prob)
	}
}
