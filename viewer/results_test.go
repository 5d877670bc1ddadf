package viewer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/volume"
)

// TestOutputsAreNamedAfterTheInput: an output the user has not edited is
// named beside the input, after it, and follows it when the input
// changes; a taken name is numbered once (never "-2-2" after two runs);
// an edited name stays the user's; with no input the output is empty, and
// a relative input gives an absolute output, never a bare name in the
// folder voxlab was started in.
func TestOutputsAreNamedAfterTheInput(t *testing.T) {
	h := newPanelHarnessFor(t, cpuProbe, func(pl *Pipeline) { pl.Args[1].Default = "result.txt" })
	// A fresh form: nothing typed yet.
	h.p.cur = nil
	if err := h.p.Select("fake"); err != nil {
		t.Fatal(err)
	}
	out := h.p.Field("out").(*widget.Entry)
	if out.Text != "" || !strings.Contains(out.PlaceHolder, "result.txt") {
		t.Errorf("without an input the output is %q (placeholder %q), want empty", out.Text, out.PlaceHolder)
	}
	h.set("in", h.in)
	if want := filepath.Join(h.dir, "input-result.txt"); out.Text != want {
		t.Errorf("output %q, want %q beside the input", out.Text, want)
	}
	other := filepath.Join(h.dir, "other.dat")
	os.WriteFile(other, []byte("x"), 0o644)
	os.WriteFile(filepath.Join(h.dir, "other-result.txt"), []byte("taken"), 0o644)
	h.set("in", other)
	if want := filepath.Join(h.dir, "other-result-2.txt"); out.Text != want {
		t.Errorf("after changing the input: output %q, want %q (the name is taken)", out.Text, want)
	}
	// Each run leaves a fresh name, numbered from the same base.
	for _, want := range []string{"other-result-3.txt", "other-result-4.txt"} {
		h.ended(h.run())
		if out.Text != filepath.Join(h.dir, want) {
			t.Errorf("after a run: output %q, want %s", out.Text, want)
		}
	}
	// The user's own name is kept when the input changes, and numbered
	// after a run.
	mine := filepath.Join(h.dir, "mine.txt")
	h.set("out", mine)
	h.set("in", h.in)
	if out.Text != mine {
		t.Errorf("an edited output became %q when the input changed", out.Text)
	}
	h.ended(h.run())
	if want := filepath.Join(h.dir, "mine-2.txt"); out.Text != want {
		t.Errorf("after a run: output %q, want %q", out.Text, want)
	}
	h.set("in", other)
	if want := filepath.Join(h.dir, "mine-2.txt"); out.Text != want {
		t.Errorf("the numbered user's name became %q when the input changed", out.Text)
	}

	// A relative input, from the folder voxlab was started in.
	t.Chdir(h.dir)
	h.p.cur = nil
	h.p.Select("fake")
	out = h.p.Field("out").(*widget.Entry)
	h.set("in", "input.txt")
	if want := filepath.Join(h.dir, "input-result.txt"); out.Text != want {
		t.Errorf("relative input: output %q, want %q", out.Text, want)
	}
	if got := OutputBeside("brain/planes/", "cells.csv"); got != filepath.Join(h.dir, "brain", "planes-cells.csv") {
		t.Errorf("a folder input: %q", got)
	}
	if got := OutputBeside("/d/scan.h5:/entry/data", "dezinged.h5"); got != "/d/scan-dezinged.h5" {
		t.Errorf("an HDF5 dataset: %q", got)
	}
}

// TestOfferCompareLeavesTheView: offering to compare a result with its
// input changes nothing; accepting shows the two alone, side by side.
func TestOfferCompareLeavesTheView(t *testing.T) {
	h := newHarness(t)
	scan, _ := h.v.AddImage("scan", memVolume(t, volume.Uint16, [3]int{4, 8, 8}, func(z, y, x int) float64 { return 1 }), ImageOptions{})
	brain, _ := h.v.AddImage("brain", memVolume(t, volume.Uint16, [3]int{4, 8, 8}, func(z, y, x int) float64 { return 2 }), ImageOptions{})
	brain.SetVisible(false)
	res, _ := h.v.AddImage("result", memVolume(t, volume.Uint16, [3]int{4, 8, 8}, func(z, y, x int) float64 { return 3 }), ImageOptions{})
	h.v.OfferCompare(scan, res)
	h.settle()
	if h.v.Grid() || !scan.Visible() || brain.Visible() || !res.Visible() || h.v.Selected() != res {
		t.Errorf("the offer changed the view: grid %v, visible %v %v %v, selected %v",
			h.v.Grid(), scan.Visible(), brain.Visible(), res.Visible(), h.v.Selected().Name())
	}
	a, b, button := h.v.Offer()
	if a != scan || b != res || h.v.offer.box.Hidden {
		t.Fatalf("offer %v %v, shown %v", a, b, !h.v.offer.box.Hidden)
	}
	test.Tap(button)
	h.settle()
	if !h.v.Grid() || len(h.v.panels) != 2 || !scan.Visible() || !res.Visible() || brain.Visible() {
		t.Errorf("compare: grid %v, %d panels", h.v.Grid(), len(h.v.panels))
	}
	if !h.v.offer.box.Hidden {
		t.Error("the offer stayed after it was taken")
	}
	// Removing a layer withdraws an offer about it.
	h.v.OfferCompare(scan, res)
	h.v.RemoveLayer(res)
	if a, _, _ := h.v.Offer(); a != nil || !h.v.offer.box.Hidden {
		t.Error("the offer outlived its result")
	}
}

// TestKeysReturnToTheCanvas: after a click on a control (check, slider,
// button) the arrow keys step through slices again; text being typed
// keeps the keys until a button is pressed or Enter ends it.
func TestKeysReturnToTheCanvas(t *testing.T) {
	h := newHarness(t)
	h.w.Canvas().SetOnTypedKey(h.v.typedKey)
	h.v.AddImage("vol", memVolume(t, volume.Uint16, [3]int{20, 8, 8}, func(z, y, x int) float64 { return float64(z) }), ImageOptions{})
	h.v.SetSlice(5)
	h.settle()
	c := h.w.Canvas()
	press := func(k fyne.KeyName) {
		// What the driver does with a key: the focused widget's, or the
		// canvas's when none has the focus.
		if f := c.Focused(); f != nil {
			f.TypedKey(&fyne.KeyEvent{Name: k})
		} else {
			c.OnTypedKey()(&fyne.KeyEvent{Name: k})
		}
	}
	want := 5
	for _, click := range []struct {
		name string
		tap  func()
	}{
		{"the grid check", func() { test.Tap(h.v.grdCheck); test.Tap(h.v.grdCheck) }},
		{"the gamma slider", func() { test.Tap(h.v.ctl.gamma) }},
		{"the dims slider", func() { test.Tap(h.v.dims.slider); want = h.v.Slice() }},
		{"the layer list", func() {
			// A tapped row focuses the list, then selects.
			c.Focus(h.v.list)
			h.v.list.UnselectAll()
			h.v.list.Select(0)
		}},
	} {
		click.tap()
		h.settle()
		press(fyne.KeyRight)
		press(fyne.KeyPageUp)
		want = min(want+11, 19)
		if h.v.Slice() != want {
			t.Errorf("after a click on %s (focus %T): slice %d, want %d", click.name, c.Focused(), h.v.Slice(), want)
		}
		h.v.SetSlice(5)
		want = 5
	}
	// Typing in an entry keeps the keys; a button takes them back.
	c.Focus(h.v.ctl.lo)
	h.v.SetGrid(true) // the program changes a control meanwhile
	if c.Focused() != h.v.ctl.lo {
		t.Fatalf("the entry lost the focus to a change it did not make (%T)", c.Focused())
	}
	h.v.SetGrid(false)
	// The button's action, as the desktop driver runs it: that driver
	// leaves the focus alone when a button is clicked (test.Tap would
	// unfocus by itself).
	findButton(t, h.v.root, "Reset view").OnTapped()
	if c.Focused() != nil {
		t.Errorf("a button left the focus on %T", c.Focused())
	}
	// Enter in the contrast entries ends the typing.
	c.Focus(h.v.ctl.hi)
	h.v.ctl.hi.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if c.Focused() != nil {
		t.Errorf("Enter left the focus on %T", c.Focused())
	}
}

// TestMenusAndOpenDialog: the menus show their shortcuts (Ctrl+O
// opens); the Open dialog takes a typed path, says when it is wrong, and
// opens a folder of TIFF planes as one layer.
func TestMenusAndOpenDialog(t *testing.T) {
	h := newHarness(t)
	m := h.v.mainMenu()
	file := m.Items[0]
	if file.Label != "File" || file.Items[0].Shortcut != openShortcut || file.Items[1].Label != "Open folder…" || file.Items[1].Shortcut == nil {
		t.Fatalf("File menu %q: %v", file.Label, file.Items)
	}
	if sc := file.Items[0].Shortcut.(interface{ ShortcutName() string }).ShortcutName(); !strings.Contains(sc, "O") {
		t.Errorf("Open's shortcut %s", sc)
	}
	for _, it := range m.Items[1].Items {
		if it.Shortcut == nil {
			t.Errorf("View ▸ %s has no shortcut", it.Label)
		}
	}
	dir := t.TempDir()
	planes := filepath.Join(dir, "planes")
	info := volume.Info{Shape: [3]int{3, 6, 7}, DType: volume.Uint16}
	w, err := volume.CreatePlaneDir(planes, info)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSlab(0, make([]byte, info.Bytes())); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	file.Items[0].Action() // as Ctrl+O does
	o := h.v.openDlg
	if o == nil || h.w.Canvas().Focused() != o.path {
		t.Fatal("Open shows no dialog with the path to type focused")
	}
	test.Type(o.path, filepath.Join(dir, "nosuch"))
	test.Tap(o.open)
	if o.msg.Hidden || !strings.Contains(o.msg.Text, "no such file") || h.v.openDlg != o {
		t.Errorf("a wrong path: message %q, dialog open %v", o.msg.Text, h.v.openDlg == o)
	}
	o.path.SetText(planes)
	o.path.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if h.v.openDlg != nil || len(h.v.layers) != 1 {
		t.Fatalf("Enter on a folder of planes: dialog open %v, %d layers", h.v.openDlg != nil, len(h.v.layers))
	}
	if il, ok := h.v.layers[0].(*ImageLayer); !ok || il.Extent() != info.Shape {
		t.Errorf("the folder opened as %v", h.v.layers[0])
	}
}

// TestWheelScrollsThePanelOverAnEntry: the wheel scrolls the processing
// panel with the pointer over an entry (whose own scroller would take
// it), and the scroll bar covers none of the form.
func TestWheelScrollsThePanelOverAnEntry(t *testing.T) {
	h := newPanelHarness(t, cpuProbe)
	h.hl.win.Resize(fyne.NewSize(1280, 800))
	h.hl.Drain()
	entry := h.p.Field("count").(*widget.Entry)
	d := fyne.CurrentApp().Driver()
	pos := d.AbsolutePositionForObject(entry).Add(fyne.NewPos(10, entry.Size().Height/2))
	if h.p.scroll.Content.MinSize().Height <= h.p.scroll.Size().Height {
		t.Fatalf("the form (%v) fits its scroller (%v): nothing to scroll", h.p.scroll.Content.MinSize(), h.p.scroll.Size())
	}
	test.Scroll(h.hl.win.Canvas(), pos, 0, -120)
	if h.p.scroll.Offset.Y <= 0 {
		t.Errorf("the wheel over an entry did not scroll the panel (offset %v)", h.p.scroll.Offset)
	}
	formRight := d.AbsolutePositionForObject(h.p.form).X + h.p.form.Size().Width
	scrollRight := d.AbsolutePositionForObject(h.p.scroll).X + h.p.scroll.Size().Width
	if bar := theme.Size(theme.SizeNameScrollBar); scrollRight-formRight < bar {
		t.Errorf("the form ends %v px left of the scroll bar's edge, want at least its width %v", scrollRight-formRight, bar)
	}
}
